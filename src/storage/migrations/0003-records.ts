import { sql, type Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// Records reference subscribers by IMSI and radios by id string, with no foreign keys: a record keeps
// describing what happened after the subscriber or radio is gone. Every list filter has an index whose
// last column is the record's time, so a filtered page is read newest first straight from the index
// (SQLite appends the rowid, which orders ties by id).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('radio_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('message_type', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull().check(oneOf('direction', ['inbound', 'outbound'])))
    .addColumn('raw', 'blob', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'radio_events', ['timestamp']);
  await index(db, 'radio_events', ['protocol', 'timestamp']);
  await index(db, 'radio_events', ['message_type', 'timestamp']);
  await index(db, 'radio_events', ['direction', 'timestamp']);

  await db.schema
    .createTable('subscriber_logs')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('imsi', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull().check(oneOf('direction', ['inbound', 'outbound'])))
    .addColumn('raw', 'blob', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'subscriber_logs', ['timestamp']);
  await index(db, 'subscriber_logs', ['imsi', 'timestamp']);
  await index(db, 'subscriber_logs', ['event', 'timestamp']);
  await index(db, 'subscriber_logs', ['direction', 'timestamp']);

  await db.schema
    .createTable('radio_logs')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('ran_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull().check(oneOf('direction', ['inbound', 'outbound'])))
    .addColumn('raw', 'blob', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'radio_logs', ['timestamp']);
  await index(db, 'radio_logs', ['ran_id', 'timestamp']);
  await index(db, 'radio_logs', ['event', 'timestamp']);
  await index(db, 'radio_logs', ['direction', 'timestamp']);

  await db.schema
    .createTable('flow_reports')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('subscriber_id', 'text', (c) => c.notNull())
    .addColumn('source_ip', 'text', (c) => c.notNull())
    .addColumn('destination_ip', 'text', (c) => c.notNull())
    .addColumn('source_port', 'integer', (c) => c.notNull())
    .addColumn('destination_port', 'integer', (c) => c.notNull())
    .addColumn('protocol', 'integer', (c) => c.notNull())
    .addColumn('packets', 'bigint', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('start_time', 'bigint', (c) => c.notNull())
    .addColumn('end_time', 'bigint', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull().check(oneOf('direction', ['uplink', 'downlink'])))
    .addColumn('action', 'text', (c) => c.notNull().check(oneOf('action', ['allow', 'drop'])))
    .execute();
  // Flow reports are selected and retained by end_time. They arrive by the tens of thousands a second,
  // and each index keyed by something other than time takes a random insert per report into a large
  // B-tree, so only the selective filters (subscriber, addresses, protocol) get such an index. The
  // others (direction, action, ports) ride in a window index that grows at its end like the table: a
  // page or count filtered by them reads the window from that index and never visits the table.
  const windowed = ['direction', 'action', 'source_port', 'destination_port'];
  await index(db, 'flow_reports', ['end_time']);
  await index(db, 'flow_reports', ['end_time', 'protocol', ...windowed]);
  await index(db, 'flow_reports', ['subscriber_id', 'end_time']);
  await index(db, 'flow_reports', ['source_ip', 'end_time', 'source_port']);
  // The stats read these two in order of their first column and count without sorting; they stay narrow
  // because the unfiltered stats read all of both over a week of reports.
  await index(db, 'flow_reports', ['destination_ip', 'end_time', 'direction', 'destination_port']);
  await index(db, 'flow_reports', ['protocol', 'end_time']);

  // Daily counts of flow reports, kept in the same transactions as the reports they count (insert,
  // retention, clear): the default list's total and the unfiltered stats read these few rows instead
  // of counting millions of reports. Only uplink destinations are counted (the stats name those).
  await db.schema
    .createTable('flow_report_daily_protocols')
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('protocol', 'integer', (c) => c.notNull())
    .addColumn('reports', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('flow_report_daily_protocols_pk', ['day', 'protocol'])
    .execute();
  await db.schema
    .createTable('flow_report_daily_uplink_destinations')
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('destination_ip', 'text', (c) => c.notNull())
    .addColumn('reports', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('flow_report_daily_uplink_destinations_pk', ['day', 'destination_ip'])
    .execute();

  await db.schema
    .createTable('subscriber_usage')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('imsi', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('uplink_bytes', 'bigint', (c) => c.notNull())
    .addColumn('downlink_bytes', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('subscriber_usage_imsi_day', ['imsi', 'day'])
    .execute();
  // Sums by day read the counters from the index, without visiting the table.
  await index(db, 'subscriber_usage', ['day', 'imsi', 'uplink_bytes', 'downlink_bytes']);
}

async function index(db: Kysely<unknown>, table: string, columns: string[]): Promise<void> {
  await db.schema
    .createIndex(`${table}_${columns.join('_')}`)
    .on(table)
    .columns(columns)
    .execute();
}

function oneOf(column: string, values: string[]) {
  return sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`);
}
