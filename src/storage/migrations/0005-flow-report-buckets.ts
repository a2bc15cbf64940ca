import { sql, type Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// Flow reports arrive by the tens of thousands a second. An index keyed by subscriber or address takes
// each report at a random place of a large B-tree, so every report dirtied a page of each such index,
// and a transaction wrote thousands of 4 KiB pages: ingestion was bound by that write volume near
// 15,000 reports a second. These indexes now lead with `bucket`, the report's id divided by 65,536:
// new reports land in the newest bucket's small part of each index, which stays in the cache and is
// written once per transaction. A filter by subscriber or address seeks its key in each bucket whose
// reports can fall in the window; `flow_report_buckets` keeps every bucket's end-time span for that.
// The plain end_time index goes too: the window index starts with end_time and serves the same.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('flow_reports')
    .addColumn('bucket', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update flow_reports set bucket = id / 65536`.execute(db);
  for (const name of [
    'flow_reports_end_time',
    'flow_reports_subscriber_id_end_time',
    'flow_reports_source_ip_end_time_source_port',
    'flow_reports_destination_ip_end_time_direction_destination_port',
  ]) {
    await db.schema.dropIndex(name).execute();
  }
  await index(db, ['bucket', 'subscriber_id', 'end_time']);
  await index(db, ['bucket', 'source_ip', 'end_time', 'source_port']);
  await index(db, ['bucket', 'destination_ip', 'end_time', 'direction', 'destination_port']);

  await db.schema
    .createTable('flow_report_buckets')
    .addColumn('bucket', 'bigint', (c) => c.primaryKey())
    .addColumn('first_end_time', 'bigint', (c) => c.notNull())
    .addColumn('last_end_time', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into flow_report_buckets (bucket, first_end_time, last_end_time)
    select bucket, min(end_time), max(end_time) from flow_reports group by bucket`.execute(db);
}

async function index(db: Kysely<unknown>, columns: string[]): Promise<void> {
  await db.schema
    .createIndex(`flow_reports_${columns.join('_')}`)
    .on('flow_reports')
    .columns(columns)
    .execute();
}
