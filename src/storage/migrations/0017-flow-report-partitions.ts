import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from './index.ts';

// Frozen: schema changes go into a new migration file, never into this one.
//
// PostgreSQL: flow reports in one partition per UTC day of `end_time` (declarative range partitioning),
// so retention drops a day's partition instead of deleting its rows one by one and leaving the table
// and its five indexes to vacuum. The primary key takes `end_time` beside `id` (a partitioned table's
// unique keys hold its partition key); ids stay unique, given by the one identity. The partitions are
// made as reports arrive (flow-report-partitions.ts). SQLite keeps one table and deletes rows.
export async function up(db: Kysely<unknown>, dialect: SqlDialect = 'sqlite'): Promise<void> {
  if (dialect !== 'postgres') return;
  const { rows: indexes } = await sql<{ definition: string }>`
    select indexdef as definition from pg_indexes
    where schemaname = current_schema() and tablename = 'flow_reports'
      and indexname <> 'flow_reports_pkey' order by indexname`.execute(db);
  await sql`create table flow_reports_by_day
    (like flow_reports including defaults including constraints including identity)
    partition by range (end_time)`.execute(db);
  await sql`alter table flow_reports_by_day add constraint flow_reports_by_day_pkey primary key (id, end_time)`.execute(
    db,
  );
  const { rows: days } = await sql<{ day: number }>`
    select distinct end_time - end_time % 86400000 as day from flow_reports order by 1`.execute(db);
  for (const { day } of days) {
    await sql
      .raw(
        `create table ${dayPartition(day)} partition of flow_reports_by_day for values from (${day}) to (${day + 86_400_000})`,
      )
      .execute(db);
  }
  await sql`insert into flow_reports_by_day select * from flow_reports`.execute(db);
  await sql`select setval(pg_get_serial_sequence('flow_reports_by_day', 'id'),
    coalesce((select max(id) from flow_reports), 0) + 1, false)`.execute(db);
  await sql`drop table flow_reports`.execute(db);
  await sql`alter table flow_reports_by_day rename to flow_reports`.execute(db);
  await sql`alter table flow_reports rename constraint flow_reports_by_day_pkey to flow_reports_pkey`.execute(
    db,
  );
  // The same indexes, on the partitioned table (each partition gets its own).
  for (const { definition } of indexes) await sql.raw(definition).execute(db);
}

/** The partition of the UTC day starting at `day` (Unix ms): `flow_reports_20261206`. */
export function dayPartition(day: number): string {
  return `flow_reports_${new Date(day).toISOString().slice(0, 10).replaceAll('-', '')}`;
}
