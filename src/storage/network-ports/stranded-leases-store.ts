import type { Clock } from '../../clock.ts';
import type { StrandedLease, StrandedLeases } from '../../network/ports/address-leases.ts';
import type { Db } from '../database.ts';
import { ownerSelfOrNotLive } from './address-leases-store.ts';

/**
 * The `StrandedLeases` port over `address_leases` and `amf_set_members` (migrations 0023 and 0018;
 * docs/amf-set.md, "Lease reclamation"). A lease is stranded by the rule `hold` takes leases by
 * (`ownerSelfOrNotLive`, address-leases-store.ts). This member's own name's leases are listed too:
 * those its process does not hold are its previous run's.
 */
export function createStrandedLeasesStore(deps: { db: Db; clock: Clock }): StrandedLeases {
  const { db, clock } = deps;
  return {
    async list(after, limit, self) {
      const now = clock.now();
      const rows = await db
        .selectFrom('address_leases')
        .select(['address', 'owner', 'leased_at'])
        .where('address', '>', after)
        .where(ownerSelfOrNotLive(self, now))
        .orderBy('address')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ address: row.address, owner: row.owner, leasedAt: Number(row.leased_at) }));
    },

    async free(lease: StrandedLease, self: string) {
      const now = clock.now();
      // One statement: a lease a member took meanwhile (`hold`: another owner or time), or whose owner
      // is live again, stays; `hold` of this member's previous run's lease changes its time.
      const row = await db
        .deleteFrom('address_leases')
        .where('address', '=', lease.address)
        .where('owner', '=', lease.owner)
        .where('leased_at', '=', lease.leasedAt)
        .where(ownerSelfOrNotLive(self, now))
        .returning('address')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
