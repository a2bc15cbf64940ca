import type { Logger } from 'pino';
import type { Timers } from '../../../clock.ts';
import type { PeerLogLimiter } from '../../peer-log-limiter.ts';
import type {
  Cause,
  FiveGSTMSI,
  NGAPPDU,
  PDUSessionResourceFailedToModifyListModCfm,
  PDUSessionResourceModifyListModCfm,
  PDUSessionResourceModifyListModInd,
  PDUSessionResourceSecondaryRATUsageList,
  IMSVoiceSupportIndicator,
  UEassociatedLogicalNGconnectionList,
  UERadioCapabilityForPaging,
  UserLocationInformation,
} from '../../ngap/generated/types.ts';
import { handlerTable, type MessageOf } from '../../asn1/message-runtime.ts';
import {
  READERS,
  type readHandoverCancel,
  type readHandoverFailure,
  type readHandoverRequestAcknowledge,
  type readHandoverRequired,
  type readPathSwitchRequest,
  type readPDUSessionResourceNotify,
  type readUERadioCapabilityInfoIndication,
  type readUplinkRANStatusTransfer,
} from '../../ngap/generated/messages.ts';
import { plmnIdentity, tac } from '../../ngap/ngap-values.ts';
import { modifyIndicationUnsuccessfulTransfer } from '../../ngap/modify-indication-unsuccessful-transfer.ts';
import { initialNhChain } from '../../security/handover-keys.ts';
import { downlinkUeAssociatedNrppaTransport, locationReportingControl } from './location-ngap-messages.ts';
import { errorIndication } from './ngap-messages.ts';
import { causeText } from './criticality-diagnostics.ts';
import { handoverPreparationFailure } from './handover-messages.ts';
import { createUeConnections, type UeConnection } from '../context/ue-connections.ts';
import {
  type ContextModificationIes,
  downlinkNasTransport,
  initialContextSetupRequest,
  type InitialContextSetupIes,
  paging,
  ueContextModificationRequest,
  ueRadioCapabilityCheckRequest,
  rerouteNasRequest,
  ueContextReleaseCommand,
} from './ue-ngap-messages.ts';
import type { RadioLink, UeSignalling } from './ue-signalling.ts';
import { servingCellOf } from './user-location.ts';
import type { UeRadioCapability } from './radio-capability.ts';
import { pduSessionResourceModifyConfirm } from './session-ngap-messages.ts';

/** Why a UE-associated logical NG-connection ended. */
type ConnectionEnd =
  /** UE Context Release completed (or its answer never came). */
  | 'released'
  /** The radio's association ended or was replaced. */
  | 'radio-lost'
  /** NG Reset, either way. */
  | 'reset'
  /** A second Initial UE Message for the same RAN UE NGAP ID replaced it. */
  | 'replaced'
  /** Its Initial UE Message went to another AMF of the set (Reroute NAS Request). */
  | 'rerouted'
  /**
   * TS 38.413 10.6: a message of the radio named it with an erroneous AMF UE NGAP ID or RAN UE NGAP ID;
   * both nodes release it locally, without UE Context Release signalling.
   */
  | 'local-release';

/** What an Initial UE Message carries besides its NAS-PDU, for the NAS layer. */
export interface InitialInfo {
  fiveGSTmsi: FiveGSTMSI | undefined;
  /** The message as received (for Reroute NAS Request, 8.6.5). */
  pdu: NGAPPDU;
  /** It names an AMF Set ID: a radio sent it on after Reroute NAS Request (8.6.5.2). */
  rerouted: boolean;
}

/**
 * What the UE-associated NGAP layer hands the NAS layer (the AMF's 5GMM procedures). Each call is about
 * one connection; `connection.owner` is the NAS layer's UE context once it set one.
 */
export interface NasEndpoint<Owner> {
  /** Initial UE Message (TS 38.413 8.6.1): a new connection and the first NAS message. */
  initialUeMessage(connection: UeConnection<Owner>, nasPdu: Uint8Array, info: InitialInfo): void;
  /** Uplink NAS Transport (8.6.3). */
  uplinkNas(connection: UeConnection<Owner>, nasPdu: Uint8Array): void;
  /** Initial Context Setup Response (true) or Failure (false, with its cause) (8.3.1). */
  contextSetup(connection: UeConnection<Owner>, succeeded: boolean, cause: Cause | undefined): void;
  /** NAS Non Delivery Indication (8.6.4): the radio could not deliver a downlink NAS-PDU. */
  nasNotDelivered(connection: UeConnection<Owner>, nasPdu: Uint8Array, cause: Cause): void;
  /** The connection is gone; the UE, if registered, is now CM-IDLE. */
  connectionEnded(connection: UeConnection<Owner>, why: ConnectionEnd): void;
  /** Any UE-associated message from the radio, after the serving cell was updated. */
  heard(connection: UeConnection<Owner>): void;
  /** The SUPI of the UE the connection serves, once known. */
  subscriberOf(connection: UeConnection<Owner>): string | undefined;
  /**
   * The PDU session lists of a PDU Session Resource Setup Response (TS 38.413 8.2.1.2) or an Initial
   * Context Setup Response (8.3.1.2), for the SMF.
   */
  sessionResources(connection: UeConnection<Owner>, answer: SessionResourcesAnswer): void;
}

/** The sessions a radio set up (with their response transfers) and failed to (with their unsuccessful transfers). */
export interface SessionResourcesAnswer {
  setUp: readonly { pDUSessionID: number; pDUSessionResourceSetupResponseTransfer: Uint8Array }[];
  failed: readonly { pDUSessionID: number; pDUSessionResourceSetupUnsuccessfulTransfer: Uint8Array }[];
}

/** What the UE-associated NGAP layer hands location (the AMF's side of the LMF, location.ts). */
export interface LocationEndpoint<Owner> {
  /** Location Report (true) or Location Reporting Failure Indication (false) (TS 38.413 8.12). */
  locationReported(connection: UeConnection<Owner>, reported: boolean): void;
  /** Uplink UE Associated NRPPa Transport (8.13.2): an NRPPa PDU for the LMF named by `routingId`. */
  nrppa(connection: UeConnection<Owner>, routingId: Uint8Array, nrppaPdu: Uint8Array): void;
}

/** A Path Switch Request as its generated reader gives it (TS 38.413 9.2.3.8, 10.3). */
export type ReceivedPathSwitchRequest = MessageOf<typeof readPathSwitchRequest>;

/** What the UE-associated NGAP layer hands the AMF's Xn handover (path-switch.ts). */
export interface PathSwitchEndpoint {
  /** Path Switch Request (TS 38.413 8.4.4) from the target `radio`, its mandatory IEs present. */
  pathSwitchRequest(request: ReceivedPathSwitchRequest, radio: RadioLink, streamId: number): void;
}

/** The messages of an N2 handover as their generated readers give them (TS 38.413 9.2.3, 10.3). */
export type ReceivedHandoverRequired = MessageOf<typeof readHandoverRequired>;
type ReceivedHandoverRequestAcknowledge = MessageOf<typeof readHandoverRequestAcknowledge>;
type ReceivedHandoverFailure = MessageOf<typeof readHandoverFailure>;
type ReceivedHandoverCancel = MessageOf<typeof readHandoverCancel>;
type ReceivedUplinkRanStatusTransfer = MessageOf<typeof readUplinkRANStatusTransfer>;

/**
 * What the UE-associated NGAP layer hands the AMF's N2 handover (handover.ts). The source's messages
 * come with the connection they name (checked against the radio, 10.6); the target's answers to
 * Handover Request name an AMF UE NGAP ID that has no connection yet, so they come with the radio, and
 * a false return (no handover waits for them there) gets Error Indication `unknown-local-UE-NGAP-ID`.
 */
export interface HandoverEndpoint<Owner> {
  /** Handover Required (8.4.1) from the source. */
  required(connection: UeConnection<Owner>, message: ReceivedHandoverRequired): void;
  /** Handover Cancel (8.4.5) from the source. */
  cancel(connection: UeConnection<Owner>, message: ReceivedHandoverCancel): void;
  /** Uplink RAN Status Transfer (8.4.6) from the source; false when no handover is prepared for it. */
  uplinkStatus(connection: UeConnection<Owner>, message: ReceivedUplinkRanStatusTransfer): boolean;
  /** Handover Request Acknowledge (8.4.2.2) from `radio`. */
  acknowledged(message: ReceivedHandoverRequestAcknowledge, radio: RadioLink): boolean;
  /** Handover Failure (8.4.2.3) from `radio`. */
  failed(message: ReceivedHandoverFailure, radio: RadioLink): boolean;
  /** Handover Notify (8.4.3) on the target's connection; false when no handover is prepared for it. */
  notified(connection: UeConnection<Owner>): boolean;
}

/** A UE Radio Capability Info Indication as its generated reader gives it (TS 38.413 9.2.9.1). */
export type ReceivedUeRadioCapabilityInfoIndication = MessageOf<
  typeof readUERadioCapabilityInfoIndication
> & {
  ueRadioCapability: Uint8Array;
};

/** Where the UE radio capability is kept per UE context (radio-capability.ts). */
export interface RadioCapabilityEndpoint<Owner> {
  /** UE Radio Capability Info Indication (8.14.1) on the connection, its UE Radio Capability present. */
  indicated(connection: UeConnection<Owner>, message: ReceivedUeRadioCapabilityInfoIndication): void;
  /** The capability kept for the connection's UE, for Initial Context Setup Request (9.2.2.1). */
  of(connection: UeConnection<Owner>): UeRadioCapability | undefined;
}

/** Where the answers to UE Context Modification Request go (ue-context-modification.ts). */
export interface ContextModificationEndpoint<Owner> {
  /**
   * UE Context Modification Response (`failure` undefined) or Failure (8.3.4.2, 8.3.4.3) on the
   * connection; false when no request of the AMF waits for it there.
   */
  answered(connection: UeConnection<Owner>, failure: Cause | undefined): boolean;
}

/** Where the radio's answers to UE Radio Capability Check go (radio-capability-check.ts). */
export interface RadioCapabilityCheckEndpoint<Owner> {
  /**
   * UE Radio Capability Check Response (8.14.2.2) on the connection, with its IMS Voice Support
   * Indicator; false when no check of the AMF waits for it there.
   */
  answered(connection: UeConnection<Owner>, imsVoice: IMSVoiceSupportIndicator): boolean;
}

/** A PDU Session Resource Notify as its generated reader gives it (TS 38.413 9.2.1.7). */
export type ReceivedPduSessionResourceNotify = MessageOf<typeof readPDUSessionResourceNotify>;

/** The two lists of a PDU Session Resource Modify Confirm (TS 38.413 9.2.1.9). */
export interface ModifyConfirmLists {
  confirmed: PDUSessionResourceModifyListModCfm;
  failed: PDUSessionResourceFailedToModifyListModCfm;
}

/** Where what a radio tells of PDU sessions on its own goes, for the SMF (session-indications.ts). */
export interface SessionIndicationEndpoint<Owner> {
  /** PDU Session Resource Notify (8.2.4) on the connection. */
  notified(connection: UeConnection<Owner>, message: ReceivedPduSessionResourceNotify): void;
  /** Secondary RAT Data Usage Report (8.16.1) on the connection: each session's transfer. */
  secondaryRatUsage(connection: UeConnection<Owner>, items: PDUSessionResourceSecondaryRATUsageList): void;
  /** PDU Session Resource Modify Indication (8.2.5) on the connection: the lists of its Confirm. */
  modifyIndicated(
    connection: UeConnection<Owner>,
    items: PDUSessionResourceModifyListModInd,
  ): ModifyConfirmLists;
}

interface UeNgapOptions {
  /** The most UE-associated logical NG-connections at once; beyond it Initial UE Messages are refused. */
  maxConnections: number;
  /** How long the AMF waits for UE Context Release Complete before forgetting the connection. */
  releaseTimeoutMs: number;
  timers: Timers;
  logger: Logger;
  /** Warn lines a radio can trigger in bulk (peer-log-limiter.ts). */
  peerLog: PeerLogLimiter;
}

/** A UE's registration area: tracking areas of one PLMN (TS 24.501 9.11.3.9, non-consecutive TACs). */
interface PagingArea {
  mcc: string;
  mnc: string;
  tacs: readonly number[];
}

/** TAI List for Paging (TS 38.413 9.2.4.1): every TAI of the area. */
function pagingTais(area: PagingArea): Parameters<typeof paging>[1] {
  return area.tacs.map((value) => ({
    tAI: { pLMNIdentity: plmnIdentity(area.mcc, area.mnc), tAC: tac(value) },
  }));
}

/** The radio serves at least one tracking area of `area` (its Supported TA List names it). */
function servesArea(radio: RadioLink, area: PagingArea): boolean {
  return radio.supportedTais.some(
    ({ tai }) =>
      tai.plmnID.mcc === area.mcc && tai.plmnID.mnc === area.mnc && area.tacs.includes(parseInt(tai.tac, 16)),
  );
}

export const DEFAULT_RELEASE_TIMEOUT_MS = 10_000;

const UNKNOWN_LOCAL_ID: Cause = { choice: 'radioNetwork', value: 'unknown-local-UE-NGAP-ID' };
/** TS 38.413 10.4: a message the connection's state does not expect. */
const NOT_IN_STATE: Cause = { choice: 'protocol', value: 'message-not-compatible-with-receiver-state' };

const idsOf = (connection: UeConnection<unknown>) => ({
  amfUeNgapId: connection.amfUeNgapId,
  ranUeNgapId: connection.ranUeNgapId,
});

/** Modify Confirm lists failing every session of a Modify Indication with `cause` (default: unknown session). */
export function failedSessions(
  items: PDUSessionResourceModifyListModInd,
  cause: Cause = { choice: 'radioNetwork', value: 'unknown-PDU-session-ID' },
): ModifyConfirmLists {
  const transfer = modifyIndicationUnsuccessfulTransfer(cause);
  return {
    confirmed: [],
    failed: items.map((item) => ({
      pDUSessionID: item.pDUSessionID,
      pDUSessionResourceModifyIndicationUnsuccessfulTransfer: transfer,
    })),
  };
}

/** The ids a message carries, for an Error Indication about it. */
const presentIds = (ids: MessageIds): MessageIds => ({
  ...(ids.amfUeNgapId === undefined ? {} : { amfUeNgapId: ids.amfUeNgapId }),
  ...(ids.ranUeNgapId === undefined ? {} : { ranUeNgapId: ids.ranUeNgapId }),
});

/**
 * The UE NGAP IDs a UE-associated message names (TS 38.413 9.3.3.1, 9.3.3.2); in a response they have
 * criticality ignore, so a message may come without them (10.3.5).
 */
interface MessageIds {
  amfUeNgapId?: number;
  ranUeNgapId?: number;
}

/**
 * The UE-associated signalling of N2 (TS 38.413 8.2, 8.3, 8.6): UE-associated logical NG-connections,
 * the NAS transport both ways, Initial Context Setup, UE Context Release either way, NAS Non Delivery,
 * Paging, and Error Indication for messages naming a connection the AMF does not know (10.6). It plugs
 * into the N2 association through `signalling` (the `UeSignalling` seam) and into the 5GMM procedures
 * through `bind(endpoint)`.
 */
export function createUeNgap<Owner>(options: UeNgapOptions) {
  const connections = createUeConnections<Owner>({ limit: options.maxConnections });
  /** Radios that completed NG Setup, for Paging; forgotten when their association ends. */
  const radios = new Map<string, RadioLink>();
  const releaseTimers = new Map<UeConnection<Owner>, () => void>();
  let nas: NasEndpoint<Owner> | undefined;
  let location: LocationEndpoint<Owner> | undefined;
  let pathSwitch: PathSwitchEndpoint | undefined;
  let handover: HandoverEndpoint<Owner> | undefined;
  let radioCapability: RadioCapabilityEndpoint<Owner> | undefined;
  let contextModification: ContextModificationEndpoint<Owner> | undefined;
  let radioCapabilityCheck: RadioCapabilityCheckEndpoint<Owner> | undefined;
  let sessionIndications: SessionIndicationEndpoint<Owner> | undefined;

  function endpoint(): NasEndpoint<Owner> {
    if (nas === undefined) throw new Error('UE NGAP used before a NAS endpoint is bound');
    return nas;
  }

  function sendErrorIndication(
    radio: RadioLink,
    streamId: number,
    cause: Cause,
    ids: { amfUeNgapId?: number; ranUeNgapId?: number },
  ): void {
    radio.send(errorIndication({ cause, ...ids }), streamId);
  }

  function end(connection: UeConnection<Owner>, why: ConnectionEnd): void {
    releaseTimers.get(connection)?.();
    releaseTimers.delete(connection);
    if (connections.close(connection)) endpoint().connectionEnded(connection, why);
  }

  /**
   * TS 38.413 10.6: "both nodes shall initiate a local release of any established UE-associated logical
   * connection (for the same NG interface) having the erroneous AMF UE NGAP ID or RAN UE NGAP ID": the
   * radio's connection under `ranUeNgapId` and `byAmfId`, when on this radio, end without signalling.
   */
  function releaseLocally(
    radio: RadioLink,
    ranUeNgapId: number | undefined,
    byAmfId: UeConnection<Owner> | undefined,
  ): void {
    const byRan = ranUeNgapId === undefined ? undefined : connections.byRan(radio.id, ranUeNgapId);
    if (byRan !== undefined) end(byRan, 'local-release');
    if (byAmfId !== undefined && byAmfId.radio.id === radio.id) end(byAmfId, 'local-release');
  }

  /**
   * The connection a message names, checked against the radio (TS 38.413 10.6): an AMF UE NGAP ID this
   * AMF has not assigned on this radio -> Error Indication `unknown-local-UE-NGAP-ID`; a known one with
   * another RAN UE NGAP ID -> `inconsistent-remote-UE-NGAP-ID`; either way the radio's connections
   * under those ids are released locally. A message without an AMF UE NGAP ID (10.3.5, criticality
   * ignore) names no erroneous id: it is answered and releases nothing. `refuse`, when given, answers
   * with the procedure's failure message instead (10.6: "the appropriate failure message"), or not at
   * all for the last message of a connection (UE Context Release Complete).
   */
  function named(
    radio: RadioLink,
    streamId: number,
    amfUeNgapId: number | undefined,
    ranUeNgapId: number | undefined,
    refuse?: (cause: Cause) => void,
  ): UeConnection<Owner> | undefined {
    const answer = (cause: Cause, erroneous?: UeConnection<Owner>): undefined => {
      // The ids only on a refusal: an object of spreads is built in V8's runtime, a cost per message.
      if (refuse === undefined)
        sendErrorIndication(radio, streamId, cause, presentIds({ amfUeNgapId, ranUeNgapId }));
      else refuse(cause);
      if (amfUeNgapId !== undefined) releaseLocally(radio, ranUeNgapId, erroneous);
      return undefined;
    };
    const connection = amfUeNgapId === undefined ? undefined : connections.byAmfId(amfUeNgapId);
    if (connection === undefined || connection.radio.id !== radio.id) return answer(UNKNOWN_LOCAL_ID);
    if (ranUeNgapId !== undefined && connection.ranUeNgapId !== ranUeNgapId)
      return answer({ choice: 'radioNetwork', value: 'inconsistent-remote-UE-NGAP-ID' }, connection);
    // The NGAP UE-TNLA binding (TS 23.502 4.2.7.2.1): the UE's signalling goes on the association of the
    // radio it was last received on.
    if (connection.radio !== radio) connections.move(connection, radio, connection.ranUeNgapId);
    return connection;
  }

  /**
   * A target's answer to Handover Request that no handover of this radio waits for: Error Indication
   * `unknown-local-UE-NGAP-ID`, and the ids are erroneous (10.6): a connection of the radio under them
   * (the AMF UE NGAP ID of an established connection, the RAN UE NGAP ID of another) ends locally.
   */
  function unknownTargetIds(radio: RadioLink, streamId: number, ids: MessageIds): void {
    sendErrorIndication(radio, streamId, UNKNOWN_LOCAL_ID, presentIds(ids));
    if (ids.amfUeNgapId !== undefined)
      releaseLocally(radio, ids.ranUeNgapId, connections.byAmfId(ids.amfUeNgapId));
  }

  function located(connection: UeConnection<Owner>, location: UserLocationInformation | undefined): void {
    const cell = location === undefined ? undefined : servingCellOf(location);
    if (cell !== undefined) connection.servingCell = cell;
    endpoint().heard(connection);
  }

  /** A PDU Session Resource Modify or Release Response: nothing more than its radio event. */
  function sessionResourcesAnswered(ids: MessageIds, _: NGAPPDU, radio: RadioLink, streamId: number): void {
    const connection = named(radio, streamId, ids.amfUeNgapId, ids.ranUeNgapId);
    if (connection !== undefined) endpoint().heard(connection);
  }

  // By message: each handler gets the message as its generated reader reads it (TS 38.413 10.3 was
  // judged, and answered, before dispatch).
  const handlers = handlerTable<NGAPPDU, typeof READERS, [RadioLink, number]>(READERS, {
    // TS 38.413 10.6 from the radio: it found the ids of our signalling for a UE erroneous and releases
    // its side, so the connection under them ends here too, without signalling. Any other Error
    // Indication is recorded only (8.2.7.2); none is answered.
    ErrorIndication: (message, _, radio) => {
      const value = message.cause?.choice === 'radioNetwork' ? message.cause.value : undefined;
      if (value !== 'unknown-local-UE-NGAP-ID' && value !== 'inconsistent-remote-UE-NGAP-ID') return;
      const { amfUeNgapId, ranUeNgapId } = message;
      releaseLocally(
        radio,
        ranUeNgapId,
        amfUeNgapId === undefined ? undefined : connections.byAmfId(amfUeNgapId),
      );
    },
    PathSwitchRequest: (message, _, radio, streamId) => {
      pathSwitch?.pathSwitchRequest(message, radio, streamId);
    },
    HandoverRequired: (message, _, radio, streamId) => {
      // A handover for a UE the AMF does not know on this radio: Handover Preparation Failure (8.4.1.3).
      const { amfUeNgapId, ranUeNgapId } = message;
      const connection = named(radio, streamId, amfUeNgapId, ranUeNgapId, (cause) =>
        radio.send(handoverPreparationFailure({ amfUeNgapId, ranUeNgapId }, cause), streamId),
      );
      if (connection === undefined) return;
      endpoint().heard(connection);
      if (handover !== undefined) return handover.required(connection, message);
      // Without the handover bound the preparation fails (TS 38.413 8.4.1.3).
      radio.send(
        handoverPreparationFailure(
          { amfUeNgapId: connection.amfUeNgapId, ranUeNgapId: connection.ranUeNgapId },
          { choice: 'radioNetwork', value: 'ho-failure-in-target-5GC-ngran-node-or-target-system' },
        ),
        connection.streamId,
      );
    },
    HandoverCancel: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      handover?.cancel(connection, message);
    },
    UplinkRANStatusTransfer: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      if (handover?.uplinkStatus(connection, message) !== true)
        sendErrorIndication(radio, streamId, NOT_IN_STATE, idsOf(connection));
    },
    HandoverRequestAcknowledge: (message, _, radio, streamId) => {
      if (handover?.acknowledged(message, radio) !== true) unknownTargetIds(radio, streamId, message);
    },
    HandoverFailure: (message, _, radio, streamId) => {
      if (handover?.failed(message, radio) !== true) unknownTargetIds(radio, streamId, message);
    },
    HandoverNotify: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      // The UE arrived: the connection now serves it, then it is seen in the target's cell.
      if (handover?.notified(connection) !== true)
        return sendErrorIndication(radio, streamId, NOT_IN_STATE, idsOf(connection));
      located(connection, message.userLocationInformation);
    },
    PDUSessionResourceSetupResponse: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      endpoint().sessionResources(connection, {
        setUp: message.pduSessionResourceSetupListSuRes ?? [],
        failed: message.pduSessionResourceFailedToSetupListSuRes ?? [],
      });
    },
    PDUSessionResourceModifyResponse: sessionResourcesAnswered,
    PDUSessionResourceNotify: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      located(connection, message.userLocationInformation);
      sessionIndications?.notified(connection, message);
    },
    SecondaryRATDataUsageReport: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      located(connection, message.userLocationInformation);
      // The list has criticality ignore (10.3.5): a report without it counts nothing.
      sessionIndications?.secondaryRatUsage(
        connection,
        message.pduSessionResourceSecondaryRatUsageList ?? [],
      );
    },
    PDUSessionResourceModifyIndication: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      located(connection, message.userLocationInformation);
      const items = message.pduSessionResourceModifyListModInd;
      // Unbound, no session has an SMF to modify it: each fails as unknown (8.2.5.2).
      const lists = sessionIndications?.modifyIndicated(connection, items) ?? failedSessions(items);
      radio.send(pduSessionResourceModifyConfirm(idsOf(connection), lists), connection.streamId);
    },
    PDUSessionResourceReleaseResponse: sessionResourcesAnswered,
    InitialUEMessage: (message, pdu, radio, streamId) => {
      const { ranUeNgapId } = message;
      // A RAN UE NGAP ID is unique per radio (9.3.3.2): one reused names a connection the radio dropped.
      const stale = connections.byRan(radio.id, ranUeNgapId);
      if (stale !== undefined) end(stale, 'replaced');
      const connection = connections.open(radio, ranUeNgapId);
      if (connection === undefined) {
        options.peerLog.warn(
          'ue_connection_limit',
          radio.id,
          { radio: radio.name, limit: options.maxConnections },
          'AMF: UE connection limit reached; Initial UE Message refused',
        );
        return sendErrorIndication(
          radio,
          streamId,
          { choice: 'misc', value: 'control-processing-overload' },
          { ranUeNgapId },
        );
      }
      located(connection, message.userLocationInformation);
      endpoint().initialUeMessage(connection, message.nasPdu, {
        fiveGSTmsi: message.fiveGSTmsi,
        pdu,
        rerouted: message.amfSetId !== undefined,
      });
    },
    UplinkNASTransport: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      located(connection, message.userLocationInformation);
      endpoint().uplinkNas(connection, message.nasPdu);
    },
    InitialContextSetupResponse: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      // PDU sessions set up with the context (a Service Request's reactivation) go to the SMF first.
      endpoint().sessionResources(connection, {
        setUp: message.pduSessionResourceSetupListCxtRes ?? [],
        failed: message.pduSessionResourceFailedToSetupListCxtRes ?? [],
      });
      endpoint().contextSetup(connection, true, undefined);
    },
    InitialContextSetupFailure: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      endpoint().contextSetup(connection, false, message.cause);
    },
    UEContextReleaseRequest: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      // TS 38.413 8.3.2: the AMF answers with UE Context Release Command, giving the radio's cause back.
      release(connection, message.cause ?? { choice: 'radioNetwork', value: 'unspecified' });
    },
    UEContextReleaseComplete: (message, _, radio, streamId) => {
      // The last message of a connection: for ids the AMF does not hold, a local release and no Error
      // Indication (TS 38.413 10.6).
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId, () => undefined);
      if (connection === undefined) return;
      located(connection, message.userLocationInformation);
      end(connection, 'released');
    },
    NASNonDeliveryIndication: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      // Cause has criticality ignore (9.2.5.5): a radio may leave it out.
      const cause = message.cause ?? { choice: 'radioNetwork', value: 'unspecified' };
      // A radio can send these at any rate: the limiter logs the first per radio and minute.
      options.peerLog.warn(
        'nas_not_delivered',
        radio.id,
        {
          radio: radio.name,
          amfUeNgapId: connection.amfUeNgapId,
          ranUeNgapId: connection.ranUeNgapId,
          imsi: endpoint().subscriberOf(connection),
          cause: causeText(cause),
        },
        'AMF: the radio could not deliver a NAS PDU',
      );
      endpoint().nasNotDelivered(connection, message.nasPdu ?? new Uint8Array(), cause);
    },
    UERadioCapabilityInfoIndication: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      // UE Radio Capability has criticality ignore (9.2.9.1): without it there is nothing to keep.
      const { ueRadioCapability } = message;
      if (ueRadioCapability !== undefined)
        radioCapability?.indicated(connection, { ...message, ueRadioCapability });
    },
    RRCInactiveTransitionReport: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      located(connection, message.userLocationInformation);
      // 8.3.5.2: the UE's RRC state at the radio; an unknown extension value leaves it as it was.
      if (message.rrcState === 'inactive' || message.rrcState === 'connected')
        connection.rrcState = message.rrcState;
    },
    UEContextModificationResponse: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      located(connection, message.userLocationInformation);
      // 10.4: an answer to no request of the AMF.
      if (contextModification?.answered(connection, undefined) !== true)
        sendErrorIndication(radio, streamId, NOT_IN_STATE, idsOf(connection));
    },
    UEContextModificationFailure: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      // Cause has criticality ignore (9.2.2.9): a radio may leave it out.
      const cause = message.cause ?? { choice: 'radioNetwork', value: 'unspecified' };
      if (contextModification?.answered(connection, cause) !== true)
        sendErrorIndication(radio, streamId, NOT_IN_STATE, idsOf(connection));
    },
    UERadioCapabilityCheckResponse: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      // 10.4: an answer to no check of the AMF.
      if (radioCapabilityCheck?.answered(connection, message.imsVoiceSupportIndicator) !== true)
        sendErrorIndication(radio, streamId, NOT_IN_STATE, idsOf(connection));
    },
    LocationReport: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      located(connection, message.userLocationInformation);
      location?.locationReported(connection, true);
    },
    LocationReportingFailureIndication: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      location?.locationReported(connection, false);
    },
    UplinkUEAssociatedNRPPaTransport: (message, _, radio, streamId) => {
      const connection = named(radio, streamId, message.amfUeNgapId, message.ranUeNgapId);
      if (connection === undefined) return;
      endpoint().heard(connection);
      location?.nrppa(connection, message.routingId, message.nrppaPdu);
    },
  });

  /**
   * UE Context Release Command (TS 38.413 8.3.3). The connection stays until UE Context Release
   * Complete, or `releaseTimeoutMs` without it.
   */
  function release(connection: UeConnection<Owner>, cause: Cause): void {
    if (connection.phase === 'releasing') return;
    connection.phase = 'releasing';
    connection.radio.send(
      ueContextReleaseCommand(
        { amfUeNgapId: connection.amfUeNgapId, ranUeNgapId: connection.ranUeNgapId },
        cause,
      ),
      connection.streamId,
    );
    releaseTimers.set(
      connection,
      options.timers.after(options.releaseTimeoutMs, () => {
        releaseTimers.delete(connection);
        end(connection, 'released');
      }),
    );
  }

  const signalling: UeSignalling = {
    handlers,
    reset(radio: RadioLink, which: 'all' | UEassociatedLogicalNGconnectionList) {
      if (which === 'all') {
        for (const connection of connections.ofRadio(radio.id)) end(connection, 'reset');
        return [];
      }
      // TS 38.413 8.7.4.2.2: each listed connection the AMF knows is released and listed back.
      for (const item of which) {
        const connection =
          item.aMFUENGAPID !== undefined
            ? connections.byAmfId(item.aMFUENGAPID)
            : item.rANUENGAPID === undefined
              ? undefined
              : connections.byRan(radio.id, item.rANUENGAPID);
        if (connection !== undefined && connection.radio.id === radio.id) end(connection, 'reset');
      }
      return which;
    },
    radioReady(radio: RadioLink) {
      radios.set(radio.id, radio);
    },
    radioGone(radio: RadioLink) {
      radios.delete(radio.id);
      for (const connection of connections.ofRadio(radio.id)) end(connection, 'radio-lost');
    },
    radioRebound(from: RadioLink, to: RadioLink) {
      for (const connection of connections.ofRadio(from.id))
        if (connection.radio === from) connections.move(connection, to, connection.ranUeNgapId);
    },
    subscriberOf(radioId, amfUeNgapId, ranUeNgapId) {
      const connection =
        amfUeNgapId !== undefined
          ? connections.byAmfId(amfUeNgapId)
          : ranUeNgapId === undefined
            ? undefined
            : connections.byRan(radioId, ranUeNgapId);
      if (connection === undefined || connection.radio.id !== radioId || nas === undefined) return undefined;
      return nas.subscriberOf(connection);
    },
  };

  return {
    signalling,

    bind(endpointToBind: NasEndpoint<Owner>): void {
      nas = endpointToBind;
    },

    /** Where Location Reports and uplink NRPPa go; without it they only update the serving cell. */
    bindLocation(endpointToBind: LocationEndpoint<Owner>): void {
      location = endpointToBind;
    },

    /** Where UE radio capabilities are kept; without it they are not, and Initial Context Setup has none. */
    bindRadioCapability(endpointToBind: RadioCapabilityEndpoint<Owner>): void {
      radioCapability = endpointToBind;
    },

    /** Where UE Context Modification answers go; without it they get Error Indication (10.4). */
    bindContextModification(endpointToBind: ContextModificationEndpoint<Owner>): void {
      contextModification = endpointToBind;
    },

    /** Where UE Radio Capability Check answers go; without it they get Error Indication (10.4). */
    bindRadioCapabilityCheck(endpointToBind: RadioCapabilityCheckEndpoint<Owner>): void {
      radioCapabilityCheck = endpointToBind;
    },

    /** Where PDU Session Resource Notify and Modify Indication go; without it no session is modified. */
    bindSessionIndications(endpointToBind: SessionIndicationEndpoint<Owner>): void {
      sessionIndications = endpointToBind;
    },

    /** Where Path Switch Requests go; without it none is answered. */
    bindPathSwitch(endpointToBind: PathSwitchEndpoint): void {
      pathSwitch = endpointToBind;
    },

    /** Where N2 handover messages go; without it Handover Required fails and the others are refused. */
    bindHandover(endpointToBind: HandoverEndpoint<Owner>): void {
      handover = endpointToBind;
    },

    /** A radio that completed NG Setup, by its id (a handover's target). */
    radio: (radioId: string): RadioLink | undefined => radios.get(radioId),

    /** An AMF UE NGAP ID for a handover target's connection (connections.reserve); undefined at the limit. */
    reserveConnection: (): number | undefined => connections.reserve(),

    unreserveConnection: (amfUeNgapId: number): void => connections.unreserve(amfUeNgapId),

    /**
     * The target's connection once Handover Request Acknowledge names its RAN UE NGAP ID (TS 38.413
     * 8.4.2.2), under the reserved AMF UE NGAP ID; a connection the target had under the same RAN UE NGAP
     * ID is stale (9.3.3.2) and ends. Undefined when the id was not reserved.
     */
    openHandoverTarget(
      reservedId: number,
      radio: RadioLink,
      ranUeNgapId: number,
    ): UeConnection<Owner> | undefined {
      const stale = connections.byRan(radio.id, ranUeNgapId);
      if (stale !== undefined) end(stale, 'replaced');
      return connections.open(radio, ranUeNgapId, reservedId);
    },

    /** The connection with this AMF UE NGAP ID, on whichever radio (Path Switch names the source's). */
    connectionByAmfId: (amfUeNgapId: number): UeConnection<Owner> | undefined =>
      connections.byAmfId(amfUeNgapId),

    /**
     * Path Switch Request Acknowledge sent: the connection now runs through the target `radio` under its
     * RAN UE NGAP ID (TS 38.413 8.4.4.2), with the serving cell of the request's User Location
     * Information. A connection the target had under the same id is stale (9.3.3.2) and ends. False
     * when the connection is gone.
     */
    switchPath(
      connection: UeConnection<Owner>,
      radio: RadioLink,
      ranUeNgapId: number,
      userLocation: UserLocationInformation | undefined,
    ): boolean {
      const stale = connections.byRan(radio.id, ranUeNgapId);
      if (stale !== undefined && stale !== connection) end(stale, 'replaced');
      if (!connections.move(connection, radio, ranUeNgapId)) return false;
      located(connection, userLocation);
      return true;
    },

    /** Location Reporting Control, direct (TS 38.413 8.12.1); false when the transport refused it. */
    requestLocationReport(connection: UeConnection<Owner>): boolean {
      return connection.radio.send(
        locationReportingControl({
          amfUeNgapId: connection.amfUeNgapId,
          ranUeNgapId: connection.ranUeNgapId,
        }),
        connection.streamId,
      );
    },

    /** Downlink UE Associated NRPPa Transport (TS 38.413 8.13.1); false when the transport refused it. */
    sendNrppa(connection: UeConnection<Owner>, routingId: Uint8Array, nrppaPdu: Uint8Array): boolean {
      return connection.radio.send(
        downlinkUeAssociatedNrppaTransport(
          { amfUeNgapId: connection.amfUeNgapId, ranUeNgapId: connection.ranUeNgapId },
          routingId,
          nrppaPdu,
        ),
        connection.streamId,
      );
    },

    /**
     * UE Context Modification Request (TS 38.413 8.3.4) with a new UE-AMBR or RRC INACTIVE assistance
     * information (9.2.2.7); false when the transport refused it.
     */
    modifyContext(connection: UeConnection<Owner>, ies: ContextModificationIes): boolean {
      return connection.radio.send(
        ueContextModificationRequest(
          { amfUeNgapId: connection.amfUeNgapId, ranUeNgapId: connection.ranUeNgapId },
          ies,
        ),
        connection.streamId,
      );
    },

    /**
     * UE Radio Capability Check Request (TS 38.413 8.14.2) with the UE Radio Capability the AMF holds,
     * if any; false when the transport refused it.
     */
    checkRadioCapability(connection: UeConnection<Owner>, capability: Uint8Array | undefined): boolean {
      return connection.radio.send(
        ueRadioCapabilityCheckRequest(
          { amfUeNgapId: connection.amfUeNgapId, ranUeNgapId: connection.ranUeNgapId },
          capability,
        ),
        connection.streamId,
      );
    },

    /**
     * Reroute NAS Request (TS 38.413 8.6.5): the radio sends the connection's Initial UE Message `initial`
     * to another AMF of the set `amfSetId`. The connection ends here at once: the radio never heard its
     * AMF UE NGAP ID, so there is nothing to release.
     */
    reroute(connection: UeConnection<Owner>, initial: NGAPPDU, amfSetId: number): void {
      connection.radio.send(
        rerouteNasRequest(connection.ranUeNgapId, initial, amfSetId),
        connection.streamId,
      );
      end(connection, 'rerouted');
    },

    /** Downlink NAS Transport (TS 38.413 8.6.2); false when the transport refused it. */
    sendNas(connection: UeConnection<Owner>, nasPdu: Uint8Array): boolean {
      return connection.radio.send(
        downlinkNasTransport(
          { amfUeNgapId: connection.amfUeNgapId, ranUeNgapId: connection.ranUeNgapId },
          nasPdu,
        ),
        connection.streamId,
      );
    },

    /**
     * Initial Context Setup Request (TS 38.413 8.3.1), with the UE radio capability the AMF holds for
     * the UE (9.2.2.1: the radio then need not ask the UE for it).
     */
    setUpContext(connection: UeConnection<Owner>, ies: InitialContextSetupIes): boolean {
      const sent = connection.radio.send(
        initialContextSetupRequest(
          { amfUeNgapId: connection.amfUeNgapId, ranUeNgapId: connection.ranUeNgapId },
          ies,
          radioCapability?.of(connection),
        ),
        connection.streamId,
      );
      // A fresh KgNB starts the NH chain over at NCC 0 (TS 33.501 6.9.2.1.1).
      if (sent) connection.accessKeys = initialNhChain(ies.securityKey.bytes);
      return sent;
    },

    release,

    /**
     * Paging (TS 38.413 8.5.1), a non-UE-associated message (stream 0, TS 38.412 7), through the radios
     * serving a tracking area of the TAI List for Paging (the UE's registration area): the NG-RAN node
     * pages in the cells of those TAs, so no other radio can reach the UE. `forPaging`: the UE Radio
     * Capability for Paging the AMF keeps for the UE (UE Radio Capability Info Indication), if any. How
     * many radios were asked.
     */
    page(fiveGSTmsi: FiveGSTMSI, area: PagingArea, forPaging?: UERadioCapabilityForPaging): number {
      let sent = 0;
      const pdu = paging(fiveGSTmsi, pagingTais(area), forPaging);
      for (const radio of radios.values()) if (servesArea(radio, area) && radio.send(pdu, 0)) sent += 1;
      return sent;
    },

    connections: (): number => connections.size(),
  };
}

export type UeNgap<Owner> = ReturnType<typeof createUeNgap<Owner>>;
