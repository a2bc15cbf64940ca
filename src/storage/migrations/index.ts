import type { Kysely, Migration, MigrationProvider } from 'kysely';
import * as foundation from './0001-foundation.ts';
import * as networkConfiguration from './0002-network-configuration.ts';
import * as records from './0003-records.ts';
import * as location from './0004-location.ts';
import * as flowReportBuckets from './0005-flow-report-buckets.ts';
import * as loginSessions from './0006-login-sessions.ts';
import * as networkSecurity from './0007-network-security.ts';
import * as subscriberCount from './0008-subscriber-count.ts';
import * as subscriberCountByProfile from './0009-subscriber-count-by-profile.ts';
import * as profileUeIpv6Pool from './0010-profile-ue-ipv6-pool.ts';
import * as redactKeyMaterial from './0011-redact-key-material.ts';
import * as subscriberLogLevel from './0012-subscriber-log-level.ts';
import * as n2AllowedPeers from './0013-n2-allowed-peers.ts';
import * as subscriberMsisdn from './0014-subscriber-msisdn.ts';
import * as radioEventImsi from './0015-radio-event-imsi.ts';
import * as sms from './0016-sms.ts';
import * as flowReportPartitions from './0017-flow-report-partitions.ts';
import * as amfSetMembers from './0018-amf-set-members.ts';
import * as ueContexts from './0019-ue-contexts.ts';
import * as smscLink from './0020-smsc-link.ts';
import * as subscriberEvents from './0021-subscriber-events.ts';
import * as radioEventRadio from './0022-radio-event-radio.ts';
import * as addressLeases from './0023-address-leases.ts';
import * as subscriberViews from './0024-subscriber-views.ts';
import * as flowReportWindowId from './0028-flow-report-window-id.ts';
import * as addressLeaseUe from './0029-address-lease-ue.ts';

/** Every migration in order. Names sort in the order they must run; files are never edited once shipped. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-network-configuration': networkConfiguration,
  '0003-records': records,
  '0004-location': location,
  '0005-flow-report-buckets': flowReportBuckets,
  '0006-login-sessions': loginSessions,
  '0007-network-security': networkSecurity,
  '0008-subscriber-count': subscriberCount,
  '0009-subscriber-count-by-profile': subscriberCountByProfile,
  '0010-profile-ue-ipv6-pool': profileUeIpv6Pool,
  '0011-redact-key-material': redactKeyMaterial,
  '0012-subscriber-log-level': subscriberLogLevel,
  '0013-n2-allowed-peers': n2AllowedPeers,
  '0014-subscriber-msisdn': subscriberMsisdn,
  '0015-radio-event-imsi': radioEventImsi,
  '0016-sms': sms,
  '0017-flow-report-partitions': flowReportPartitions,
  '0018-amf-set-members': amfSetMembers,
  '0019-ue-contexts': ueContexts,
  '0020-smsc-link': smscLink,
  '0021-subscriber-events': subscriberEvents,
  '0022-radio-event-radio': radioEventRadio,
  '0023-address-leases': addressLeases,
  '0024-subscriber-views': subscriberViews,
  '0028-flow-report-window-id': flowReportWindowId,
  '0029-address-lease-ue': addressLeaseUe,
};

/**
 * Migrations that overwrite what must not survive (key material): the database is vacuumed once they
 * have committed, so that no page keeps the old bytes in its unused space for a backup to copy.
 */
export const VACUUM_AFTER: ReadonlySet<string> = new Set(['0011-redact-key-material']);

/** Which SQL the database speaks; only the few migrations that cannot say it in the schema builder ask. */
export type SqlDialect = 'sqlite' | 'postgres';

/** The migrations as run on `dialect`: each `up` is told the dialect as its second argument. */
export function migrationProviderFor(dialect: SqlDialect): MigrationProvider {
  const told = Object.fromEntries(
    Object.entries(MIGRATIONS).map(([name, migration]) => [
      name,
      { up: (db: Kysely<unknown>) => (migration.up as DialectUp)(db, dialect) },
    ]),
  );
  return { getMigrations: () => Promise.resolve(told) };
}

type DialectUp = (db: Kysely<unknown>, dialect: SqlDialect) => Promise<void>;

export const migrationProvider: MigrationProvider = migrationProviderFor('sqlite');
