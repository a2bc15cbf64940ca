import type { SubscriptionDataPort } from '../../network/ports/subscription-data.ts';
import { maybeSqliteFileOf, withConnection, type Db } from '../database.ts';
import { preparedQuery } from './prepared-query.ts';

/**
 * The subscription data port: the profile and its authorising policies (a policy of the profile, or of
 * no profile), read by two prepared statements while holding the connection that every configuration
 * write goes through, so both see one state. No transaction: it takes no write lock, so it neither waits
 * for the records writer nor holds it up. On PostgreSQL the two reads run in one (read) transaction.
 */
export function createSubscriptionData(deps: { db: Db }): SubscriptionDataPort {
  const { db } = deps;
  const findProfile = preparedQuery(db, ['imsi'], ({ imsi }: { imsi: string }) =>
    db
      .selectFrom('subscribers')
      .innerJoin('profiles', 'profiles.id', 'subscribers.profile_id')
      .select([
        'profiles.id as profile_id',
        'profiles.name',
        'profiles.ue_ip_pool',
        'profiles.ue_ipv6_pool',
        'profiles.dns',
        'profiles.mtu',
        'profiles.bitrate_uplink',
        'profiles.bitrate_downlink',
        'profiles.var5qi',
        'profiles.priority_level',
      ])
      .where('subscribers.imsi', '=', imsi),
  );
  const findAuthorising = preparedQuery(db, ['profileId'], ({ profileId }: { profileId: number }) =>
    db
      .selectFrom('policies')
      .innerJoin('data_networks', 'data_networks.id', 'policies.data_network_id')
      .leftJoin('slices', 'slices.id', 'policies.slice_id')
      .select([
        'policies.name',
        'policies.bitrate_uplink',
        'policies.bitrate_downlink',
        'policies.var5qi',
        'policies.arp',
        'data_networks.name as data_network_name',
        'slices.sst',
        'slices.sd',
      ])
      .where((eb) =>
        eb.or([eb('policies.profile_id', '=', profileId), eb('policies.profile_id', 'is', null)]),
      )
      .orderBy('policies.name'),
  );

  return {
    async getSubscriptionData(imsi) {
      const read = maybeSqliteFileOf(db)
        ? await withConnection(db, () => {
            const profile = findProfile.all({ imsi })[0];
            return (
              profile && { profile, authorising: findAuthorising.all({ profileId: profile.profile_id }) }
            );
          })
        : // PostgreSQL: both reads in one transaction, so they too see one state.
          await db.transaction().execute(async (trx) => {
            const profile = (await findProfile.query(trx, { imsi }))[0];
            return (
              profile && {
                profile,
                authorising: await findAuthorising.query(trx, { profileId: profile.profile_id }),
              }
            );
          });
      if (read === undefined) return undefined;
      const { profile, authorising } = read;
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
        authorisedSessions: authorising.map((policy) => ({
          policy: policy.name,
          dataNetwork: policy.data_network_name,
          slice:
            policy.sst === null
              ? undefined
              : { sst: policy.sst, ...(policy.sd === null ? {} : { sd: policy.sd }) },
          ambrUplink: policy.bitrate_uplink,
          ambrDownlink: policy.bitrate_downlink,
          var5qi: policy.var5qi,
          arp: policy.arp,
        })),
      };
    },
  };
}
