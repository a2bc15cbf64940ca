import { sql } from 'kysely';
import type { SubscriptionData, SubscriptionDataPort } from '../../network/ports/subscription-data.ts';
import { maybeSqliteFileOf, withConnection, type Db } from '../database.ts';
import { preparedQuery } from './prepared-query.ts';
import { createTurnBatch } from './turn-batch.ts';

/**
 * The subscription data port: the profile and its authorising policies (a policy of the profile, or of
 * no profile), read by one prepared statement, so both come from one state of the database (one
 * statement's snapshot on PostgreSQL, one read on SQLite's connection) with no transaction: it takes no
 * lock, so it neither waits for the records writer nor holds up a writer, and on PostgreSQL it is one
 * round trip that cannot fail for a conflict with the SQN writes on the same subscriber rows. On
 * PostgreSQL the reads asked for in one turn of the event loop are one statement (`imsi = any(...)`):
 * one round trip for a burst of registrations, each subscriber's rows from that statement's snapshot.
 */
export function createSubscriptionData(deps: { db: Db }): SubscriptionDataPort {
  const { db } = deps;
  // One row per authorising policy (ordered by name), the profile's columns on each; one row with no
  // policy columns when none authorises it.
  const subscriptions = () =>
    db
      .selectFrom('subscribers')
      .innerJoin('profiles', 'profiles.id', 'subscribers.profile_id')
      .leftJoin('policies', (join) =>
        join.on((eb) =>
          eb.or([
            eb('policies.profile_id', '=', eb.ref('profiles.id')),
            eb('policies.profile_id', 'is', null),
          ]),
        ),
      )
      .leftJoin('data_networks', 'data_networks.id', 'policies.data_network_id')
      .leftJoin('slices', 'slices.id', 'policies.slice_id')
      .select([
        'subscribers.imsi',
        'profiles.name',
        'profiles.ue_ip_pool',
        'profiles.ue_ipv6_pool',
        'profiles.dns',
        'profiles.mtu',
        'profiles.bitrate_uplink',
        'profiles.bitrate_downlink',
        'profiles.var5qi',
        'profiles.priority_level',
        'policies.name as policy_name',
        'policies.bitrate_uplink as policy_bitrate_uplink',
        'policies.bitrate_downlink as policy_bitrate_downlink',
        'policies.var5qi as policy_var5qi',
        'policies.arp as policy_arp',
        'data_networks.name as data_network_name',
        'slices.sst',
        'slices.sd',
      ]);
  const findSubscription = preparedQuery(db, ['imsi'], ({ imsi }: { imsi: string }) =>
    subscriptions().where('subscribers.imsi', '=', imsi).orderBy('policies.name'),
  );
  const findSubscriptions = preparedQuery(db, ['imsis'], ({ imsis }: { imsis: string[] }) =>
    subscriptions()
      .where(sql<boolean>`subscribers.imsi = any(${imsis}::text[])`)
      .orderBy('subscribers.imsi')
      .orderBy('policies.name'),
  );
  type Row = Awaited<ReturnType<typeof findSubscription.query>>[number];

  /** PostgreSQL: the reads of one turn in one statement, each subscriber's rows handed to its reader. */
  const readOnPostgres = createTurnBatch(async (imsis: readonly string[]) => {
    const rows = await findSubscriptions.query(db, { imsis: [...new Set(imsis)] });
    const bySubscriber = new Map<string, Row[]>();
    for (const row of rows) {
      const mine = bySubscriber.get(row.imsi);
      if (mine === undefined) bySubscriber.set(row.imsi, [row]);
      else mine.push(row);
    }
    return imsis.map((imsi) => subscriptionOf(imsi, bySubscriber.get(imsi) ?? []));
  });

  function subscriptionOf(imsi: string, rows: readonly Row[]): SubscriptionData | undefined {
    const profile = rows[0];
    if (profile === undefined) return undefined;
    return {
      imsi,
      profile: {
        name: profile.name,
        ueIpPool: profile.ue_ip_pool,
        ...(profile.ue_ipv6_pool === null ? {} : { ueIpv6Pool: profile.ue_ipv6_pool }),
        dns: profile.dns,
        mtu: profile.mtu,
        ambrUplink: profile.bitrate_uplink,
        ambrDownlink: profile.bitrate_downlink,
        var5qi: profile.var5qi,
        priorityLevel: profile.priority_level,
      },
      authorisedSessions: rows.flatMap((row) =>
        row.policy_name === null ||
        row.data_network_name === null ||
        row.policy_bitrate_uplink === null ||
        row.policy_bitrate_downlink === null ||
        row.policy_var5qi === null ||
        row.policy_arp === null
          ? []
          : [
              {
                policy: row.policy_name,
                dataNetwork: row.data_network_name,
                slice:
                  row.sst === null ? undefined : { sst: row.sst, ...(row.sd === null ? {} : { sd: row.sd }) },
                ambrUplink: row.policy_bitrate_uplink,
                ambrDownlink: row.policy_bitrate_downlink,
                var5qi: row.policy_var5qi,
                arp: row.policy_arp,
              },
            ],
      ),
    };
  }

  return {
    async getSubscriptionData(imsi) {
      if (!maybeSqliteFileOf(db)) return readOnPostgres(imsi);
      return subscriptionOf(imsi, await withConnection(db, () => findSubscription.all({ imsi })));
    },
  };
}
