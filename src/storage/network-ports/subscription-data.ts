import type { SubscriptionDataPort } from '../../network/ports/subscription-data.ts';
import { maybeSqliteFileOf, withConnection, type Db } from '../database.ts';
import { preparedQuery } from './prepared-query.ts';

/**
 * The subscription data port: the profile and its authorising policies (a policy of the profile, or of
 * no profile), read by one prepared statement, so both come from one state of the database (one
 * statement's snapshot on PostgreSQL, one read on SQLite's connection) with no transaction: it takes no
 * lock, so it neither waits for the records writer nor holds up a writer, and on PostgreSQL it is one
 * round trip that cannot fail for a conflict with the SQN writes on the same subscriber rows.
 */
export function createSubscriptionData(deps: { db: Db }): SubscriptionDataPort {
  const { db } = deps;
  // One row per authorising policy (ordered by name), the profile's columns on each; one row with no
  // policy columns when none authorises it.
  const findSubscription = preparedQuery(db, ['imsi'], ({ imsi }: { imsi: string }) =>
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
      ])
      .where('subscribers.imsi', '=', imsi)
      .orderBy('policies.name'),
  );

  return {
    async getSubscriptionData(imsi) {
      const rows = maybeSqliteFileOf(db)
        ? await withConnection(db, () => findSubscription.all({ imsi }))
        : await findSubscription.query(db, { imsi });
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
                    row.sst === null
                      ? undefined
                      : { sst: row.sst, ...(row.sd === null ? {} : { sd: row.sd }) },
                  ambrUplink: row.policy_bitrate_uplink,
                  ambrDownlink: row.policy_bitrate_downlink,
                  var5qi: row.policy_var5qi,
                  arp: row.policy_arp,
                },
              ],
        ),
      };
    },
  };
}
