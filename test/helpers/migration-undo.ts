import { migrationProvider } from '../../src/storage/migrations/index.ts';

/**
 * What each migration after 0007 added, as SQL that removes it again: tests that restore or open a
 * database "as an older release left it" take a migrated one back with `undoMigrationsFrom`. A
 * migration with no entry makes those tests fail, so a new one cannot be forgotten here. An empty list
 * is a migration that only rewrote data (or did nothing on that dialect).
 */
const UNDO: Readonly<Record<string, readonly string[]>> = {
  '0008-subscriber-count': [
    'DROP TRIGGER subscribers_count_insert',
    'DROP TRIGGER subscribers_count_delete',
    'DROP TABLE subscriber_count',
  ],
  '0009-subscriber-count-by-profile': [
    'DROP TRIGGER subscribers_count_by_profile_insert',
    'DROP TRIGGER subscribers_count_by_profile_delete',
    'DROP TRIGGER subscribers_count_by_profile_update',
    'DROP TABLE subscriber_count_by_profile',
  ],
  '0010-profile-ue-ipv6-pool': ['ALTER TABLE profiles DROP COLUMN ue_ipv6_pool'],
  '0011-redact-key-material': [],
  '0012-subscriber-log-level': ['ALTER TABLE subscriber_logs DROP COLUMN level'],
  '0013-n2-allowed-peers': ['ALTER TABLE operator DROP COLUMN n2_allowed_peers'],
  '0014-subscriber-msisdn': ['DROP INDEX subscribers_msisdn', 'ALTER TABLE subscribers DROP COLUMN msisdn'],
  '0015-radio-event-imsi': [
    'DROP INDEX radio_events_imsi_timestamp',
    'ALTER TABLE radio_events DROP COLUMN imsi',
  ],
  '0016-sms': ['DROP TABLE sms_messages', 'ALTER TABLE profiles DROP COLUMN sms_allowed'],
  // On PostgreSQL it partitions flow reports; test/storage/flow-report-partitions.test.ts undoes that.
  '0017-flow-report-partitions': [],
  '0018-amf-set-members': ['DROP TABLE amf_set_members'],
  '0019-ue-contexts': ['DROP TABLE ue_contexts'],
  '0021-subscriber-events': ['DROP TABLE subscriber_events'],
  // On SQLite destination_imsi stays nullable: older code never writes NULL there.
  '0020-smsc-link': [
    'DROP TABLE smsc_link',
    'DROP INDEX sms_messages_smsc_message_id',
    'ALTER TABLE sms_messages DROP COLUMN smsc_message_id',
  ],
  '0022-radio-event-radio': [
    'DROP INDEX radio_events_radio_timestamp',
    'ALTER TABLE radio_events DROP COLUMN radio',
  ],
  '0023-address-leases': ['DROP TABLE address_leases'],
  '0024-subscriber-views': ['DROP TABLE subscriber_views'],
  '0028-flow-report-window-id': [
    'DROP INDEX flow_reports_end_time_id_protocol_direction_action_source_port_destination_port',
    'CREATE INDEX flow_reports_end_time_protocol_direction_action_source_port_destination_port ON flow_reports (end_time, protocol, direction, action, source_port, destination_port)',
  ],
  '0029-address-lease-ue': ['ALTER TABLE address_leases DROP COLUMN supi'],
};

/**
 * The statements that take a database migrated to the latest back to before migration `first` (its
 * number, e.g. '0014'), newest first, ending with forgetting those migrations ran. Statements are
 * plain SQL both SQLite and PostgreSQL run, except the triggers of 0008 and 0009 (SQLite's form).
 */
export async function undoMigrationsFrom(first: string): Promise<string[]> {
  const names = (await migrationsFrom(first)).reverse();
  const statements = names.flatMap((name) => {
    const undo = UNDO[name];
    if (undo === undefined) throw new Error(`test/helpers/migration-undo.ts: no undo for migration ${name}`);
    return undo;
  });
  return [...statements, `DELETE FROM kysely_migration WHERE name >= '${first}'`];
}

/** `undoMigrationsFrom` as one SQLite script, for `database.exec`. */
export const undoMigrationsScript = async (first: string): Promise<string> =>
  `${(await undoMigrationsFrom(first)).join(';\n')};`;

/** The names of migration `first` (its number) and every later one, in the order they run. */
export async function migrationsFrom(first: string): Promise<string[]> {
  return Object.keys(await migrationProvider.getMigrations())
    .filter((name) => name >= first)
    .sort();
}
