import type { SubscriptionDataPort } from '../../network/ports/subscription-data.ts';
import type { PoliciesRepository } from '../../resources/policies/policies.repository.ts';
import type { SubscribersRepository } from '../../resources/subscribers/subscribers.repository.ts';
import type { Db } from '../../storage/database.ts';

/** The subscription data port: the profile and its authorising policies, read in one transaction. */
export function createSubscriptionData(deps: {
  db: Db;
  subscribers: Pick<SubscribersRepository, 'findSubscription'>;
  policies: Pick<PoliciesRepository, 'authorising'>;
}): SubscriptionDataPort {
  const { db, subscribers, policies } = deps;
  return {
    getSubscriptionData: (imsi) =>
      db.transaction().execute(async (trx) => {
        const profile = await subscribers.findSubscription(imsi, trx);
        if (!profile) return undefined;
        const authorising = await policies.authorising(profile.profile_id, trx);
        return {
          imsi,
          profile: {
            name: profile.name,
            ueIpPool: profile.ue_ip_pool,
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
      }),
  };
}
