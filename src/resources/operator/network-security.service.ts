import type { Clock } from '../../clock.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import {
  generateHomeNetworkKey,
  importHomeNetworkKey,
  PROTECTION_SCHEME,
  type EciesProfile,
} from '../../crypto/suci.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../errors.ts';
import type { Actor } from '../../identity/actor.ts';
import type { ConfigurationChanges } from '../../network/ports/configuration-events.ts';
import type { CipheringAlgorithm, IntegrityAlgorithm } from '../../network/ports/operator-configuration.ts';
import type { Db } from '../../storage/database.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import { withConstraintConflicts } from '../references.ts';
import type { HomeNetworkKeysRepository } from './home-network-keys.repository.ts';
import type { OperatorRepository } from './operator.repository.ts';

type Scheme = 'A' | 'B';

const PROFILE: Record<Scheme, EciesProfile> = {
  A: PROTECTION_SCHEME.profileA,
  B: PROTECTION_SCHEME.profileB,
};

interface NasSecurityPreferences {
  ciphering: CipheringAlgorithm[];
  integrity: IntegrityAlgorithm[];
}

/**
 * The operator's network security configuration (network.md section 9): the home network keys that
 * de-conceal SUCIs (TS 33.501 Annex C; private keys sealed at rest, never returned) and the ordered
 * NAS algorithm preferences the AMF chooses from (TS 33.501 5.5).
 */
export function createNetworkSecurityService(deps: {
  db: Db;
  keys: HomeNetworkKeysRepository;
  operator: Pick<OperatorRepository, 'nasSecurity' | 'updateNasSecurity'>;
  audit: AuditLogService;
  secretBox: SecretBox;
  clock: Clock;
  changes: ConfigurationChanges;
}) {
  const { db, keys, operator, audit, secretBox, clock, changes } = deps;

  return {
    async listKeys(): Promise<{ id: number; scheme: Scheme; publicKey: string }[]> {
      return (await keys.list()).map(({ id, scheme, publicKey }) => ({ id, scheme, publicKey }));
    },

    /** Imports `privateKey` (hex) or generates one; returns the public key. */
    async createKey(
      input: { id: number; scheme: Scheme; privateKey?: string },
      actor: Actor,
    ): Promise<{ publicKey: string }> {
      const profile = PROFILE[input.scheme];
      let privateKey: Buffer;
      let publicKey: Buffer;
      if (input.privateKey === undefined) {
        const generated = generateHomeNetworkKey(profile);
        privateKey = generated.privateKey;
        publicKey = generated.key.publicKey;
      } else {
        privateKey = Buffer.from(input.privateKey, 'hex');
        const imported = importHomeNetworkKey(profile, privateKey);
        if (!imported.ok)
          throw new InvalidError(`private_key is not a valid scheme ${input.scheme} private key`);
        publicKey = imported.value.publicKey;
      }
      const name = `${input.scheme}/${input.id}`;
      const duplicate = `home network key ${name} already exists`;
      await withConstraintConflicts({ duplicate }, () =>
        db.transaction().execute(async (trx) => {
          if (await keys.find(input.scheme, input.id, trx)) throw new ConflictError(duplicate);
          await keys.insert(
            {
              id: input.id,
              scheme: input.scheme,
              publicKey: publicKey.toString('hex'),
              privateKeySealed: secretBox.seal(privateKey.toString('hex')),
              createdAt: clock.now(),
            },
            trx,
          );
          await audit.record(
            actor,
            {
              action: 'create_home_network_key',
              details: `Home network key ${name} ${input.privateKey === undefined ? 'generated' : 'imported'} (public key ${publicKey.toString('hex')})`,
            },
            trx,
          );
        }),
      );
      changes.publish({ resource: 'operator', change: 'changed', name: '' });
      return { publicKey: publicKey.toString('hex') };
    },

    async deleteKey(scheme: Scheme, id: number, actor: Actor): Promise<void> {
      const name = `${scheme}/${id}`;
      await db.transaction().execute(async (trx) => {
        if (!(await keys.delete(scheme, id, trx)))
          throw new NotFoundError(`home network key ${name} not found`);
        await audit.record(
          actor,
          { action: 'delete_home_network_key', details: `Home network key ${name} deleted` },
          trx,
        );
      });
      changes.publish({ resource: 'operator', change: 'changed', name: '' });
    },

    nasSecurity: async (): Promise<NasSecurityPreferences> =>
      (await operator.nasSecurity()) as NasSecurityPreferences,

    async updateNasSecurity(preferences: NasSecurityPreferences, actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await operator.updateNasSecurity(preferences, trx);
        await audit.record(
          actor,
          {
            action: 'update_nas_security',
            details: `NAS security preferences set: ciphering ${preferences.ciphering.join(', ')}; integrity ${preferences.integrity.join(', ')}`,
          },
          trx,
        );
      });
      changes.publish({ resource: 'operator', change: 'changed', name: '' });
    },
  };
}

export type NetworkSecurityService = ReturnType<typeof createNetworkSecurityService>;
