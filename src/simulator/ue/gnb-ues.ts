import type {
  Cause,
  CoreNetworkAssistanceInformationForInactive,
  IMSVoiceSupportIndicator,
  NGAPPDU,
  RRCEstablishmentCause,
} from '../../network/ngap/generated/types.ts';
import type { NgapExchange, SimulatedGnb, UeSignalling } from '../gnb.ts';
import { causeText, type ErrorIndicationReading } from '../amf-messages.ts';
import { readN2HandoverAnswer } from '../gnb-handover-n2-messages.ts';
import { errorIndication, type ResetScope } from '../gnb-messages.ts';
import type { FiveGSTmsi, ServingCell } from './ran-ue-messages.ts';
import {
  initialContextSetupFailure,
  initialContextSetupResponse,
  initialUeMessage,
  nasNonDeliveryIndication,
  readAmfUeMessage,
  rrcInactiveTransitionReport,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
  ueRadioCapabilityInfoIndication,
  uplinkNasTransport,
} from './ran-ue-messages.ts';
import { GnbSessions, type UeIds } from './gnb-sessions.ts';
import { answerContextModification, type ContextModification } from './gnb-context-modification.ts';
import { answerRadioCapabilityCheck, type RadioCapabilityCheck } from './gnb-radio-capability-check.ts';
import { readReroute, type Reroute } from './gnb-reroute.ts';
import { bits } from '../../network/ngap/ngap-values.ts';
import { refuseStandaloneSetup, type RefusedSetup } from './gnb-strict.ts';
import { ueNgapIdsOf } from '../../network/ngap/ue-ngap-ids.ts';
import type { RadioUe, RrcConnection, UeRadio } from './ue-radio.ts';
import { admits, type OverloadRejection } from '../gnb-overload.ts';

/**
 * The UE side of a simulated gNB (TS 38.413 8.2, 8.3, 8.5, 8.6): one UE-associated logical NG-connection
 * per connected UE, identified by the RAN UE NGAP ID this node allocates and the AMF UE NGAP ID the AMF
 * gives in its first answer. It sends Initial UE Message and Uplink NAS Transport for its UEs, delivers
 * Downlink NAS Transport, answers Initial Context Setup and UE Context Release, asks for a release on
 * demand, and pages the UEs camped on it. Plugs into the node's UE seam (`attachUes`).
 */

/** Why a UE-associated message from the AMF was not acted on. */
interface IgnoredUeMessage {
  messageType: string;
  reason: 'unknown-ran-ue-ngap-id' | 'missing-ids' | 'not-for-ues';
}

/** A UE's connection as the node's location side sees it. */
export interface UeLink {
  readonly ranUeNgapId: number;
  readonly amfUeNgapId: number | undefined;
  readonly ue: RadioUe;
  /** The cell serving the UE now (the node's cell unless moved by `changeCell`). */
  readonly servingCell: ServingCell;
  /**
   * Core Network Assistance Information for RRC INACTIVE (TS 38.413 9.3.1.15) the AMF last gave for the
   * UE (Initial Context Setup, UE Context Modification), if any.
   */
  readonly inactiveAssistance: CoreNetworkAssistanceInformationForInactive | undefined;
}

/** The node's location side (gnb-location.ts): what it is offered and told. */
export interface UeLocationService {
  /** A UE-associated PDU the UE side does not act on; true when the location side handled it. */
  receive(pdu: NGAPPDU): boolean;
  /** A connected UE moved to another cell of this node. */
  cellChanged(link: UeLink): void;
  /** The UE's connection is gone. */
  released(link: UeLink): void;
}

/** An RRC connection and its UE-associated logical NG-connection. */
class Connection implements RrcConnection, UeLink {
  amfUeNgapId: number | undefined;
  open = true;
  servingCell: ServingCell;
  /** The node holds the UE's context (Initial Context Setup done, or it came by handover). */
  contextSetUp = false;
  inactiveAssistance: CoreNetworkAssistanceInformationForInactive | undefined;
  /** The AMF asked for RRC Inactive Transition Reports (TS 38.413 8.3.5.1) in Initial Context Setup. */
  rrcReportsAsked = false;
  /** Where the UE's signalling goes since the AMF rerouted its Initial UE Message (8.6.5). */
  rerouted: RrcConnection | undefined;

  /** `cell` and `ranUeNgapId` change only by an Xn handover (`GnbUes.handOver`). */
  constructor(
    public cell: GnbUes,
    public ranUeNgapId: number,
    readonly ue: RadioUe,
  ) {
    this.servingCell = cell.cell;
  }

  uplink(nasPdu: Uint8Array): boolean {
    if (this.rerouted !== undefined) return this.rerouted.uplink(nasPdu);
    if (!this.open || this.amfUeNgapId === undefined) return false;
    return this.cell.sendForUe(
      uplinkNasTransport(
        { amfUeNgapId: this.amfUeNgapId, ranUeNgapId: this.ranUeNgapId },
        nasPdu,
        this.servingCell,
      ),
    );
  }
}

/** The Error Indication causes of TS 38.413 10.6 (ids erroneous) after which both nodes release locally. */
const ERRONEOUS_ID_CAUSES: ReadonlySet<string> = new Set([
  'radioNetwork/unknown-local-UE-NGAP-ID',
  'radioNetwork/inconsistent-remote-UE-NGAP-ID',
]);

/** RAN UE NGAP ID is 0..2^32-1 (TS 38.413 9.3.3.2). */
const RAN_UE_NGAP_ID_MODULUS = 2 ** 32;

export class GnbUes implements UeSignalling, UeRadio {
  readonly #gnb: SimulatedGnb;
  readonly cell: ServingCell;
  readonly #connections = new Map<number, Connection>();
  readonly #camped = new Set<RadioUe>();
  #nextRanUeNgapId = 1;
  #location: UeLocationService | undefined;
  readonly #handover: ((pdu: NGAPPDU) => boolean)[] = [];
  readonly #beforeRelease: ((amfUeNgapId: number) => void)[] = [];
  /** Messages the node did not act on, for tests. */
  readonly ignored: IgnoredUeMessage[] = [];
  /** Standalone PDU Session Resource Setup Requests a strict node refused (gnb-strict.ts). */
  readonly refusedSetups: RefusedSetup[] = [];
  /** UE Context Modification Requests received, in order, with what the node did (8.3.4). */
  readonly contextModifications: ContextModification[] = [];
  /** RRC establishments rejected while the AMF is overloaded (TS 38.413 8.7.7.2), in order. */
  readonly overloadRejections: OverloadRejection[] = [];
  /** Reroute NAS Requests acted on, in order (8.6.5). */
  readonly reroutes: Reroute[] = [];
  /**
   * Where a rerouted UE's Initial UE Message goes (8.6.5.2: an AMF of the AMF set named): the node's
   * connection there, or undefined when it has none (gnb-amfs.ts sets it). Without it, or when it gives
   * none, the UE's RRC connection is released.
   */
  onReroute: ((ue: RadioUe, reroute: Reroute) => RrcConnection | undefined) | undefined;
  /** UE Radio Capability Check Requests received, in order, with the answer (8.14.2). */
  readonly radioCapabilityChecks: RadioCapabilityCheck[] = [];
  /** What the node answers a UE Radio Capability Check with (IMS Voice Support Indicator), or `silent`. */
  imsVoiceSupport: IMSVoiceSupportIndicator | 'silent' = 'supported';
  /**
   * UEs whose next Downlink NAS Transport the node does not deliver, with the cause it reports in NAS
   * Non Delivery Indication (TS 38.413 8.6.4; e.g. an Xn handover under way). Set by `withholdNextNas`.
   */
  readonly #withheld = new Map<RadioUe, Cause>();
  /** Connections released locally after an Error Indication about their ids (TS 38.413 10.6), in order. */
  readonly localReleases: { ranUeNgapId: number; cause: string }[] = [];
  /** NAS Non Delivery Indications sent, in order (8.6.4). */
  readonly nonDeliveries: { ranUeNgapId: number; cause: Cause }[] = [];
  /** When set, UE Context Modification Requests are refused with this cause (8.3.4.3). */
  refuseContextModification: Cause | undefined;
  /**
   * When set, UE Context Modification Requests wait unanswered until `answerHeldContextModifications`
   * (a node slow to answer, e.g. busy with the intra-cell handover of a key change).
   */
  holdContextModifications = false;
  readonly #heldContextModifications: NGAPPDU[] = [];
  /** The UEs' PDU session resources and their GTP-U tunnels (gnb-sessions.ts). */
  readonly sessions: GnbSessions;

  /**
   * `n3Address`: where this node receives downlink GTP-U (127.0.0.1 unless given); `teids`: the node's
   * downlink TEID allocator, when several of these share that address (GnbSessions).
   */
  constructor(
    gnb: SimulatedGnb,
    cell: ServingCell,
    options: { n3Address?: string; teids?: () => number } = {},
  ) {
    this.#gnb = gnb;
    this.cell = cell;
    gnb.attachUes(this);
    gnb.on((event) => {
      if (event.type === 'error-indication') return this.#erroneousIds(event.report);
      // Handover Preparation Failure stands for the Error Indication of a Handover Required (10.6).
      // Only that outcome is read: reading every PDU decoded each Handover Command's transfers twice.
      if (event.type !== 'received') return;
      const { pdu } = event.exchange;
      if (pdu?.choice !== 'unsuccessfulOutcome' || pdu.value.name !== 'HandoverPreparation') return;
      const answer = readN2HandoverAnswer(pdu);
      if (answer?.kind === 'preparation-failure')
        this.#erroneousIds({ ...answer, cause: causeText(answer.cause) });
    });
    this.sessions = new GnbSessions({
      n3Address: options.n3Address ?? '127.0.0.1',
      send: (pdu) => this.sendForUe(pdu),
      ...(options.teids === undefined ? {} : { teids: options.teids }),
    });
  }

  get name(): string {
    return this.#gnb.config.name ?? 'gnb';
  }

  /** UEs with an RRC connection through this node. */
  get connected(): number {
    return this.#connections.size;
  }

  establish(
    ue: RadioUe,
    nasPdu: Uint8Array,
    cause: RRCEstablishmentCause,
    sTmsi: FiveGSTmsi | undefined,
    rerouted?: Pick<Reroute, 'amfSetId' | 'allowedNssai'>,
  ): RrcConnection | undefined {
    // The AMF asked to reject establishments of this kind (Overload Start): RRC Reject, no Initial UE Message.
    const overload = this.#gnb.overload;
    if (!admits(overload, cause)) {
      this.overloadRejections.push({ cause, action: overload?.action });
      return undefined;
    }
    const ranUeNgapId = this.#allocate();
    const connection = new Connection(this, ranUeNgapId, ue);
    const sent = this.sendForUe(
      initialUeMessage({
        ranUeNgapId,
        nasPdu,
        cell: this.cell,
        cause,
        ...(sTmsi === undefined ? {} : { sTmsi }),
        ...(rerouted === undefined
          ? {}
          : {
              rerouted: {
                amfSetId: bits(rerouted.amfSetId, 10),
                ...(rerouted.allowedNssai === undefined ? {} : { allowedNssai: rerouted.allowedNssai }),
              },
            }),
      }),
    );
    if (!sent) return undefined;
    this.#connections.set(ranUeNgapId, connection);
    return connection;
  }

  camp(ue: RadioUe): void {
    this.#camped.add(ue);
  }

  leave(ue: RadioUe): void {
    this.#camped.delete(ue);
  }

  /**
   * UE Context Release Request (TS 38.413 8.3.2): the radio asks the AMF to release the UE's context, by
   * default for user inactivity. False when the UE has no NG connection here.
   */
  /** Whether the UE has a connection through this node now. */
  holds(ue: RadioUe): boolean {
    return [...this.#connections.values()].some((c) => c.ue === ue);
  }

  requestRelease(ue: RadioUe, cause: Cause = { choice: 'radioNetwork', value: 'user-inactivity' }): boolean {
    const found = [...this.#connections.values()].find((c) => c.ue === ue);
    if (found?.amfUeNgapId === undefined) return false;
    return this.sendForUe(
      ueContextReleaseRequest({ amfUeNgapId: found.amfUeNgapId, ranUeNgapId: found.ranUeNgapId }, cause),
    );
  }

  /**
   * RRC Inactive Transition Report (TS 38.413 8.3.5): the UE moved to RRC `state` (RRC_INACTIVE, or back
   * to RRC_CONNECTED). Sent only when the AMF asked for reports (8.3.5.1); false otherwise, or when the UE
   * has no NG connection here.
   */
  reportRrcState(ue: RadioUe, state: 'inactive' | 'connected'): boolean {
    const found = [...this.#connections.values()].find((c) => c.ue === ue);
    if (found?.amfUeNgapId === undefined || !found.rrcReportsAsked) return false;
    return this.sendForUe(
      rrcInactiveTransitionReport(
        { amfUeNgapId: found.amfUeNgapId, ranUeNgapId: found.ranUeNgapId },
        state,
        found.servingCell,
      ),
    );
  }

  /**
   * UE Radio Capability Info Indication (TS 38.413 8.14.1): the UE's radio capability (opaque RRC bytes)
   * for the AMF to keep, with the UE Radio Capability for Paging of NR (9.3.1.68; the RRC
   * UERadioPagingInformation) when given. False when the UE has no NG connection here.
   */
  indicateRadioCapability(ue: RadioUe, capability: Uint8Array, forPagingOfNr?: Uint8Array): boolean {
    const found = [...this.#connections.values()].find((c) => c.ue === ue);
    if (found?.amfUeNgapId === undefined) return false;
    return this.sendForUe(
      ueRadioCapabilityInfoIndication(
        { amfUeNgapId: found.amfUeNgapId, ranUeNgapId: found.ranUeNgapId },
        capability,
        forPagingOfNr,
      ),
    );
  }

  /**
   * Error Indication (TS 38.413 8.2.7) with the UE's NGAP ids and `cause`, as a node that found an
   * error in the AMF's signalling for the UE sends it. With a cause of 10.6 (the ids erroneous) the node
   * releases its side locally too, as both nodes do. False when the UE has no NG connection here.
   */
  indicateError(ue: RadioUe, cause: Cause): boolean {
    const found = [...this.#connections.values()].find((c) => c.ue === ue);
    if (found?.amfUeNgapId === undefined) return false;
    const ids = { amfUeNgapId: found.amfUeNgapId, ranUeNgapId: found.ranUeNgapId };
    if (!this.sendForUe(errorIndication({ ...ids, cause }))) return false;
    this.#erroneousIds({ ...ids, cause: causeText(cause) });
    return true;
  }

  /**
   * A UE-associated message built by `build` with the UE's NGAP ids (e.g. gnb-session-indications.ts).
   * False when the UE has no NG connection here.
   */
  sendAboutUe(ue: RadioUe, build: (ids: UeIds) => NGAPPDU): boolean {
    const found = [...this.#connections.values()].find((c) => c.ue === ue);
    if (found?.amfUeNgapId === undefined) return false;
    return this.sendForUe(build({ amfUeNgapId: found.amfUeNgapId, ranUeNgapId: found.ranUeNgapId }));
  }

  /** Hands the location procedures (Location Reporting Control, NRPPa) to `service`. */
  attachLocation(service: UeLocationService): void {
    this.#location = service;
  }

  /**
   * Hands the handovers' messages from the AMF (Path Switch, gnb-handover.ts; N2 handover,
   * gnb-handover-n2.ts) to `receive`, which says whether it took the PDU.
   */
  /** Answers the UE Context Modification Requests held so far, in order, and holds no more. */
  answerHeldContextModifications(): void {
    this.holdContextModifications = false;
    for (const pdu of this.#heldContextModifications.splice(0)) this.#contextModification(pdu);
  }

  /** A UE Context Modification Request answered (TS 38.413 8.3.4); false for any other PDU. */
  #contextModification(pdu: NGAPPDU): boolean {
    const modified = answerContextModification(
      pdu,
      (ranUeNgapId) => this.#connections.has(ranUeNgapId),
      this.refuseContextModification,
    );
    if (modified === undefined) return false;
    const { modification } = modified;
    const held = this.#connections.get(modification.ranUeNgapId);
    // 8.3.4.2: the node replaces the assistance information it held with the one received.
    if (held !== undefined && modification.refused === undefined && modification.inactiveAssistance)
      held.inactiveAssistance = modification.inactiveAssistance;
    // 8.3.4.2: a new Security Key is taken into use (TS 33.501 6.9.4.4): in a real node by an
    // intra-cell handover that has the UE change its key set too.
    if (held !== undefined && modification.refused === undefined && modification.securityKey)
      held.ue.keyChanged?.(modification.securityKey);
    this.contextModifications.push(modification);
    this.sendForUe(modified.answer);
    return true;
  }

  attachHandover(receive: (pdu: NGAPPDU) => boolean): void {
    this.#handover.push(receive);
  }

  /** `listener` hears each UE Context Release Command's AMF UE NGAP ID before its Complete is sent. */
  beforeReleaseComplete(listener: (amfUeNgapId: number) => void): void {
    this.#beforeRelease.push(listener);
  }

  /**
   * Xn handover (TS 38.300 9.2.3.2.1): the UE's connection moves to `target`, in the target's cell, under
   * a RAN UE NGAP ID of the target's (the AMF UE NGAP ID stays); here its tunnels and location state end
   * without NGAP (UE Context Release over Xn) and without telling the UE, whose RRC connection goes on
   * through the target. `detached` runs while the UE is between the cells (reconfiguration with sync):
   * the connection is not open then. Undefined when the UE has no connection here. `ids`: those the
   * target gave the UE in an N2 handover (its RAN UE NGAP ID, and the AMF UE NGAP ID of its connection,
   * TS 38.413 8.4.2); an Xn handover takes a RAN UE NGAP ID of the target's and keeps the AMF's.
   */
  handOver(
    ue: RadioUe,
    target: GnbUes,
    detached?: () => void,
    ids?: { ranUeNgapId: number; amfUeNgapId: number },
  ): UeLink | undefined {
    const found = [...this.#connections.values()].find((c) => c.ue === ue);
    if (found === undefined) return undefined;
    this.#connections.delete(found.ranUeNgapId);
    this.#location?.released(found);
    this.sessions.connectionReleased(found.ranUeNgapId);
    found.open = false;
    detached?.();
    found.cell = target;
    found.ranUeNgapId = ids?.ranUeNgapId ?? target.#allocate();
    if (ids !== undefined) found.amfUeNgapId = ids.amfUeNgapId;
    found.servingCell = target.cell;
    // The UE's context comes with the handover (Xn, or Handover Request over N2).
    found.contextSetUp = true;
    found.open = true;
    target.#connections.set(found.ranUeNgapId, found);
    return found;
  }

  /** A RAN UE NGAP ID for a UE coming by N2 handover (Handover Request Acknowledge, TS 38.413 8.4.2.2). */
  allocateForHandover(): number {
    return this.#allocate();
  }

  /** The UE connection with this RAN UE NGAP ID. */
  link(ranUeNgapId: number): UeLink | undefined {
    return this.#connections.get(ranUeNgapId);
  }

  /**
   * A handover of a connected UE between two cells of this node: an intra-node handover has no NGAP of its
   * own, so the AMF learns the new cell from the next message with User Location Information or from a
   * Location Report. False when the UE has no connection here.
   */
  changeCell(ue: RadioUe, cell: ServingCell): boolean {
    const found = [...this.#connections.values()].find((c) => c.ue === ue);
    if (found === undefined) return false;
    found.servingCell = cell;
    this.#location?.cellChanged(found);
    return true;
  }

  /**
   * The next downlink NAS message for `ue` (Downlink NAS Transport) is not delivered: the node sends it
   * back in NAS Non Delivery Indication with `cause` (TS 38.413 8.6.4).
   */
  withholdNextNas(ue: RadioUe, cause: Cause): void {
    this.#withheld.set(ue, cause);
  }

  /** @internal Sends a UE-associated PDU on its UE's stream (TS 38.412 7, `SimulatedGnb.ueStream`). */
  sendForUe(pdu: NGAPPDU): boolean {
    const ranUeNgapId = ueNgapIdsOf(pdu).ranUeNgapId ?? 0;
    return this.#gnb.send(pdu, this.#gnb.ueStream(ranUeNgapId)).ok;
  }

  // ----- the node's UE seam -----

  receive(exchange: NgapExchange & { pdu: NGAPPDU }): void {
    const message = readAmfUeMessage(exchange.pdu);
    if (message === undefined) {
      this.ignored.push({ messageType: exchange.messageType, reason: 'missing-ids' });
      return;
    }
    switch (message.kind) {
      case 'downlink-nas': {
        const connection = this.#bind(message.ranUeNgapId, message.amfUeNgapId, exchange.messageType);
        if (connection === undefined) return;
        const withheld = this.#withheld.get(connection.ue);
        if (withheld === undefined) return connection.ue.downlink(message.nasPdu);
        this.#withheld.delete(connection.ue);
        const ids = { amfUeNgapId: message.amfUeNgapId, ranUeNgapId: message.ranUeNgapId };
        this.sendForUe(nasNonDeliveryIndication(ids, message.nasPdu, withheld));
        this.nonDeliveries.push({ ranUeNgapId: message.ranUeNgapId, cause: withheld });
        return;
      }
      case 'initial-context-setup': {
        const connection = this.#bind(message.ranUeNgapId, message.amfUeNgapId, exchange.messageType);
        if (connection === undefined) return;
        const ids = { amfUeNgapId: message.amfUeNgapId, ranUeNgapId: message.ranUeNgapId };
        if (connection.ue.failInitialContextSetup) {
          // TS 38.413 8.3.1.3: the NAS-PDU is not delivered when the setup fails.
          this.sendForUe(initialContextSetupFailure(ids, { choice: 'radioNetwork', value: 'unspecified' }));
          return;
        }
        connection.contextSetUp = true;
        connection.inactiveAssistance = message.inactiveAssistance;
        connection.rrcReportsAsked = message.rrcReportRequest === 'subsequent-state-transition-report';
        connection.ue.contextSetUp(message.securityKey);
        // TS 38.413 8.3.1.2: the NAS-PDU goes to the UE; the response follows the AS security setup,
        // with the PDU sessions set up with the context.
        if (message.nasPdu !== undefined) connection.ue.downlink(message.nasPdu);
        const setUp = this.sessions.setUpWithContext(connection.ue, ids, message.sessions);
        this.sendForUe(initialContextSetupResponse(ids, setUp));
        return;
      }
      case 'ue-context-release': {
        const connection =
          message.ranUeNgapId === undefined
            ? [...this.#connections.values()].find((c) => c.amfUeNgapId === message.amfUeNgapId)
            : this.#connections.get(message.ranUeNgapId);
        for (const listener of this.#beforeRelease) listener(message.amfUeNgapId);
        // TS 38.413 8.3.3.2: the NG-RAN node releases what it has and always answers Complete.
        const ranUeNgapId = connection?.ranUeNgapId ?? message.ranUeNgapId;
        if (ranUeNgapId !== undefined) {
          this.sendForUe(
            ueContextReleaseComplete(
              { amfUeNgapId: message.amfUeNgapId, ranUeNgapId },
              connection?.servingCell ?? this.cell,
            ),
          );
        }
        if (connection !== undefined) this.#release(connection);
        // A handover target's context for a UE that never arrived: its tunnels go.
        else if (ranUeNgapId !== undefined) this.sessions.connectionReleased(ranUeNgapId);
        return;
      }
      case 'paging': {
        const { sTmsi } = message;
        if (sTmsi === undefined) return;
        for (const ue of [...this.#camped]) {
          const own = ue.sTmsi;
          if (
            own !== undefined &&
            own.tmsi === sTmsi.tmsi &&
            own.amfSetId === sTmsi.amfSetId &&
            own.amfPointer === sTmsi.amfPointer
          )
            ue.paged();
        }
        return;
      }
      case 'other': {
        const pdu = exchange.pdu;
        if (
          this.holdContextModifications &&
          pdu.choice === 'initiatingMessage' &&
          pdu.value.name === 'UEContextModification'
        ) {
          this.#heldContextModifications.push(pdu);
          return;
        }
        if (this.#contextModification(pdu)) return;
        const reroute = readReroute(exchange.pdu);
        if (reroute !== undefined) return this.#reroute(reroute);
        const checked = answerRadioCapabilityCheck(
          exchange.pdu,
          (ranUeNgapId) => this.#connections.has(ranUeNgapId),
          this.imsVoiceSupport,
        );
        if (checked !== undefined) {
          this.radioCapabilityChecks.push(checked.check);
          if (checked.answer !== undefined) this.sendForUe(checked.answer);
          return;
        }
        if (this.#location?.receive(exchange.pdu) === true) return;
        if (this.#handover.some((receive) => receive(exchange.pdu))) return;
        if (this.#refusedAsStrict(exchange.pdu)) return;
        if (
          this.sessions.receive(
            exchange.pdu,
            (ids, messageType) => this.#bind(ids.ranUeNgapId, ids.amfUeNgapId, messageType)?.ue,
          )
        )
          return;
        this.ignored.push({ messageType: message.messageType, reason: 'not-for-ues' });
        return;
      }
    }
  }

  reset(scope: ResetScope): void {
    const all = [...this.#connections.values()];
    const affected =
      scope.kind === 'all'
        ? all
        : all.filter((connection) =>
            scope.connections.some(
              (item) =>
                item.rANUENGAPID === connection.ranUeNgapId ||
                (item.aMFUENGAPID !== undefined && item.aMFUENGAPID === connection.amfUeNgapId),
            ),
          );
    for (const connection of affected) this.#release(connection);
  }

  // ----- internals -----

  /**
   * A strict node refuses a standalone PDU Session Resource Setup for a UE whose context it has not set
   * up (after a Service Request, before Initial Context Setup): gnb-strict.ts. True when refused.
   */
  #refusedAsStrict(pdu: NGAPPDU): boolean {
    if (!this.#gnb.strict) return false;
    const refusal = refuseStandaloneSetup(pdu);
    if (refusal === undefined) return false;
    const connection = this.#connections.get(refusal.refused.ranUeNgapId);
    if (connection === undefined || connection.contextSetUp) return false;
    this.refusedSetups.push(refusal.refused);
    this.sendForUe(refusal.answer);
    return true;
  }

  /** The connection a message names; its first message from the AMF gives the AMF UE NGAP ID (8.6.2). */
  #bind(ranUeNgapId: number, amfUeNgapId: number, messageType: string): Connection | undefined {
    const connection = this.#connections.get(ranUeNgapId);
    if (connection === undefined) {
      this.ignored.push({ messageType, reason: 'unknown-ran-ue-ngap-id' });
      return undefined;
    }
    connection.amfUeNgapId = amfUeNgapId;
    return connection;
  }

  /** TS 38.413 8.6.5.2: the UE's Initial UE Message goes to an AMF of the set named, if there is one. */
  #reroute(reroute: Reroute): void {
    const connection = this.#connections.get(reroute.ranUeNgapId);
    if (connection === undefined) {
      this.ignored.push({ messageType: 'RerouteNASRequest', reason: 'unknown-ran-ue-ngap-id' });
      return;
    }
    this.reroutes.push(reroute);
    this.#connections.delete(reroute.ranUeNgapId);
    const next = this.onReroute?.(connection.ue, reroute);
    if (next === undefined) return this.#release(connection);
    connection.rerouted = next;
  }

  /**
   * TS 38.413 10.6: the AMF reports (Error Indication, or the failure of the procedure) that a message
   * of this node named an unknown or inconsistent UE NGAP ID, or this node reports it (`indicateError`);
   * "both nodes shall initiate a local release" of the connections having the erroneous ids, so the
   * node releases its own under either id, without NGAP, and the UE's RRC connection goes. An indication
   * without an AMF UE NGAP ID releases nothing, as at the AMF.
   */
  #erroneousIds(report: Pick<ErrorIndicationReading, 'cause' | 'amfUeNgapId' | 'ranUeNgapId'>): void {
    if (!ERRONEOUS_ID_CAUSES.has(report.cause ?? '') || report.amfUeNgapId === undefined) return;
    for (const connection of [...this.#connections.values()])
      if (connection.ranUeNgapId === report.ranUeNgapId || connection.amfUeNgapId === report.amfUeNgapId) {
        this.localReleases.push({ ranUeNgapId: connection.ranUeNgapId, cause: report.cause ?? '' });
        this.#release(connection);
      }
  }

  #release(connection: Connection): void {
    connection.open = false;
    this.#connections.delete(connection.ranUeNgapId);
    this.#location?.released(connection);
    this.sessions.connectionReleased(connection.ranUeNgapId);
    connection.ue.released();
  }

  #allocate(): number {
    let id = this.#nextRanUeNgapId;
    while (this.#connections.has(id)) id = (id + 1) % RAN_UE_NGAP_ID_MODULUS;
    this.#nextRanUeNgapId = (id + 1) % RAN_UE_NGAP_ID_MODULUS;
    return id;
  }
}
