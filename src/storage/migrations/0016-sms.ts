import { sql, type Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// SMS over NAS (docs/sms.md). A profile says whether its subscribers may use SMS: 1 (every profile
// before this migration, and the default) or 0. `sms_messages` holds each short message for a
// subscriber of this network from the moment the SMSF takes it (stored before RP-ACK, so a restart loses
// none) to its delivery, failure or expiry. Subscribers are named by IMSI without a foreign key, as the
// records do: a message keeps describing what happened after its subscriber is gone. The SMSF reads a
// recipient's queued messages oldest first (`destination_imsi, status, id`); lists read newest first by
// `created_at`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('profiles')
    .addColumn('sms_allowed', 'integer', (c) =>
      c.notNull().defaultTo(1).check(sql.raw('sms_allowed in (0, 1)')),
    )
    .execute();

  await db.schema
    .createTable('sms_messages')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('originator_imsi', 'text')
    .addColumn('originator', 'text', (c) => c.notNull())
    .addColumn('originator_type', 'integer', (c) =>
      c.notNull().check(sql.raw('originator_type between 0 and 7')),
    )
    .addColumn('destination_imsi', 'text', (c) => c.notNull())
    .addColumn('destination_msisdn', 'text')
    .addColumn('message_reference', 'integer', (c) =>
      c.notNull().check(sql.raw('message_reference between 0 and 255')),
    )
    .addColumn('protocol_identifier', 'integer', (c) =>
      c.notNull().check(sql.raw('protocol_identifier between 0 and 255')),
    )
    .addColumn('data_coding_scheme', 'integer', (c) =>
      c.notNull().check(sql.raw('data_coding_scheme between 0 and 255')),
    )
    .addColumn('user_data_header', 'integer', (c) => c.notNull().check(sql.raw('user_data_header in (0, 1)')))
    .addColumn('user_data_length', 'integer', (c) =>
      c.notNull().check(sql.raw('user_data_length between 0 and 255')),
    )
    .addColumn('user_data', 'blob', (c) => c.notNull())
    .addColumn('status_report_requested', 'integer', (c) =>
      c.notNull().check(sql.raw('status_report_requested in (0, 1)')),
    )
    .addColumn('valid_until', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql.raw(`status in ('queued', 'delivered', 'failed', 'expired')`)),
    )
    .addColumn('cause', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('sms_messages_destination_status')
    .on('sms_messages')
    .columns(['destination_imsi', 'status', 'id'])
    .execute();
  await db.schema.createIndex('sms_messages_created_at').on('sms_messages').column('created_at').execute();
}
