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

/**
 * Each member's view of a subscriber (migration 0024; docs/amf-set.md, "One view of the network"): one
 * row per IMSI and member (`amf`, its AMF Name).
 */
export interface SubscriberViewsTable {
  imsi: string;
  amf: string;
  /** 1 while the member holds the subscriber registered, else 0. */
  registered: number;
  /** The radio serving the device through this member now, or "". */
  serving_radio: string;
  session_count: number;
  /** JSON: the status fields and PDU sessions as the API shows them. */
  view: string;
  /** Milliseconds since the epoch. */
  updated_at: number;
}

export interface AmfSetTables {
  amf_set_members: AmfSetMembersTable;
  subscriber_views: SubscriberViewsTable;
}
