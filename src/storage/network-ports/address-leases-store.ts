import { sql, type SqlBool } from 'kysely';
import type { AddressLease, AddressLeases, PoolFamily } from '../../network/ports/address-leases.ts';
import { indexOf, parsePool, textOf, type Pool } from '../../network/working-state/address-pools.ts';
import type { Clock } from '../../clock.ts';
import type { Db } from '../database.ts';

/**
 * An `address_leases` row's owner is `self`, or no live member: its `amf_set_members` row says `gone`
 * or its lease has run out at `now` (a member that died or stopped). The one rule by which leases are
 * taken from a member (`hold`) and freed (stranded-leases-store.ts).
 */
export function ownerSelfOrNotLive(self: string, now: number) {
  return sql<SqlBool>`(address_leases.owner = ${self} or not exists (select 1 from amf_set_members
    where amf_set_members.name = address_leases.owner and amf_set_members.state <> 'gone'
    and amf_set_members.lease_expires_at > ${now}))`;
}

/** Candidates one statement tries: the lowest free of them is leased. */
const WINDOW = 32n;

/**
 * The `AddressLeases` port over `address_leases` (migration 0023; docs/amf-set.md, "Address leases"),
 * shared by the members of an AMF set on PostgreSQL (also runs on SQLite). The primary key keeps an
 * address unique across the set: a lease is one INSERT of the lowest free address of a window of
 * candidates, ON CONFLICT DO NOTHING; a member that lost a race to another tries again. `owner` is
 * this member's AMF Name. A lease of this name that this process did not make is its previous run's
 * (a restart), which `hold` takes back; so that a lease in flight is never taken for one, this
 * process's leases and holds run one at a time (one statement each, rarely more).
 */
export function createAddressLeasesStore(deps: { db: Db; owner: string; clock: Clock }): AddressLeases {
  const { db, owner, clock } = deps;
  const pools = new Map<string, Pool>();
  /** The addresses this process leased or holds. */
  const mine = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(run: () => Promise<T>): Promise<T> => {
    const result = queue.then(run);
    queue = result.catch(() => undefined);
    return result;
  };

  const poolOf = (family: PoolFamily, cidr: string): Pool | undefined => {
    const key = `${family} ${cidr}`;
    let pool = pools.get(key);
    if (pool === undefined) {
      pool = parsePool(cidr, family);
      if (pool !== undefined) pools.set(key, pool);
    }
    return pool;
  };

  /** Leases the lowest free address of `candidates`; undefined when none was (taken, or lost a race). */
  const leaseOne = async (candidates: string[], supi: string | null): Promise<string | undefined> => {
    const rows = sql.join(
      candidates.map(
        (address, ord) => sql`SELECT CAST(${address} AS text) AS address, CAST(${ord} AS integer) AS ord`,
      ),
      sql` UNION ALL `,
    );
    const { rows: leased } = await sql<{ address: string }>`
      INSERT INTO address_leases (address, owner, leased_at, supi)
      SELECT c.address, CAST(${owner} AS text), CAST(${clock.now()} AS bigint), CAST(${supi} AS text)
      FROM (${rows}) AS c
      WHERE NOT EXISTS (SELECT 1 FROM address_leases l WHERE l.address = c.address)
      ORDER BY c.ord LIMIT 1
      ON CONFLICT (address) DO NOTHING
      RETURNING address`.execute(db);
    return leased[0]?.address;
  };

  const takenOf = async (candidates: string[]): Promise<number> => {
    const row = await db
      .selectFrom('address_leases')
      .select((eb) => eb.fn.countAll<number | string>().as('taken'))
      .where('address', 'in', candidates)
      .executeTakeFirst();
    return Number(row?.taken ?? 0);
  };

  const lease = async (family: PoolFamily, cidr: string, supi: string | null): Promise<AddressLease> => {
    const pool = poolOf(family, cidr);
    if (pool === undefined || pool.first > pool.last) return { ok: false, error: 'invalid' };
    // From this process's cursor to the end, then from the pool's start to the cursor: another
    // member's releases do not move it. A failed window is full, or another member leased from it meanwhile.
    const cursor = pool.lowestFree;
    const passes: [bigint, bigint][] =
      cursor > pool.first
        ? [
            [cursor, pool.last],
            [pool.first, cursor - 1n],
          ]
        : [[pool.first, pool.last]];
    for (const [start, end] of passes) {
      let from = start;
      while (from <= end) {
        const to = from + WINDOW - 1n < end ? from + WINDOW - 1n : end;
        const candidates: string[] = [];
        for (let index = from; index <= to; index++) candidates.push(textOf(pool, index));
        const address = await leaseOne(candidates, supi);
        if (address !== undefined) {
          mine.add(address);
          const index = indexOf(pool, address);
          if (index !== undefined) pool.lowestFree = index + 1n;
          return { ok: true, address };
        }
        if ((await takenOf(candidates)) === candidates.length) {
          from = to + 1n;
          pool.lowestFree = from;
        }
      }
    }
    return { ok: false, error: 'exhausted' };
  };

  const hold = async (
    family: PoolFamily,
    cidr: string,
    address: string,
    supi: string | null,
  ): Promise<boolean> => {
    const pool = poolOf(family, cidr);
    if (pool === undefined || indexOf(pool, address) === undefined || mine.has(address)) return false;
    const now = clock.now();
    // Free, or held by no live member: one that died or stopped (its UEs are taken over with their
    // sessions, TS 23.501 5.21.2.3), or this AMF Name's previous run (not in `mine`). A live member's
    // lease is never taken: the session is left out instead (docs/amf-set.md, "Address leases"). One
    // handed over with the UE's record is this member's already (docs/amf-set.md, "Address hand-over").
    const row = await db
      .insertInto('address_leases')
      .values({ address, owner, leased_at: now, supi })
      .onConflict((oc) =>
        oc
          .column('address')
          .doUpdateSet((eb) => ({
            owner: eb.ref('excluded.owner'),
            leased_at: eb.ref('excluded.leased_at'),
            supi: eb.ref('excluded.supi'),
          }))
          .where(ownerSelfOrNotLive(owner, now)),
      )
      .returning('address')
      .executeTakeFirst();
    if (row === undefined) return false;
    mine.add(address);
    return true;
  };

  return {
    lease: (family, cidr, supi) => oneAtATime(() => lease(family, cidr, supi ?? null)),
    hold: (family, cidr, address, supi) => oneAtATime(() => hold(family, cidr, address, supi ?? null)),

    // In the queue of leases and holds: a hold of this process in flight is in `mine` before this runs.
    forgo: (address, supi) =>
      oneAtATime(async () => {
        if (mine.has(address)) return false;
        const row = await db
          .deleteFrom('address_leases')
          .where('address', '=', address)
          .where('owner', '=', owner)
          .where('supi', '=', supi)
          .returning('address')
          .executeTakeFirst();
        return row !== undefined;
      }),

    async release(address) {
      // Only this member's lease: a member fenced off a UE another took over frees nothing of it.
      const row = await db
        .deleteFrom('address_leases')
        .where('address', '=', address)
        .where('owner', '=', owner)
        .returning('address')
        .executeTakeFirst();
      // Not this process's any more either way (a member another took over from frees nothing).
      mine.delete(address);
      if (row === undefined) return false;
      // Every pool with this address inside may hand it out again: their cursors move back.
      for (const pool of pools.values()) {
        const index = indexOf(pool, address);
        if (index !== undefined && index < pool.lowestFree) pool.lowestFree = index;
      }
      return true;
    },

    get held() {
      return mine.size;
    },
  };
}
