import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { DataNetworksRepository } from '../data-networks/data-networks.repository.ts';
import type { PoliciesRepository } from '../policies/policies.repository.ts';
import type { ProfilesRepository } from '../profiles/profiles.repository.ts';
import type { SlicesRepository } from '../slices/slices.repository.ts';
import type { OperatorRepository } from './operator.repository.ts';
import { randomOperatorCode } from './operator.service.ts';

/** The usable network a first start creates (decisions section 2). */
const NETWORK_DEFAULTS = {
  operator: { mcc: '001', mnc: '01', supportedTacs: ['000001'] },
  dataNetwork: 'internet',
  slice: { name: 'default', sst: 1 },
  profile: {
    name: 'default',
    ueIpPool: '10.45.0.0/16',
    dns: '8.8.8.8',
    mtu: 1400,
    bitrateUplink: '1 Gbps',
    bitrateDownlink: '1 Gbps',
    var5qi: 9,
    priorityLevel: 90,
  },
  policy: { name: 'default', bitrateUplink: '1 Gbps', bitrateDownlink: '1 Gbps', var5qi: 9, arp: 1 },
} as const;

/**
 * Creates the default network once, on the first start of a database. The operator row is the marker:
 * it is inserted first, can never be deleted, and the rest is only created in the transaction that
 * inserted it. So the defaults appear exactly once, and an operator's later changes or deletions of them
 * are never undone by a restart. Also run after a restore, for a database from before these defaults.
 * `db` is the database, or a connection the caller holds (a restore): a transaction is opened on it,
 * unless it already is one. Returns whether this call created them.
 */
export async function seedNetworkDefaults(deps: {
  db: Executor;
  secretBox: SecretBox;
  operator: OperatorRepository;
  dataNetworks: DataNetworksRepository;
  slices: SlicesRepository;
  profiles: ProfilesRepository;
  policies: PoliciesRepository;
}): Promise<boolean> {
  const { db, secretBox } = deps;
  const defaults = NETWORK_DEFAULTS;
  // Sealed before the transaction: the transaction holds the only connection and does no other work.
  const opSealed = secretBox.seal(randomOperatorCode().toString('hex'));
  const seed = async (trx: Executor): Promise<boolean> => {
    const inserted = await deps.operator.insertIfAbsent(
      { ...defaults.operator, supportedTacs: [...defaults.operator.supportedTacs], opSealed },
      trx,
    );
    if (!inserted) return false;
    // Each default is created unless one of that name exists (a restored database may hold some).
    const dataNetworkId =
      (await deps.dataNetworks.findByName(defaults.dataNetwork, trx))?.id ??
      (await deps.dataNetworks.insert(defaults.dataNetwork, trx));
    const sliceId =
      (await deps.slices.findByName(defaults.slice.name, trx))?.id ??
      (await deps.slices.insert({ ...defaults.slice, sd: undefined }, trx));
    const profileId =
      (await deps.profiles.findByName(defaults.profile.name, trx))?.id ??
      (await deps.profiles.insert(defaults.profile, trx));
    if (!(await deps.policies.findByName(defaults.policy.name, trx))) {
      await deps.policies.insert({ ...defaults.policy, dataNetworkId, profileId, sliceId }, trx);
    }
    return true;
  };
  return db.isTransaction ? seed(db) : db.transaction().execute(seed);
}
