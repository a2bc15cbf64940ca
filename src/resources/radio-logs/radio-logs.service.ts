import { normalizeRadioId } from '../../network/radio-id.ts';
import type { LogDirection } from '../../records/record-inputs.ts';
import { timestampWindow } from '../../records/record-windows.ts';
import { clearRecords } from '../../records/clear-records.ts';
import type { Db } from '../../storage/database.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { RadioLog, RadioLogsRepository } from './radio-logs.repository.ts';

export interface RadioLogQuery {
  ran_id?: string;
  direction?: LogDirection;
  event?: string;
  timestamp_from?: string;
  timestamp_to?: string;
}

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
      query: RadioLogQuery,
      limit: number,
      offset: number,
    ): Promise<{ items: RadioLog[]; total: number }> {
      const filter = {
        ranId: query.ran_id === undefined ? undefined : normalizeRadioId(query.ran_id),
        direction: query.direction,
        event: query.event,
        ...timestampWindow(query),
      };
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
