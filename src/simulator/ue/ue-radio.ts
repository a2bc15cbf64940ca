// The seam between a simulated UE and the gNB serving it: what RRC would carry (TS 38.331), reduced to what
// NAS needs. The UE sends its initial NAS message by establishing a connection and the rest over it; the gNB
// delivers downlink NAS, says when the connection is released, and pages the UEs camped on it.
import type { RRCEstablishmentCause } from '../../network/ngap/generated/types.ts';
import type { FiveGSTmsi, ServingCell } from './ran-ue-messages.ts';
import type { UePositioning } from './ue-positioning.ts';

/** A UE as its gNB sees it. */
export interface RadioUe {
  /** Where paging finds it (TS 38.413 9.3.3.20), when it has a 5G-GUTI. */
  readonly sTmsi: FiveGSTmsi | undefined;
  /** Answer Initial Context Setup Request with a Failure (on demand). */
  readonly failInitialContextSetup: boolean;
  /** What the radio measures of it for E-CID (NRPPa), when configured. */
  readonly positioning: UePositioning | undefined;
  /** A NAS PDU from the AMF (Downlink NAS Transport, or the NAS-PDU of Initial Context Setup Request). */
  downlink(nasPdu: Uint8Array): void;
  /**
   * The AMF set up the UE's context (Initial Context Setup); `securityKey` is the KgNB it gave the gNB, which
   * the UE checks against its own derivation as AS security would (TS 33.501 6.7.4).
   */
  contextSetUp(securityKey: Uint8Array | undefined): void;
  /**
   * The AMF gave the gNB a KgNB from a new KAMF (UE Context Modification, TS 33.501 6.9.4.4), which a real
   * gNB takes into use by an intra-cell handover telling the UE to change its key set (TS 38.331
   * keySetChangeIndicator); the UE checks it against its own derivation.
   */
  keyChanged?(securityKey: Uint8Array): void;
  /** The RRC connection is gone: UE Context Release, NG Reset or the association's end. */
  released(): void;
  /** A Paging with this UE's 5G-S-TMSI reached its cell (TS 38.304 7.1). */
  paged(): void;
}

/** The UE's RRC connection through one gNB. */
export interface RrcConnection {
  /** Uplink NAS Transport; false when the gNB could not send it. */
  uplink(nasPdu: Uint8Array): boolean;
  /** False once the connection is released. */
  readonly open: boolean;
}

/** The gNB side a UE camps on. */
export interface UeRadio {
  /** Its name (RANNodeName), for what the API shows as `last_seen_radio`. */
  readonly name: string;
  readonly cell: ServingCell;
  /**
   * RRC connection establishment with the initial NAS message: an Initial UE Message (TS 38.413 8.6.1).
   * Undefined when the gNB has no NG connection to send it on.
   */
  establish(
    ue: RadioUe,
    nasPdu: Uint8Array,
    cause: RRCEstablishmentCause,
    sTmsi: FiveGSTmsi | undefined,
  ): RrcConnection | undefined;
  /** The UE listens to this cell's paging (camps on it) or stops. */
  camp(ue: RadioUe): void;
  leave(ue: RadioUe): void;
}
