/**
 * The AMF's UE context records (migration 0019; docs/amf-set.md): keyed by SUPI, found by the 5G-TMSI
 * of their 5G-GUTI; `record` is the rest of the record as JSON, without KAMF, which is sealed.
 */
export interface UeContextsTable {
  supi: string;
  tmsi: number | null;
  epoch: number;
  owner: string;
  record: string;
  kamf_sealed: string | null;
}

/**
 * UE addresses leased across the AMF set (migration 0023; docs/amf-set.md, "Address leases"): the
 * address (an IPv6 /64 as its first address), the AMF Name that holds it, when (ms since the epoch), and
 * for which UE.
 */
interface AddressLeasesTable {
  address: string;
  owner: string;
  leased_at: number;
  /** The UE the lease is for (migration 0029): what a takeover hands over; null before it. */
  supi: string | null;
}

export interface WorkingStateTables {
  ue_contexts: UeContextsTable;
  address_leases: AddressLeasesTable;
}
