import { clearRecords } from '../../records/clear-records.ts';
import type { Db } from '../../storage/database.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type {
  SubscriberLog,
  SubscriberLogFilter,
  SubscriberLogsRepository,
} from './subscriber-logs.repository.ts';

export function createSubscriberLogsService(deps: {
  db: Db;
  repository: SubscriberLogsRepository;
  audit: AuditLogService;
  /** Writes every record the pipeline has accepted, so a clear removes them too. */
  flushRecords: () => Promise<void>;
}) {
  const { repository } = deps;

  return {
    async list(
      filter: SubscriberLogFilter,
      limit: number,
      offset: number,
    ): Promise<{ items: SubscriberLog[]; total: number }> {
      const [items, total] = await Promise.all([
        repository.list(filter, limit, offset),
        repository.count(filter),
      ]);
      return { items, total };
    },

    clear: (actor: Actor): Promise<number> =>
      clearRecords(deps, actor, {
        action: 'clear_subscriber_logs',
        deleteAll: (executor) => repository.deleteAll(executor),
        details: (deleted) => `All subscriber logs deleted (${deleted})`,
      }),
  };
}

export type SubscriberLogsService = ReturnType<typeof createSubscriberLogsService>;
