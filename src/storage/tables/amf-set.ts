/** The AMF set's members (migration 0018; src/network/ports/amf-set-members.ts), one row per AMF Name. */
export interface AmfSetMembersTable {
  name: string;
  instance: string;
  mcc: string;
  mnc: string;
  region_id: number;
  set_id: number;
  pointer: number;
  relative_capacity: number;
  /** JSON array of addresses. */
  n2_addresses: string;
  state: string;
  /** JSON array of the member's connected radios as of its last heartbeat. */
  radios: string;
  /** Milliseconds since the epoch. */
  heartbeat_at: number;
  lease_expires_at: number;
}

export interface AmfSetTables {
  amf_set_members: AmfSetMembersTable;
}
