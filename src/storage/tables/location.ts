/** Tables of location (beta) (migration 0004). */
export interface CellPositionsTable {
  /** UUIDv7, assigned by the service. */
  id: string;
  /** `nr` or `eutra`. */
  rat: string;
  mcc: string;
  mnc: string;
  /** Lower-case hex: 9 digits (NCI) for NR, 7 (ECI) for E-UTRA. */
  cell_identity: string;
  /** Lower-case hex, or null. */
  gnb_id: string | null;
  latitude: number;
  longitude: number;
  altitude: number | null;
  uncertainty_semi_major: number | null;
  uncertainty_semi_minor: number | null;
  orientation_major: number | null;
  confidence: number | null;
  /** Where the record comes from; `provisioned` for every record made through the API. */
  source: string;
}

export interface PositioningSessionsTable {
  /** UUIDv7, assigned by the service. */
  id: string;
  /** `imsi-<IMSI>`. */
  supi: string;
  /** 0 immediate, 1 periodic, 2 triggered. */
  session_type: number;
  /** `cell_id`, `ecid` or `gnss`. */
  method: string;
  /** The requested mode, or null for every mode of the method. */
  mode: string | null;
  /** 0 active, 1 completed, 2 failed, 3 cancelled. */
  status: number;
  /** Periodic sessions: seconds between evaluations. */
  interval_seconds: number | null;
  /** Estimates after which the session completes; null for no limit. */
  report_count: number | null;
  /** Estimates produced so far. */
  reports: number;
  /** Periodic sessions: Unix ms of the next evaluation, so a restart keeps the rhythm. */
  next_report_at: number | null;
  /** The latest location result as JSON, or null before the first estimate. */
  last_result: string | null;
  /** Unix ms. */
  created_at: number;
  updated_at: number;
}

export interface LocationTables {
  cell_positions: CellPositionsTable;
  positioning_sessions: PositioningSessionsTable;
}
