export type PoolFamily = 'ipv4' | 'ipv6';

export type AddressLease = { ok: true; address: string } | { ok: false; error: 'invalid' | 'exhausted' };

/**
 * UE addresses leased from the profiles' pools (network.md 6). A lease lasts from `lease` to `release`
 * whatever pool it came from, so two profiles with overlapping pools never share an address.
 */
export interface AddressLeases {
  /**
   * The lowest free address of `cidr` (IPv4: never the network or broadcast address) or its lowest free
   * /64 (IPv6, TS 23.501 5.8.2.2.2, as its first address, e.g. `2001:db8:0:1::`); `invalid` when the
   * CIDR is not a usable pool (or an IPv6 prefix longer than /64), `exhausted` when all are leased.
   * `supi` is the UE whose session it is for: a takeover of that UE hands the lease over with it.
   */
  lease(family: PoolFamily, cidr: string, supi?: string): Promise<AddressLease>;
  /**
   * Leases `address` itself, an address of `cidr` as `lease` gives them: a PDU session another SMF of
   * the AMF set set up keeps its address when this one takes it over (docs/amf-set.md). False when it
   * is leased already (in the set's store: by this process, or by another member that is live) or is
   * not one `lease` could give from `cidr`. A lease handed over to this member with the UE's record
   * (`UeContextStore.takeOver`) is this member's already, and held. `supi`: as for `lease`.
   */
  hold(family: PoolFamily, cidr: string, address: string, supi?: string): Promise<boolean>;
  /** Ends the lease of `address`; false when it was not leased (in the set's store: by this member). */
  release(address: string): Promise<boolean>;
  /**
   * Ends the lease of `address` handed over to this member with `supi`'s record that it did not take up
   * (the session left out of the takeover): only a lease of this member for that UE that this process
   * did not lease or hold. False when there was none.
   */
  forgo(address: string, supi: string): Promise<boolean>;
  /** The leases this process holds. */
  readonly held: number;
}

/** A lease in the set's store whose owner is no live member (docs/amf-set.md, "Lease reclamation"). */
export interface StrandedLease {
  address: string;
  owner: string;
  leasedAt: number;
}

/**
 * The leases of members that are gone, and of this member's previous run, for the sweep that frees
 * those no UE context names.
 */
export interface StrandedLeases {
  /**
   * Leases whose owner has no live membership row (left, or its lease ran out) or is `self` (this
   * member's name: its previous run's are among them), addresses after `after` ('' for the first) in
   * order, at most `limit`.
   */
  list(after: string, limit: number, self: string): Promise<StrandedLease[]>;
  /**
   * Deletes the lease if it is still that owner's from that time and the owner is `self` or still not
   * live.
   */
  free(lease: StrandedLease, self: string): Promise<boolean>;
}
