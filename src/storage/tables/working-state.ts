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

export interface WorkingStateTables {
  ue_contexts: UeContextsTable;
}
