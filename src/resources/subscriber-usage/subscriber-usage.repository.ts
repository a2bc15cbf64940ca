import type { ExpressionBuilder } from 'kysely';
import type { UsageIncrement } from '../../records/record-inputs.ts';
import type { Db } from '../../storage/database.ts';
import { counterRows } from '../../storage/row-statement.ts';
import type { Database } from '../../storage/schema.ts';
import type { Executor } from '../../storage/transaction.ts';
import { DAY_MS } from '../../validation/calendar-date.ts';

export interface UsageTotals {
  uplinkBytes: number;
  downlinkBytes: number;
}

/** Days from `from` to `to` (UTC midnights, both included), optionally one subscriber. */
interface UsageFilter {
  from: number;
  to: number;
  imsi?: string;
}

function conditions(eb: ExpressionBuilder<Database, 'subscriber_usage'>, filter: UsageFilter) {
  const list = [eb('day', '>=', filter.from), eb('day', '<=', filter.to)];
  if (filter.imsi !== undefined) list.push(eb('imsi', '=', filter.imsi));
  return eb.and(list);
}

export function createSubscriberUsageRepository(db: Db) {
  const addToDay = counterRows<UsageIncrement>(
    db,
    'subscriber_usage',
    ['imsi', 'day'],
    ['uplink_bytes', 'downlink_bytes'],
  );

  return {
    /**
     * Adds the bytes to each subscriber's counters of the day, creating them on the day's first bytes;
     * synchronous, inside the records writer's transaction (storage/row-statement.ts).
     */
    add: addToDay,

    /** Totals per day with usage, ascending. */
    async byDay(filter: UsageFilter): Promise<({ day: number } & UsageTotals)[]> {
      const rows = await db
        .selectFrom('subscriber_usage')
        .select((eb) => [
          'day',
          eb.fn.sum<number>('uplink_bytes').as('uplink'),
          eb.fn.sum<number>('downlink_bytes').as('downlink'),
        ])
        .where((eb) => conditions(eb, filter))
        .groupBy('day')
        .orderBy('day')
        .execute();
      return rows.map((row) => ({
        day: Number(row.day),
        uplinkBytes: Number(row.uplink),
        downlinkBytes: Number(row.downlink),
      }));
    },

    /** Totals per subscriber with usage, by IMSI ascending. */
    async bySubscriber(filter: UsageFilter): Promise<({ imsi: string } & UsageTotals)[]> {
      const rows = await db
        .selectFrom('subscriber_usage')
        .select((eb) => [
          'imsi',
          eb.fn.sum<number>('uplink_bytes').as('uplink'),
          eb.fn.sum<number>('downlink_bytes').as('downlink'),
        ])
        .where((eb) => conditions(eb, filter))
        .groupBy('imsi')
        .orderBy('imsi')
        .execute();
      return rows.map((row) => ({
        imsi: row.imsi,
        uplinkBytes: Number(row.uplink),
        downlinkBytes: Number(row.downlink),
      }));
    },

    async deleteAll(executor: Executor = db): Promise<number> {
      const result = await executor.deleteFrom('subscriber_usage').executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /**
     * Deletes at most `limit` day counters whose whole day lies before `cutoff`, oldest first; returns
     * how many went. A day that ends after the cutoff is kept whole.
     */
    async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('subscriber_usage')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('subscriber_usage')
            .select('id')
            .where('day', '<=', cutoff - DAY_MS)
            .orderBy('day')
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type SubscriberUsageRepository = ReturnType<typeof createSubscriberUsageRepository>;
