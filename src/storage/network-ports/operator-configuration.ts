import type { SecretBox } from '../../crypto/secret-box.ts';
import type {
  CipheringAlgorithm,
  IntegrityAlgorithm,
  OperatorConfigurationPort,
} from '../../network/ports/operator-configuration.ts';
import type { HomeNetworkKeysRepository } from '../../resources/operator/home-network-keys.repository.ts';
import type { OperatorRepository } from '../../resources/operator/operator.repository.ts';
import type { SlicesRepository } from '../../resources/slices/slices.repository.ts';
import type { Db } from '../database.ts';

/** The operator configuration port: PLMN, TACs, OP, slices, NAS preferences and home network keys. */
export function createOperatorConfiguration(deps: {
  db: Db;
  operator: Pick<OperatorRepository, 'find' | 'nasSecurity' | 'n2AllowedPeers'>;
  slices: Pick<SlicesRepository, 'snssais'>;
  homeNetworkKeys: Pick<HomeNetworkKeysRepository, 'list'>;
  secretBox: SecretBox;
}): OperatorConfigurationPort {
  const { db, operator, slices, homeNetworkKeys, secretBox } = deps;
  return {
    getOperatorConfiguration: () =>
      db.transaction().execute(async (trx) => {
        const found = await operator.find(trx);
        if (!found) throw new Error('the operator is not configured');
        const nasSecurity = await operator.nasSecurity(trx);
        return {
          plmn: { mcc: found.mcc, mnc: found.mnc },
          tacs: found.supportedTacs,
          op: Buffer.from(secretBox.open(found.opSealed), 'hex'),
          slices: (await slices.snssais(trx)).map(({ sst, sd }) => (sd === null ? { sst } : { sst, sd })),
          nasSecurity: {
            ciphering: nasSecurity.ciphering as CipheringAlgorithm[],
            integrity: nasSecurity.integrity as IntegrityAlgorithm[],
          },
          homeNetworkKeys: (await homeNetworkKeys.list(trx)).map((key) => ({
            id: key.id,
            scheme: key.scheme,
            publicKey: Buffer.from(key.publicKey, 'hex'),
            privateKey: Buffer.from(secretBox.open(key.privateKeySealed), 'hex'),
          })),
          n2AllowedPeers: await operator.n2AllowedPeers(trx),
        };
      }),
  };
}
