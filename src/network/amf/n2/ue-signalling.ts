import type { NGAPPDU, UEassociatedLogicalNGconnectionList } from '../../ngap/generated/types.ts';
import type { SupportedTai } from '../../radio-registry.ts';

/** A radio that completed NG Setup, as UE-associated signalling sees it. */
export interface RadioLink {
  /** `<mcc>:<mnc>:<node id in hex>`. */
  readonly id: string;
  readonly name: string;
  /**
   * Sends a UE-associated PDU on `streamId` (>= 1, TS 38.412 7: UE-associated signalling uses the
   * streams other than 0); recorded like every PDU. False when the transport refused it.
   */
  send(pdu: NGAPPDU, streamId: number): boolean;
  /** The streams the radio accepts from the AMF: 0 .. outboundStreams - 1. */
  readonly outboundStreams: number;
  /** The tracking areas the radio serves now (NG Setup, then RAN Configuration Update), for Paging. */
  readonly supportedTais: readonly SupportedTai[];
}

/**
 * The seam where UE-associated signalling (registration, sessions, location) plugs into N2. The
 * procedures without a UE are the AMF's own; a UE-associated message from a radio that completed NG
 * Setup goes to the handler registered for its message type (`InitialUEMessage`,
 * `UplinkNASTransport`, ...). A message with no handler is treated as a procedure the AMF does not
 * comprehend (TS 38.413 10.3.4.1).
 */
export interface UeSignalling {
  readonly handlers: ReadonlyMap<string, (pdu: NGAPPDU, radio: RadioLink, streamId: number) => void>;
  /**
   * NG Reset, either way (TS 38.413 8.7.4): release the UE-associated logical NG-connections of the
   * radio, every one (`all`) or those listed. Returns the connections released, for NG Reset
   * Acknowledge.
   */
  reset(
    radio: RadioLink,
    connections: 'all' | UEassociatedLogicalNGconnectionList,
  ): UEassociatedLogicalNGconnectionList;
  /** The radio completed NG Setup (again): UE-associated signalling and Paging may use it. */
  radioReady(radio: RadioLink): void;
  /** The radio's association ended or was replaced: its UE contexts lose their N2 connection. */
  radioGone(radio: RadioLink): void;
  /**
   * One of the radio's TNL associations ended while `to`, another of the same radio, lives: the UE
   * connections bound to `from` are bound to `to` (the NGAP UE-TNLA binding, TS 23.502 4.2.7.2).
   */
  radioRebound(from: RadioLink, to: RadioLink): void;
  /**
   * The SUPI of the UE a PDU's UE NGAP ids name on the radio `radioId`, once the AMF knows it: the
   * `imsi` of its radio event's details (network.md section 3).
   */
  subscriberOf(
    radioId: string,
    amfUeNgapId: number | undefined,
    ranUeNgapId: number | undefined,
  ): string | undefined;
}
