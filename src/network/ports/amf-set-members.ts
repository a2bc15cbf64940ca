import type { Radio } from '../radio-registry.ts';

/**
 * The members of the AMF set this process belongs to (TS 23.501 5.21.2), as each writes its own row
 * where every member reads them (docs/decisions.md, 15): its AMF Name, GUAMI, relative capacity, N2
 * addresses, state, last heartbeat and lease expiry. Times are milliseconds since the epoch, on the
 * writer's clock.
 */
export type AmfSetMemberState = 'serving' | 'draining' | 'gone';

export interface AmfSetMember {
  /** AMF Name (TS 23.003 28.3.2.1): the key; one row per name. */
  name: string;
  /** Which start of the process wrote the row: a later start under the same name takes it over. */
  instance: string;
  mcc: string;
  mnc: string;
  regionId: number;
  setId: number;
  pointer: number;
  /** RelativeAMFCapacity, 0..255 (TS 23.501 5.21.2.1). */
  relativeCapacity: number;
  /** The addresses radios reach its N2 on. */
  n2Addresses: string[];
  /** As written: `gone` once it stopped; a row whose lease has expired is gone whatever it says. */
  state: AmfSetMemberState;
  /** The radios connected to its N2 as of its last heartbeat (none once it left). */
  radios: Radio[];
  heartbeatAt: number;
  leaseExpiresAt: number;
}

/** The rows a write is checked against, given by the store inside the write's transaction. */
export type AmfSetBlocker = (rows: readonly AmfSetMember[]) => AmfSetMember | undefined;

export interface AmfSetMembersStore {
  /**
   * Writes `member`'s row (inserted or replaced, by name) in one transaction, unless `blocker`, given
   * the rows of its AMF set (region and set id) and the row of its name, names one: then nothing
   * changes and that row is returned.
   */
  write(member: AmfSetMember, blocker: AmfSetBlocker): Promise<AmfSetMember | undefined>;
  /** Every member row, by AMF Region ID, AMF Set ID and AMF Pointer. */
  list(): Promise<AmfSetMember[]>;
}
