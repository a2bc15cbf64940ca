import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from './index.ts';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The SMSC link (docs/sms.md, "SMSC link"). A device's message to a number outside the network is stored
// like any other before its RP-ACK, but has no recipient IMSI: `sms_messages.destination_imsi` becomes
// nullable (PostgreSQL drops the constraint; SQLite cannot, so the table is built again with its rows
// and ids). `smsc_message_id` is the message_id the SMSC gave in submit_sm_resp, which its delivery
// receipt names; NULL until then. `smsc_link` holds the one link configuration (id 1), its password
// sealed with the service's secret box.
export async function up(db: Kysely<unknown>, dialect: SqlDialect = 'sqlite'): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table sms_messages alter column destination_imsi drop not null`.execute(db);
    await db.schema.alterTable('sms_messages').addColumn('smsc_message_id', 'text').execute();
  } else {
    await rebuildSmsMessagesOnSqlite(db);
  }
  await db.schema
    .createIndex('sms_messages_smsc_message_id')
    .on('sms_messages')
    .column('smsc_message_id')
    .execute();

  await db.schema
    .createTable('smsc_link')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql.raw('id = 1')))
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull().check(sql.raw('port between 1 and 65535')))
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('password_sealed', 'text', (c) => c.notNull())
    .addColumn('system_type', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().check(sql.raw('enabled in (0, 1)')))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

/** SQLite's way to drop a NOT NULL (sqlite.org/lang_altertable.html, "other kinds of table schema changes"). */
async function rebuildSmsMessagesOnSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`create table sms_messages_new (
    id integer primary key autoincrement,
    created_at bigint not null,
    updated_at bigint not null,
    originator_imsi text,
    originator text not null,
    originator_type integer not null check (originator_type between 0 and 7),
    destination_imsi text,
    destination_msisdn text,
    message_reference integer not null check (message_reference between 0 and 255),
    protocol_identifier integer not null check (protocol_identifier between 0 and 255),
    data_coding_scheme integer not null check (data_coding_scheme between 0 and 255),
    user_data_header integer not null check (user_data_header in (0, 1)),
    user_data_length integer not null check (user_data_length between 0 and 255),
    user_data blob not null,
    status_report_requested integer not null check (status_report_requested in (0, 1)),
    valid_until bigint not null,
    status text not null check (status in ('queued', 'delivered', 'failed', 'expired')),
    cause text,
    attempts integer not null default 0,
    smsc_message_id text
  )`.execute(db);
  const columns = sql.raw(
    'id, created_at, updated_at, originator_imsi, originator, originator_type, destination_imsi, ' +
      'destination_msisdn, message_reference, protocol_identifier, data_coding_scheme, user_data_header, ' +
      'user_data_length, user_data, status_report_requested, valid_until, status, cause, attempts',
  );
  await sql`insert into sms_messages_new (${columns}) select ${columns} from sms_messages`.execute(db);
  await sql`drop table sms_messages`.execute(db);
  await sql`alter table sms_messages_new rename to sms_messages`.execute(db);
  await db.schema
    .createIndex('sms_messages_destination_status')
    .on('sms_messages')
    .columns(['destination_imsi', 'status', 'id'])
    .execute();
  await db.schema.createIndex('sms_messages_created_at').on('sms_messages').column('created_at').execute();
}
