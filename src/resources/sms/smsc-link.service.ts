import type { Clock } from '../../clock.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { InvalidError, NotFoundError } from '../../errors.ts';
import type { Actor } from '../../identity/actor.ts';
import type { ConfigurationChanges } from '../../network/ports/configuration-events.ts';
import type { Db } from '../../storage/database.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { SmscLinkRepository } from './smsc-link.repository.ts';

interface SmscLinkInput {
  host: string;
  port: number;
  systemId: string;
  password?: string;
  systemType?: string;
  enabled?: boolean;
}

export interface SmscLinkStatus {
  state: 'disabled' | 'connecting' | 'bound';
  lastError?: string;
}

/**
 * The SMSC link's configuration through the API (docs/sms.md, "SMSC link"): one configuration, its
 * password sealed with the service's secret box and never returned. A change is audited and published
 * as a configuration event (`smsc-link`) once committed; the running link binds again with it, here and,
 * on PostgreSQL, in the other processes.
 */
export function createSmscLinkService(deps: {
  db: Db;
  repository: SmscLinkRepository;
  audit: AuditLogService;
  secretBox: SecretBox;
  clock: Clock;
  changes: ConfigurationChanges;
  /** The running link's state (disabled when no network side runs). */
  status: () => SmscLinkStatus;
}) {
  const { db, repository, audit, secretBox, clock, changes } = deps;
  return {
    async get() {
      const row = await repository.get();
      const status = deps.status();
      return {
        configuration:
          row === undefined
            ? undefined
            : {
                host: row.host,
                port: row.port,
                systemId: row.system_id,
                systemType: row.system_type,
                enabled: row.enabled === 1,
                updatedAt: row.updated_at,
              },
        state: status.state,
        lastError: status.lastError ?? null,
      };
    },

    async put(input: SmscLinkInput, actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const stored = await repository.get(trx);
        if (input.password === undefined && stored === undefined)
          throw new InvalidError('password: required when no SMSC link is configured');
        const enabled = input.enabled ?? true;
        await repository.put(
          {
            host: input.host,
            port: input.port,
            system_id: input.systemId,
            password_sealed:
              input.password === undefined ? stored!.password_sealed : secretBox.seal(input.password),
            system_type: input.systemType ?? '',
            enabled: enabled ? 1 : 0,
            updated_at: clock.now(),
          },
          trx,
        );
        await audit.record(
          actor,
          {
            action: 'update_smsc_link',
            details:
              `SMSC link set: ${input.systemId}@${input.host}:${input.port}, ${enabled ? 'enabled' : 'disabled'}` +
              (input.password === undefined ? '' : ', password changed'),
          },
          trx,
        );
      });
      changes.publish({ resource: 'smsc-link', change: 'changed', name: '' });
    },

    async delete(actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (!(await repository.delete(trx))) throw new NotFoundError('no SMSC link is configured');
        await audit.record(actor, { action: 'delete_smsc_link', details: 'SMSC link removed' }, trx);
      });
      changes.publish({ resource: 'smsc-link', change: 'deleted', name: '' });
    },
  };
}

export type SmscLinkService = ReturnType<typeof createSmscLinkService>;
