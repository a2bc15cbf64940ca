import type {
  AmfSetBlocker,
  AmfSetMember,
  AmfSetMembersStore,
  AmfSetMemberState,
} from '../../network/ports/amf-set-members.ts';
import type { Radio } from '../../network/radio-registry.ts';
import type { Db } from '../database.ts';
import type { AmfSetMembersTable } from '../tables/amf-set.ts';

/** A stored row as the AMF sees it; bigints may come back from PostgreSQL as strings. */
function memberOf(row: AmfSetMembersTable): AmfSetMember {
  return {
    name: row.name,
    instance: row.instance,
    mcc: row.mcc,
    mnc: row.mnc,
    regionId: Number(row.region_id),
    setId: Number(row.set_id),
    pointer: Number(row.pointer),
    relativeCapacity: Number(row.relative_capacity),
    n2Addresses: addressesOf(row.n2_addresses),
    state: stateOf(row.state),
    radios: radiosOf(row.radios),
    heartbeatAt: Number(row.heartbeat_at),
    leaseExpiresAt: Number(row.lease_expires_at),
  };
}

/** Written by members only; a row another client of the database spoiled reads as no addresses. */
function addressesOf(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
}

/** The radios a member wrote; an entry that is not one (a row spoiled by another client) is left out. */
function radiosOf(text: string): Radio[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((entry): entry is Radio => {
    if (entry === null || typeof entry !== 'object') return false;
    const radio = entry as Record<string, unknown>;
    return (
      ['id', 'name', 'address', 'ranNodeType'].every((key) => typeof radio[key] === 'string') &&
      Number.isFinite(radio.connectedAt) &&
      Number.isFinite(radio.lastSeenAt) &&
      Array.isArray(radio.supportedTais)
    );
  });
}

function stateOf(text: string): AmfSetMemberState {
  return text === 'serving' || text === 'draining' ? text : 'gone';
}

/**
 * The AMF set's membership port over `amf_set_members` (migration 0018). A write reads the rows it is
 * checked against and writes in one transaction: SERIALIZABLE on PostgreSQL, so two members starting at
 * once with one AMF Pointer cannot both see the pointer free (one is retried and then sees the other);
 * SQLite's write lock on one file.
 */
export function createAmfSetMembersStore(deps: { db: Db }): AmfSetMembersStore {
  const { db } = deps;
  return {
    write(member: AmfSetMember, blocker: AmfSetBlocker) {
      return db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom('amf_set_members')
          .selectAll()
          .where((w) =>
            w.or([
              w.and([w('region_id', '=', member.regionId), w('set_id', '=', member.setId)]),
              w('name', '=', member.name),
            ]),
          )
          .execute();
        const blocking = blocker(rows.map(memberOf));
        if (blocking !== undefined) return blocking;
        // Every column but the key, which a later write under the same name replaces.
        const changed = {
          instance: member.instance,
          mcc: member.mcc,
          mnc: member.mnc,
          region_id: member.regionId,
          set_id: member.setId,
          pointer: member.pointer,
          relative_capacity: member.relativeCapacity,
          n2_addresses: JSON.stringify(member.n2Addresses),
          state: member.state,
          radios: JSON.stringify(member.radios),
          heartbeat_at: member.heartbeatAt,
          lease_expires_at: member.leaseExpiresAt,
        };
        await trx
          .insertInto('amf_set_members')
          .values({ name: member.name, ...changed })
          .onConflict((c) => c.column('name').doUpdateSet(changed))
          .execute();
        return undefined;
      });
    },

    async list() {
      const rows = await db
        .selectFrom('amf_set_members')
        .selectAll()
        .orderBy('region_id')
        .orderBy('set_id')
        .orderBy('pointer')
        .orderBy('name')
        .execute();
      return rows.map(memberOf);
    },
  };
}
