import type { PduSession, ServingCell } from '../network-state.ts';

/**
 * The read model of an AMF set (docs/amf-set.md, "One view of the network"): what one member shows of a
 * subscriber, written where every member's API reads it. Each member writes only rows under its own AMF
 * Name; which member's row counts is the readers' choice (a live member's, the UE context's owner first).
 */
export interface SubscriberView {
  imsi: string;
  registered: boolean;
  /** The radio serving the device through this member now, or "" (none, or not registered). */
  servingRadio: string;
  radioAccessTypes: string[];
  imei: string;
  cipheringAlgorithm: string;
  integrityAlgorithm: string;
  /** Unix ms of the last signalling this member saw from the device, or undefined. */
  lastSeenAt: number | undefined;
  lastSeenRadio: string;
  /** The device's serving cell as this member last heard it (location, network.md 8), or undefined. */
  servingCell: ServingCell | undefined;
  servingCellReportedAt: number | undefined;
  sessions: PduSession[];
}

/** One member's writes; each call is one statement (or one per kind of change in it). */
export interface SubscriberViewWrites {
  /**
   * Writes `amf`'s rows: `views` inserted or replaced, `removed` deleted, and first every row of `amf`
   * naming one of `radiosGone` (radios whose association ended) as its serving radio cleared of it.
   */
  write(
    amf: string,
    change: { views: readonly SubscriberView[]; removed: readonly string[]; radiosGone: readonly string[] },
  ): Promise<void>;
  /** Deletes every row of `amf`: a new run of that member starts with nothing seen. */
  clear(amf: string): Promise<void>;
  /** Deletes the rows of every member not in `live`: members that died or left. */
  keepOnly(live: readonly string[]): Promise<void>;
}

/** The rows of a subscriber list's page: per IMSI, what a live member other than the reader holds. */
export interface ViewSummary {
  amf: string;
  registered: boolean;
  sessions: number;
}

/** The reads of the API, restricted to the rows of the members named (the live ones but the reader). */
export interface SubscriberViewReads {
  /** Every row of `imsi` among `members`, newest first. */
  views(imsi: string, members: readonly string[]): Promise<(SubscriberView & { amf: string })[]>;
  /** Rows that hold their subscriber registered, for the IMSIs given. */
  registeredAmong(imsis: readonly string[], members: readonly string[]): Promise<Map<string, ViewSummary>>;
  /** IMSIs that a member among `members` holds registered through the radio named. */
  onRadio(radio: string, members: readonly string[]): Promise<string[]>;
  /** Per member, its registered subscribers and their PDU sessions. */
  totals(
    members: readonly string[],
  ): Promise<{ amf: string; registeredSubscribers: number; activeSessions: number }[]>;
}

export type SubscriberViews = SubscriberViewWrites & SubscriberViewReads;
