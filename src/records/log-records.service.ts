import type { Actor } from '../identity/actor.ts';
import { readSnapshot } from '../storage/read-snapshot.ts';
import type { Executor } from '../storage/transaction.ts';
import { clearRecords } from './clear-records.ts';

/** What a log table's repository (log-records.repository.ts) gives the service layer. */
interface LogRecords<Filter, Item> {
  list(filter: Filter, limit: number, offset: number): Promise<Item[]>;
  count(filter: Filter): Promise<number>;
  listAfterId(afterId: number, limit: number): Promise<Item[]>;
  lastId(): Promise<number>;
  deleteAll(executor: Executor): Promise<number>;
}

export type LogRecordsServiceDeps<Repository> = Parameters<typeof clearRecords>[0] & {
  repository: Repository;
};

/** The list and clear every log-like record resource answers: radio events, subscriber logs, radio logs. */
export function createLogRecordsService<Filter, Item>(
  deps: LogRecordsServiceDeps<LogRecords<Filter, Item>>,
  what: { action: string; records: string },
) {
  const { repository } = deps;

  return {
    async list(filter: Filter, limit: number, offset: number): Promise<{ items: Item[]; total: number }> {
      // One moment for both: a record committed between them would be counted but not listed.
      const [items, total] = await readSnapshot(deps.db, () =>
        Promise.all([repository.list(filter, limit, offset), repository.count(filter)]),
      );
      return { items, total };
    },

    /** The records after `afterId`, by id, and the highest id: the live event stream follows the table. */
    listAfterId: (afterId: number, limit: number): Promise<Item[]> => repository.listAfterId(afterId, limit),
    lastId: (): Promise<number> => repository.lastId(),

    clear: (actor: Actor): Promise<number> =>
      clearRecords(deps, actor, {
        action: what.action,
        deleteAll: (executor) => repository.deleteAll(executor),
        details: (deleted) => `All ${what.records} deleted (${deleted})`,
      }),
  };
}
