import type { Executor } from '../../storage/transaction.ts';
import { SHOWN_HOLDERS } from '../references.ts';

export interface Policy {
  id: number;
  name: string;
  bitrateUplink: string;
  bitrateDownlink: string;
  var5qi: number;
  arp: number;
  dataNetworkName: string;
  profileName: string | null;
  sliceName: string | null;
}

/** The stored form: references as ids. */
export interface PolicyValues {
  name: string;
  bitrateUplink: string;
  bitrateDownlink: string;
  var5qi: number;
  arp: number;
  dataNetworkId: number;
  profileId: number | null;
  sliceId: number | null;
}

type PolicyReference = 'data_network_id' | 'profile_id' | 'slice_id';

export function createPoliciesRepository(db: Executor) {
  function selectPolicies(executor: Executor) {
    return executor
      .selectFrom('policies')
      .innerJoin('data_networks', 'data_networks.id', 'policies.data_network_id')
      .leftJoin('profiles', 'profiles.id', 'policies.profile_id')
      .leftJoin('slices', 'slices.id', 'policies.slice_id')
      .select([
        'policies.id',
        'policies.name',
        'policies.bitrate_uplink',
        'policies.bitrate_downlink',
        'policies.var5qi',
        'policies.arp',
        'data_networks.name as data_network_name',
        'profiles.name as profile_name',
        'slices.name as slice_name',
        'slices.sst',
        'slices.sd',
      ]);
  }

  type Row = Awaited<ReturnType<ReturnType<typeof selectPolicies>['executeTakeFirstOrThrow']>>;
  const toPolicy = (row: Row): Policy => ({
    id: row.id,
    name: row.name,
    bitrateUplink: row.bitrate_uplink,
    bitrateDownlink: row.bitrate_downlink,
    var5qi: row.var5qi,
    arp: row.arp,
    dataNetworkName: row.data_network_name,
    profileName: row.profile_name,
    sliceName: row.slice_name,
  });

  const toColumns = (values: Omit<PolicyValues, 'name'>) => ({
    bitrate_uplink: values.bitrateUplink,
    bitrate_downlink: values.bitrateDownlink,
    var5qi: values.var5qi,
    arp: values.arp,
    data_network_id: values.dataNetworkId,
    profile_id: values.profileId,
    slice_id: values.sliceId,
  });

  return {
    async list(limit: number, offset: number): Promise<Policy[]> {
      const rows = await selectPolicies(db).orderBy('policies.name').limit(limit).offset(offset).execute();
      return rows.map(toPolicy);
    },

    /**
     * The policies that authorise a profile (theirs, or any profile), by name, with their slice's
     * S-NSSAI (`sst`/`sd` null when the policy allows any slice).
     */
    async authorising(profileId: number, executor: Executor = db) {
      return selectPolicies(executor)
        .where((eb) =>
          eb.or([eb('policies.profile_id', '=', profileId), eb('policies.profile_id', 'is', null)]),
        )
        .orderBy('policies.name')
        .execute();
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('policies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async findByName(name: string, executor: Executor = db): Promise<Policy | undefined> {
      const row = await selectPolicies(executor).where('policies.name', '=', name).executeTakeFirst();
      return row && toPolicy(row);
    },

    async insert(values: PolicyValues, executor: Executor = db): Promise<void> {
      await executor
        .insertInto('policies')
        .values({ name: values.name, ...toColumns(values) })
        .execute();
    },

    async update(id: number, values: Omit<PolicyValues, 'name'>, executor: Executor = db): Promise<void> {
      await executor.updateTable('policies').set(toColumns(values)).where('id', '=', id).execute();
    },

    async delete(id: number, executor: Executor = db): Promise<void> {
      await executor.deleteFrom('policies').where('id', '=', id).execute();
    },

    /** The policies that reference a data network, profile or slice: a few names and the count. */
    async referencing(
      column: PolicyReference,
      id: number,
      executor: Executor = db,
    ): Promise<{ names: string[]; total: number }> {
      const rows = await executor
        .selectFrom('policies')
        .select('name')
        .where(column, '=', id)
        .orderBy('name')
        .limit(SHOWN_HOLDERS)
        .execute();
      const count = await executor
        .selectFrom('policies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(column, '=', id)
        .executeTakeFirstOrThrow();
      return { names: rows.map((row) => row.name), total: Number(count.n) };
    },
  };
}

export type PoliciesRepository = ReturnType<typeof createPoliciesRepository>;
