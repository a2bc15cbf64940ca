import { sql, type Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
// Location (beta): provisioned cell positions and positioning sessions. Sessions name their subscriber by
// SUPI without a foreign key: a session outlives its subscriber's deletion (it reads as failed).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cell_positions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rat', 'text', (c) => c.notNull().check(sql.raw("rat in ('nr', 'eutra')")))
    .addColumn('mcc', 'text', (c) => c.notNull())
    .addColumn('mnc', 'text', (c) => c.notNull())
    .addColumn('cell_identity', 'text', (c) => c.notNull())
    .addColumn('gnb_id', 'text')
    .addColumn('latitude', 'double precision', (c) =>
      c.notNull().check(sql.raw('latitude between -90 and 90')),
    )
    .addColumn('longitude', 'double precision', (c) =>
      c.notNull().check(sql.raw('longitude between -180 and 180')),
    )
    .addColumn('altitude', 'double precision')
    .addColumn('uncertainty_semi_major', 'double precision')
    .addColumn('uncertainty_semi_minor', 'double precision')
    .addColumn('orientation_major', 'integer')
    .addColumn('confidence', 'integer')
    .addColumn('source', 'text', (c) => c.notNull())
    // One position per cell: the CGI (RAT, PLMN, cell identity) is the key location looks cells up by.
    .addUniqueConstraint('cell_positions_cgi', ['rat', 'mcc', 'mnc', 'cell_identity'])
    .execute();

  await db.schema
    .createTable('positioning_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('supi', 'text', (c) => c.notNull())
    .addColumn('session_type', 'integer', (c) => c.notNull().check(sql.raw('session_type between 0 and 2')))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('mode', 'text')
    .addColumn('status', 'integer', (c) => c.notNull().check(sql.raw('status between 0 and 3')))
    .addColumn('interval_seconds', 'integer')
    .addColumn('report_count', 'integer')
    .addColumn('reports', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_report_at', 'bigint')
    .addColumn('last_result', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The list by subscriber, newest first (ids are UUIDv7, so they sort by creation time).
  await db.schema
    .createIndex('positioning_sessions_supi_id')
    .on('positioning_sessions')
    .columns(['supi', 'id'])
    .execute();
  // Active sessions at start, and ended ones past their retention.
  await db.schema
    .createIndex('positioning_sessions_status_updated_at')
    .on('positioning_sessions')
    .columns(['status', 'updated_at'])
    .execute();
}
