import type { Executor } from '../../storage/transaction.ts';

export interface Profile {
  id: number;
  name: string;
  ueIpPool: string;
  /** IPv6 prefix each session takes a /64 from (network.md 6); absent: the profile serves IPv4 only. */
  ueIpv6Pool?: string;
  dns: string;
  mtu: number;
  bitrateUplink: string;
  bitrateDownlink: string;
  var5qi: number;
  priorityLevel: number;
  /** SMS over NAS for the profile's subscribers (docs/sms.md); read always, absent on input: true. */
  smsAllowed?: boolean;
}

const COLUMNS = [
  'id',
  'name',
  'ue_ip_pool',
  'ue_ipv6_pool',
  'dns',
  'mtu',
  'bitrate_uplink',
  'bitrate_downlink',
  'var5qi',
  'priority_level',
  'sms_allowed',
] as const;

interface Row {
  id: number;
  name: string;
  ue_ip_pool: string;
  ue_ipv6_pool: string | null;
  dns: string;
  mtu: number;
  bitrate_uplink: string;
  bitrate_downlink: string;
  var5qi: number;
  priority_level: number;
  sms_allowed: number;
}

const toProfile = (row: Row): Profile => ({
  id: row.id,
  name: row.name,
  ueIpPool: row.ue_ip_pool,
  ...(row.ue_ipv6_pool === null ? {} : { ueIpv6Pool: row.ue_ipv6_pool }),
  dns: row.dns,
  mtu: row.mtu,
  bitrateUplink: row.bitrate_uplink,
  bitrateDownlink: row.bitrate_downlink,
  var5qi: row.var5qi,
  priorityLevel: row.priority_level,
  smsAllowed: row.sms_allowed === 1,
});

const toColumns = (profile: Omit<Profile, 'id' | 'name'>) => ({
  ue_ip_pool: profile.ueIpPool,
  // An update replaces the profile: no pool given clears the column.
  ue_ipv6_pool: profile.ueIpv6Pool ?? null,
  dns: profile.dns,
  mtu: profile.mtu,
  bitrate_uplink: profile.bitrateUplink,
  bitrate_downlink: profile.bitrateDownlink,
  var5qi: profile.var5qi,
  priority_level: profile.priorityLevel,
  // SMS is on unless the profile says otherwise (an update without it turns it back on: PUT replaces).
  sms_allowed: profile.smsAllowed === false ? 0 : 1,
});

export function createProfilesRepository(db: Executor) {
  return {
    async listAll(): Promise<Profile[]> {
      const rows = await db.selectFrom('profiles').select(COLUMNS).orderBy('name').execute();
      return rows.map(toProfile);
    },

    async findByName(name: string, executor: Executor = db): Promise<Profile | undefined> {
      const row = await executor
        .selectFrom('profiles')
        .select(COLUMNS)
        .where('name', '=', name)
        .executeTakeFirst();
      return row && toProfile(row);
    },

    /** Ids of the named profiles that exist, by name. */
    async idsByName(names: string[], executor: Executor = db): Promise<Map<string, number>> {
      if (names.length === 0) return new Map();
      const rows = await executor
        .selectFrom('profiles')
        .select(['id', 'name'])
        .where('name', 'in', names)
        .execute();
      return new Map(rows.map((row) => [row.name, row.id]));
    },

    async insert(profile: Omit<Profile, 'id'>, executor: Executor = db): Promise<number> {
      const row = await executor
        .insertInto('profiles')
        .values({ name: profile.name, ...toColumns(profile) })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async update(id: number, profile: Omit<Profile, 'id' | 'name'>, executor: Executor = db): Promise<void> {
      await executor.updateTable('profiles').set(toColumns(profile)).where('id', '=', id).execute();
    },

    async delete(id: number, executor: Executor = db): Promise<void> {
      await executor.deleteFrom('profiles').where('id', '=', id).execute();
    },
  };
}

export type ProfilesRepository = ReturnType<typeof createProfilesRepository>;
