import { nextSqn, SQN_BYTES } from '../../crypto/sequence-number.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { AuthenticationDataPort } from '../../network/ports/authentication-data.ts';
import type { SubscribersRepository } from '../../resources/subscribers/subscribers.repository.ts';
import type { Db } from '../../storage/database.ts';
import { writeTransaction } from '../../storage/row-statement.ts';
import { preparedQuery } from './prepared-query.ts';

/**
 * The authentication data port over the subscribers table. Each generation reads SQN_HE, advances it and
 * stores it in one short write transaction (BEGIN IMMEDIATE, two prepared statements, COMMIT, with
 * nothing awaited in between): the write lock is taken as it begins, so two generations for one
 * subscriber, or one here and one in another process on the file, run one after the other and never
 * share an SQN; it is committed before the vector leaves, so a restart never reuses it. K and OPc are
 * opened after the commit, outside the lock. A resynchronisation (rare) stores SQN_MS through the
 * repository.
 */
export function createAuthenticationData(deps: {
  db: Db;
  subscribers: Pick<SubscribersRepository, 'updateSequenceNumber'>;
  secretBox: SecretBox;
}): AuthenticationDataPort {
  const { db, subscribers, secretBox } = deps;
  const findCredentials = preparedQuery(db, ['imsi'], ({ imsi }: { imsi: string }) =>
    db
      .selectFrom('subscribers')
      .select(['key_sealed', 'opc_sealed', 'sequence_number'])
      .where('imsi', '=', imsi),
  );
  const storeSequenceNumber = preparedQuery(
    db,
    ['imsi', 'sequenceNumber'],
    ({ imsi, sequenceNumber }: { imsi: string; sequenceNumber: string }) =>
      db.updateTable('subscribers').set({ sequence_number: sequenceNumber }).where('imsi', '=', imsi),
  );

  type SealedRow = ReturnType<typeof findCredentials.all>[number];

  return {
    async generateAuthenticationData(imsi) {
      let generated: { sealed: SealedRow; sqn: Buffer } | undefined;
      await writeTransaction(db, () => {
        const sealed = findCredentials.all({ imsi })[0];
        if (sealed === undefined) return;
        const sqn = nextSqn(Buffer.from(sealed.sequence_number, 'hex'));
        storeSequenceNumber.run({ imsi, sequenceNumber: sqn.toString('hex') });
        generated = { sealed, sqn };
      });
      if (generated === undefined) return undefined;
      const { sealed, sqn } = generated;
      return {
        k: Buffer.from(secretBox.open(sealed.key_sealed), 'hex'),
        opc: Buffer.from(secretBox.open(sealed.opc_sealed), 'hex'),
        sqn,
      };
    },

    async resynchronise(imsi, sqnMs) {
      if (sqnMs.length !== SQN_BYTES) throw new RangeError(`SQN_MS is ${SQN_BYTES} bytes`);
      return subscribers.updateSequenceNumber(imsi, sqnMs.toString('hex'));
    },
  };
}
