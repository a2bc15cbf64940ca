import { nextSqn, SQN_BYTES } from '../../crypto/sequence-number.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { AuthenticationDataPort } from '../../network/ports/authentication-data.ts';
import type { SubscribersRepository } from '../../resources/subscribers/subscribers.repository.ts';
import type { Db } from '../../storage/database.ts';

/**
 * The authentication data port over the subscribers table. Each generation reads SQN_HE, advances it and
 * stores it in one write transaction: transactions take the write lock as they begin, so two
 * generations for one subscriber run one after the other and never share an SQN.
 */
export function createAuthenticationData(deps: {
  db: Db;
  subscribers: Pick<SubscribersRepository, 'findCredentials' | 'updateSequenceNumber'>;
  secretBox: SecretBox;
}): AuthenticationDataPort {
  const { db, subscribers, secretBox } = deps;
  return {
    generateAuthenticationData: (imsi) =>
      db.transaction().execute(async (trx) => {
        const sealed = await subscribers.findCredentials(imsi, trx);
        if (!sealed) return undefined;
        const sqn = nextSqn(Buffer.from(sealed.sequenceNumber, 'hex'));
        await subscribers.updateSequenceNumber(imsi, sqn.toString('hex'), trx);
        return {
          k: Buffer.from(secretBox.open(sealed.keySealed), 'hex'),
          opc: Buffer.from(secretBox.open(sealed.opcSealed), 'hex'),
          sqn,
        };
      }),

    async resynchronise(imsi, sqnMs) {
      if (sqnMs.length !== SQN_BYTES) throw new RangeError(`SQN_MS is ${SQN_BYTES} bytes`);
      return subscribers.updateSequenceNumber(imsi, sqnMs.toString('hex'));
    },
  };
}
