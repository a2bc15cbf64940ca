/**
 * Where this process stands in its AMF set (docs/amf-set.md, "Losing the database"; docs/decisions.md,
 * 15: a member that loses the database stops serving rather than diverge).
 */
export type MembershipState =
  | { kind: 'stopped' }
  /** Its row is written with a lease until `leaseExpiresAt` (its own clock): it serves. */
  | { kind: 'member'; leaseExpiresAt: number }
  /**
   * Its lease ran out with no heartbeat written since `since`: its peers consider it gone and take its
   * UEs over, so it serves nothing, and joins again once a heartbeat is written with its pointer free.
   */
  | { kind: 'cut-off'; since: number }
  /** Another start took its row, or another member its AMF Pointer: it is no member again in this run. */
  | { kind: 'lost'; why: string };

export type MembershipStatus = MembershipState['kind'];

const NEXT: { readonly [K in MembershipStatus]: readonly MembershipStatus[] } = {
  stopped: ['member'],
  // A member renews its lease (member again), loses the database, or is replaced.
  member: ['member', 'cut-off', 'lost', 'stopped'],
  'cut-off': ['member', 'lost', 'stopped'],
  lost: ['stopped'],
};

/** `to`, when the membership may go there from `from`; a transition the table does not allow throws. */
export function transition(from: MembershipState, to: MembershipState): MembershipState {
  if (!NEXT[from.kind].includes(to.kind))
    throw new Error(`AMF set membership: no transition from ${from.kind} to ${to.kind}`);
  return to;
}
