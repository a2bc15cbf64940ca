import type { Clock } from '../../clock.ts';
import type { Executor } from '../../storage/transaction.ts';
import { auditIdentity, type Actor } from '../../identity/actor.ts';
import type { AuditLogEntry, AuditLogFilter, AuditLogsRepository } from './audit-logs.repository.ts';

type AuditLevel = 'INFO' | 'WARN';

interface AuditRecord {
  action: string;
  details: string;
  level?: AuditLevel;
}

export function createAuditLogService(deps: { repository: AuditLogsRepository; clock: Clock }) {
  const { repository, clock } = deps;
  const recordedListeners = new Set<() => void>();

  return {
    /**
     * Writes one entry. Services pass their transaction so the entry lands with the change or not at all.
     */
    async record(actor: Actor, record: AuditRecord, executor?: Executor): Promise<void> {
      await repository.insert(
        {
          timestamp: clock.now(),
          level: record.level ?? 'INFO',
          ...auditIdentity(actor),
          action: record.action,
          details: record.details,
        },
        executor,
      );
      // Inside the caller's transaction the entry is not committed yet: a listener reads it later.
      for (const listener of recordedListeners) listener();
    },

    /** Calls `listener` after each entry is written (maybe not yet committed); returns the unsubscribe. */
    onRecorded(listener: () => void): () => void {
      recordedListeners.add(listener);
      return () => {
        recordedListeners.delete(listener);
      };
    },

    /** The entries after `afterId`, by id, and the highest id: the live event stream follows the table. */
    listAfterId: (afterId: number, limit: number): Promise<AuditLogEntry[]> =>
      repository.listAfterId(afterId, limit),
    lastId: (): Promise<number> => repository.lastId(),

    async list(
      filter: AuditLogFilter,
      limit: number,
      offset: number,
    ): Promise<{ items: AuditLogEntry[]; total: number }> {
      const [items, total] = await Promise.all([
        repository.list(filter, limit, offset),
        repository.count(filter),
      ]);
      return { items, total };
    },
  };
}

export type AuditLogService = ReturnType<typeof createAuditLogService>;
