// What the SMF's procedures share (docs/sessions.md): the ports to the AMF and the UPF, the session
// table, the leases and the timers. Each procedure takes only the parts it uses (Pick<SmfContext, ...>).
import type { Logger } from 'pino';
import type { Timers } from '../../clock.ts';
import type { NetworkEventEmitter } from '../events/network-events.ts';
import type { FiveGsmMessage, SNssai } from '../nas/index.ts';
import type { AddressLeases } from '../ports/address-leases.ts';
import type { ConfigurationEvents } from '../ports/configuration-events.ts';
import type { SubscriptionDataPort } from '../ports/subscription-data.ts';
import type { TunnelEndpointIds } from '../ports/tunnel-endpoints.ts';
import type {
  Ambr,
  DownlinkTunnel,
  SessionRequest,
  UpfResult,
  UpfSession,
} from '../upf/ports/session-control.ts';
import type { SessionTable } from './session-table.ts';

/** The user plane the SMF drives (the UPF's control API, docs/upf.md) and where its N3 end is. */
export interface UserPlane {
  /** The UPF's N3 address: the uplink tunnel end point the gNB sends to. */
  readonly n3Address: string;
  establishSession(request: SessionRequest): UpfResult<UpfSession>;
  updateDownlink(sessionId: number, tunnel: DownlinkTunnel): UpfResult;
  deactivate(sessionId: number): UpfResult;
  modifyAmbr(sessionId: number, ambr: Ambr): UpfResult;
  release(sessionId: number): UpfResult;
}

/** An N2 SM information item for one PDU session (TS 38.413 9.3.1.x items: id, S-NSSAI, transfer). */
export interface N2SmItem {
  pduSessionId: number;
  sNssai: SNssai;
  transfer: Uint8Array;
  /** The 5GSM message the item carries to the UE (NAS-PDU of the item), if any. */
  n1?: FiveGsmMessage;
}

/**
 * What the SMF asks of the AMF (Namf_Communication_N1N2MessageTransfer, TS 23.502 5.2.2.2.7): a 5GSM
 * message alone in DL NAS Transport, or N2 SM information in PDU Session Resource Setup/Modify/
 * Release. Each is false when the UE has no N2 connection (CM-IDLE) or the send failed.
 */
export interface SmfAmfPort {
  sendN1(supi: string, message: FiveGsmMessage): boolean;
  setupResources(supi: string, item: N2SmItem): boolean;
  modifyResources(supi: string, item: N2SmItem & { n1: FiveGsmMessage }): boolean;
  releaseResources(supi: string, item: N2SmItem): boolean;
  /**
   * Downlink data for a UE in CM-IDLE (N1N2MessageTransfer with N2 SM information, TS 23.502 4.2.3.3
   * step 3a): the AMF pages it, or is paging it already. False when it cannot: the UE is unknown, not
   * registered, connected, or no radio serves its registration area.
   */
  pageForDownlinkData(supi: string): boolean;
}

/**
 * PDU session status IEs of a Registration Request or Service Request (TS 24.501 9.11.3.44, 9.11.3.57),
 * as PSI lists.
 */
export interface UeSessionStatus {
  /** The PDU sessions the UE holds (PDU session status IE), if it said. */
  pduSessionStatus: readonly number[] | undefined;
  /** The PDU sessions whose user plane the UE asks back (Uplink data status IE), if any. */
  uplinkDataStatus: readonly number[] | undefined;
}

/**
 * What Registration Accept or Service Accept says of the UE's PDU sessions (TS 24.501 5.5.1.3.4,
 * 5.6.1.4.1), and what the radio sets up.
 */
export interface NetworkSessionStatus {
  /** The PDU sessions the network holds (PDU session status IE). */
  pduSessionStatus: number[];
  /** Sessions of Uplink data status whose user plane cannot come back (PDU session reactivation result). */
  reactivationFailed: number[];
  /** The sessions whose user plane comes back, for Initial Context Setup (TS 23.502 4.2.3.2 step 12). */
  reactivate: N2SmItem[];
}

/** What the AMF knows of the UE when it routes a 5GSM message (UL NAS Transport, TS 24.501 8.2.10). */
export interface UplinkSmContext {
  supi: string;
  allowedNssai: readonly SNssai[];
  /** Request type (9.11.3.47), DNN and S-NSSAI of UL NAS Transport. */
  requestType: number | undefined;
  dnn: string | undefined;
  sNssai: SNssai | undefined;
}

export interface SmfOptions {
  subscriptionData: SubscriptionDataPort;
  configurationEvents: ConfigurationEvents;
  /** Sessions established, modified and released, as the API shows them (network state subscribes). */
  events: NetworkEventEmitter;
  /** The UPF; undefined when it could not start: every establishment is then refused with #26. */
  userPlane: UserPlane | undefined;
  amf: SmfAmfPort;
  logger: Logger;
  /** T3591 and T3592 (TS 24.501 Table 10.3.2). */
  timers: Timers;
  /** The UE addresses' and the UPF's TEIDs' leases; in this process's memory unless given. */
  addressLeases?: AddressLeases;
  teids?: TunnelEndpointIds;
  /** T3591 and T3592 in ms (16 s each, Table 10.3.2) and their retransmissions (4: 6.3.2.5, 6.3.3.5). */
  timing?: Partial<SmfTiming>;
}

export interface SmfTiming {
  t3591Ms: number;
  t3592Ms: number;
  retransmissions: number;
}

export const DEFAULT_SMF_TIMING: SmfTiming = { t3591Ms: 16_000, t3592Ms: 16_000, retransmissions: 4 };

/** The SMF's shared parts, built once by `createSmf`. */
export interface SmfContext {
  readonly subscriptionData: SubscriptionDataPort;
  readonly events: NetworkEventEmitter;
  readonly userPlane: UserPlane | undefined;
  readonly amf: SmfAmfPort;
  readonly logger: Logger;
  readonly timers: Timers;
  readonly timing: SmfTiming;
  readonly table: SessionTable;
  readonly addresses: AddressLeases;
  readonly teids: TunnelEndpointIds;
}
