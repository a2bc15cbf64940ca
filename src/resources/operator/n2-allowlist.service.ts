import { InvalidError } from '../../errors.ts';
import type { Actor } from '../../identity/actor.ts';
import { allowlistError } from '../../network/amf/n2/n2-peer-allowlist.ts';
import type { ConfigurationChanges } from '../../network/ports/configuration-events.ts';
import type { Db } from '../../storage/database.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { OperatorRepository } from './operator.repository.ts';

/**
 * The N2 allowlist an operator sets through the API (docs/n2.md): the peers that may open an N2
 * association, beside the process configuration's `n2_allowed_peers`. A change reaches the N2 service as
 * an operator configuration event: new associations are checked against it, and those of peers it no
 * longer admits end.
 */
export function createN2AllowlistService(deps: {
  db: Db;
  operator: Pick<OperatorRepository, 'n2AllowedPeers' | 'updateN2AllowedPeers'>;
  audit: AuditLogService;
  changes: ConfigurationChanges;
}) {
  const { db, operator, audit, changes } = deps;
  return {
    get: async (): Promise<{ peers: string[] }> => ({ peers: await operator.n2AllowedPeers() }),

    async update(peers: string[], actor: Actor): Promise<void> {
      const error = allowlistError(peers);
      if (error !== undefined) throw new InvalidError(`peers: ${error}`);
      await db.transaction().execute(async (trx) => {
        await operator.updateN2AllowedPeers(peers, trx);
        await audit.record(
          actor,
          {
            action: 'update_n2_allowlist',
            details:
              peers.length === 0
                ? 'N2 allowlist cleared: every peer admitted'
                : `N2 allowlist set: ${peers.join(', ')}`,
          },
          trx,
        );
      });
      changes.publish({ resource: 'operator', change: 'changed', name: '' });
    },
  };
}

export type N2AllowlistService = ReturnType<typeof createN2AllowlistService>;
