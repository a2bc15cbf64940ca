/**
 * The local TEIDs of the UPF's N3 uplink rules (TS 29.281 5.1: TEID 0 belongs to no tunnel). A TEID is
 * held from `allocate` to `release`; a holder that allocates the same one twice would mix two sessions'
 * packets.
 */
export interface TunnelEndpointIds {
  /** A TEID not held, never 0, hard to guess from others; undefined when the limit is held. */
  allocate(): Promise<number | undefined>;
  /** False when `teid` was not held. */
  release(teid: number): Promise<boolean>;
  /** The TEIDs this process holds. */
  readonly held: number;
}
