import { clearRecords } from '../../records/clear-records.ts';
import type { Db } from '../../storage/database.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { RadioLog, RadioLogFilter, RadioLogsRepository } from './radio-logs.repository.ts';

export function createRadioLogsService(deps: {
  db: Db;
  repository: RadioLogsRepository;
  audit: AuditLogService;
  /** Writes every record the pipeline has accepted, so a clear removes them too. */
  flushRecords: () => Promise<void>;
}) {
  const { repository } = deps;

  return {
    async list(
      filter: RadioLogFilter,
      limit: number,
      offset: number,
    ): Promise<{ items: RadioLog[]; total: number }> {
      const [items, total] = await Promise.all([
        repository.list(filter, limit, offset),
        repository.count(filter),
      ]);
      return { items, total };
    },

    clear: (actor: Actor): Promise<number> =>
      clearRecords(deps, actor, {
        action: 'clear_radio_logs',
        deleteAll: (executor) => repository.deleteAll(executor),
        details: (deleted) => `All radio logs deleted (${deleted})`,
      }),
  };
}

export type RadioLogsService = ReturnType<typeof createRadioLogsService>;
