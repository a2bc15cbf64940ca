import { CompiledQuery, sql } from 'kysely';
import { maybeSqliteFileOf, type Db } from './database.ts';
import { dayPartition } from './migrations/0017-flow-report-partitions.ts';
import { sendInTransaction } from './postgres-transaction-context.ts';
import type { Executor } from './transaction.ts';

const DAY_MS = 86_400_000;

/**
 * The day partitions of flow reports on PostgreSQL (migration 0017); nothing on SQLite, whose one table
 * takes every report and whose retention deletes rows.
 */
export function createFlowReportPartitions(db: Db) {
  const partitioned = maybeSqliteFileOf(db) === undefined;
  return {
    /**
     * Makes the partition of each UTC day of `endTimes` that is missing, in the records writer's
     * transaction before its reports go in (synchronous: a row statement, row-statement.ts). A partition
     * that exists costs a catalog lookup; a new one locks the table once a day until the batch commits.
     */
    ensureDays(endTimes: readonly number[]): void {
      if (!partitioned) return;
      const days = new Set(endTimes.map((time) => time - (time % DAY_MS)));
      for (const day of days) {
        sendInTransaction(
          CompiledQuery.raw(
            `create table if not exists ${dayPartition(day)} partition of flow_reports for values from (${day}) to (${day + DAY_MS})`,
          ),
        );
      }
    },

    /**
     * Drops the partitions of the days that ended by `cutoff` (PostgreSQL, in `executor`'s transaction):
     * the days and how many reports went with them. SQLite: none.
     */
    async dropDaysBefore(executor: Executor, cutoff: number): Promise<{ days: number[]; reports: number }> {
      if (!partitioned) return { days: [], reports: 0 };
      const { rows } = await sql<{ name: string; bound: string }>`
        select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
        from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'flow_reports'::regclass`.execute(executor);
      const days: number[] = [];
      let reports = 0;
      for (const { name, bound } of rows) {
        // FOR VALUES FROM ('<day>') TO ('<day + 1 day>'), as ensureDays made it.
        const [from, to] = [...bound.matchAll(/'?(-?\d+)'?/g)].map((m) => Number(m[1]));
        if (from === undefined || to === undefined || to > cutoff || name !== dayPartition(from)) continue;
        const counted = await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(
          executor,
        );
        reports += Number(counted.rows[0]?.n ?? 0);
        await sql`drop table ${sql.table(name)}`.execute(executor);
        days.push(from);
      }
      return { days, reports };
    },
  };
}
