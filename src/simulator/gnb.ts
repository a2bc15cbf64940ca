import type { Timers } from '../clock.ts';
import { systemTimers } from '../clock.ts';
import type {
  Cause,
  NGAPPDU,
  ResetType,
  UEassociatedLogicalNGconnectionList,
} from '../network/ngap/generated/types.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../network/ngap/ngap-codec.ts';
import { readNGReset, readNGResetAcknowledge } from '../network/ngap/generated/messages.ts';
import type {
  AssociationEvent,
  AssociationHandler,
  AssociationUp,
  CommunicationLostReason,
  InboundMessage,
  N2Association,
  N2Transport,
  SendResult,
  TransportAddress,
} from '../network/transport/n2-transport.ts';
import { NGAP_PPID } from '../network/transport/n2-transport.ts';
import type { StreamCounts } from '../network/transport/n2-transport.ts';
import { ueNgapIdsOf } from '../network/ngap/ue-ngap-ids.ts';
import type {
  AmfConfigurationChanges,
  AmfDescription,
  ErrorIndicationReading,
  ProcedureFailure,
  UnavailableGuami,
} from './amf-messages.ts';
import {
  applyAmfConfigurationChanges,
  causeText,
  readAmfConfigurationUpdate,
  sameGuami,
  readAmfStatusIndication,
  readErrorIndication,
  readFailure,
  readNgSetupResponse,
} from './amf-messages.ts';
import type { GnbConfig } from './gnb-config.ts';
import { readAmfOverloadStart, readsAsOverloadStop, type AmfOverload } from './gnb-overload.ts';
import { validateGnbConfig } from './gnb-config.ts';
import type { ErrorReport, RanConfigurationChanges, ResetScope } from './gnb-messages.ts';
import {
  amfConfigurationUpdateAcknowledge,
  errorIndication,
  ngReset,
  ngResetAcknowledge,
  ngSetupRequest,
  ranConfigurationUpdate,
  tnlAssociationJoin,
} from './gnb-messages.ts';
import type { TnlEndpoint } from '../network/ngap/transport-layer-address.ts';
import { GnbTnlAssociations, type FurtherAssociation, type TnlSetupOutcome } from './gnb-tnl.ts';

/**
 * A simulated NG-RAN node (gNB or ng-eNB) on the RAN side of N2: it opens one SCTP association to an
 * AMF over any N2 transport and runs the NGAP procedures without a UE (TS 38.413 8.7): NG Setup, RAN
 * Configuration Update and NG Reset as initiator; NG Reset, AMF Configuration Update and Error
 * Indication as responder. Every PDU in either direction is kept (`sent`, `received`) for tests to check,
 * unless `keepLog` is false.
 * UE-associated signalling goes to an attached `UeSignalling` (the seam later issues fill).
 */

/** Where the node is in its life (TS 38.413 8.7.1: NG Setup is the first NGAP procedure). */
type GnbState =
  | { kind: 'idle' }
  | { kind: 'connecting' }
  /** The association is up; NG Setup has not been accepted (yet, or it was refused). */
  | { kind: 'associated'; association: N2Association; up: AssociationUp }
  /** NG Setup accepted: the AMF as it described itself, updated by AMF Configuration Updates. */
  | { kind: 'ready'; association: N2Association; up: AssociationUp; amf: AmfDescription }
  | { kind: 'closed'; end: GnbEnd };

/** How the node's association ended. */
export type GnbEnd =
  | { reason: 'shutdown' }
  | { reason: 'communication-lost'; lost: CommunicationLostReason; cause: string | undefined }
  | { reason: 'connect-failed'; error: string };

/** One PDU as it went over the association. `pdu` is absent when it did not decode. */
export interface NgapExchange {
  bytes: Uint8Array;
  streamId: number;
  /** The ASN.1 message name (`NGSetupResponse`), `Unknown` when it does not decode. */
  messageType: string;
  pdu: NGAPPDU | undefined;
  /** Why it did not decode. */
  error?: string;
  /** The AMF endpoint of the further TNL association it went over (`furtherAssociations`); absent: the first. */
  further?: TnlEndpoint;
}

export type GnbEvent =
  | { type: 'up'; up: AssociationUp }
  | { type: 'sent'; exchange: NgapExchange }
  | { type: 'received'; exchange: NgapExchange }
  /** The AMF's NG Reset (TS 38.413 8.7.4.2.1), already acknowledged. */
  | { type: 'ng-reset'; cause: string | undefined; reset: ResetType }
  /**
   * The AMF's configuration update (TS 38.413 8.7.3), already acknowledged; with `furtherAssociations`,
   * the offered TNL associations were set up first.
   */
  | { type: 'amf-configuration-update'; changes: AmfConfigurationChanges; amf: AmfDescription }
  /** A further TNL association (`furtherAssociations`) ended; its UEs go on over the others. */
  | { type: 'further-association-ended'; association: FurtherAssociation }
  | { type: 'error-indication'; report: ErrorIndicationReading }
  /** The AMF declared these GUAMIs unavailable (TS 38.413 8.7.6), with their backup AMFs when named. */
  | { type: 'amf-status-indication'; unavailable: UnavailableGuami[] }
  /** The AMF is overloaded (TS 38.413 8.7.7): `overload` until Overload Stop (8.7.8, `undefined`). */
  | { type: 'overload'; overload: AmfOverload | undefined }
  /**
   * A message of the node's own procedures its generated reader refused (TS 38.413 10.3: an IE of
   * criticality reject missing or not comprehended, IEs out of order): not acted on.
   */
  | { type: 'unreadable'; exchange: NgapExchange }
  /** The peer restarted its SCTP association (RFC 9260 5.2.4): NG Setup is needed again. */
  | { type: 'restart' }
  /** A strict node found a PDU on a stream TS 38.412 7 does not allow (`streamViolations`). */
  | { type: 'stream-violation'; violation: StreamViolation }
  | { type: 'closed'; end: GnbEnd };

/**
 * A PDU from the AMF on a stream TS 38.412 7 does not allow, as a strict node sees it: UE-associated
 * signalling on stream 0 (reserved for the procedures without a UE), a message without a UE on another
 * stream, or a UE's messages moving to another stream during its UE-associated logical NG-connection.
 */
interface StreamViolation {
  rule: 'ue-associated-on-stream-0' | 'non-ue-associated-off-stream-0' | 'ue-stream-changed';
  messageType: string;
  streamId: number;
  amfUeNgapId?: number;
}

export type NgSetupOutcome =
  { outcome: 'accepted'; amf: AmfDescription } | { outcome: 'refused'; failure: ProcedureFailure };
type RanConfigurationUpdateOutcome =
  { outcome: 'acknowledged' } | { outcome: 'refused'; failure: ProcedureFailure };
interface NgResetOutcome {
  outcome: 'acknowledged';
  /** The connections the AMF says it reset (a partial reset). */
  connections: UEassociatedLogicalNGconnectionList;
}

/** The UE side of the node: what the registration issue's simulated UEs plug in. */
export interface UeSignalling {
  /** A PDU of a procedure the node itself does not run (UE-associated signalling, paging, ...). */
  receive(exchange: NgapExchange & { pdu: NGAPPDU }): void;
  /** UE-associated connections are gone: an NG Reset either way, a restart or the association's end. */
  reset(scope: ResetScope): void;
}

export interface GnbOptions {
  config: GnbConfig;
  transport: N2Transport;
  /** The AMF's SCTP addresses (tried in order) and port. */
  amf: readonly TransportAddress[];
  local?: { addresses: readonly string[]; port?: number };
  /**
   * Streams asked for: one count for both directions, or outbound (OS) and inbound (MIS) apart; stream 0
   * carries the procedures without a UE. 2 each unless given.
   */
  streams?: number | StreamCounts;
  /**
   * Act as the strict commercial gNBs of docs/interop.md: check the AMF's stream ids (TS 38.412 7,
   * `streamViolations`) and refuse a standalone PDU Session Resource Setup for a UE whose context is not
   * set up yet (ue/gnb-ues.ts).
   */
  strict?: boolean;
  timers?: Timers;
  /** How long a procedure waits for the AMF's answer before its promise rejects. */
  responseTimeoutMs?: number;
  /**
   * Set up the TNL associations the AMF offers (TS 38.413 8.7.3.2) and spread the UEs over them and the
   * first (gnb-tnl.ts). Off by default: the node keeps its one association and reports none set up.
   */
  furtherAssociations?: boolean;
  /**
   * Keep every PDU in `sent` and `received` (default true). A benchmark's fleet does without: ten PDUs
   * per registration, decoded, held for the whole run, would be promoted and traced by every collection.
   */
  keepLog?: boolean;
}

/** A procedure's promise rejected: no answer in time, the association ended, or it could not be sent. */
export class NgapProcedureError extends Error {
  override readonly name = 'NgapProcedureError';
}

/** Procedure codes of the class 1 procedures the node initiates (TS 38.413 9.4.7 NGAP-Constants). */
const NG_SETUP = 21;
const RAN_CONFIGURATION_UPDATE = 35;
const NG_RESET = 20;

type Answer = { kind: 'successful' | 'unsuccessful'; pdu: NGAPPDU };

interface Pending {
  settle(answer: Answer): void;
  fail(error: NgapProcedureError): void;
}

const DEFAULT_RESPONSE_TIMEOUT_MS = 5000;
const DEFAULT_STREAMS = 2;

export class SimulatedGnb {
  readonly #options: GnbOptions;
  readonly #timers: Timers;
  #config: GnbConfig;
  #state: GnbState = { kind: 'idle' };
  readonly #listeners = new Set<(event: GnbEvent) => void>();
  /** Class 1 procedures waiting for their outcome, by procedure code: one at a time each. */
  readonly #pending = new Map<number, Pending>();
  readonly #sent: NgapExchange[] = [];
  readonly #received: NgapExchange[] = [];
  readonly #keepLog: boolean;
  #ues: UeSignalling | undefined;
  /** A strict node's view: the stream each UE's messages from the AMF came on, by AMF UE NGAP ID. */
  readonly #ueStreams = new Map<number, { streamId: number; via: FurtherAssociation | undefined }>();
  /** GUAMIs the AMF declared unavailable by AMF Status Indication since its NG Setup (8.7.6.2). */
  #unavailableGuamis: UnavailableGuami[] = [];
  /** The AMF's Overload Start since its NG Setup, until Overload Stop (8.7.7.2, 8.7.8.2). */
  #overload: AmfOverload | undefined;
  /** What a strict node found wrong in the AMF's stream ids, in order (never cleared). */
  readonly streamViolations: StreamViolation[] = [];
  /** The further TNL associations, when `furtherAssociations`. */
  readonly #tnl: GnbTnlAssociations | undefined;
  #resolveClosed: (end: GnbEnd) => void = () => undefined;
  /** Resolves with how the association ended (never rejects). */
  readonly closed: Promise<GnbEnd>;

  constructor(options: GnbOptions) {
    validateGnbConfig(options.config);
    this.#options = options;
    this.#config = options.config;
    this.#timers = options.timers ?? systemTimers;
    this.#keepLog = options.keepLog ?? true;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#tnl = options.furtherAssociations === true ? this.#furtherAssociations(options) : undefined;
  }

  #furtherAssociations(options: GnbOptions): GnbTnlAssociations {
    return new GnbTnlAssociations({
      transport: options.transport,
      local: options.local,
      streams: this.#askedStreams(),
      timers: this.#timers,
      responseTimeoutMs: this.#responseTimeout(),
      join: () => tnlAssociationJoin(this.#config),
      receive: (message, via) => this.#receive(message, via),
      ended: (association) => this.#emit({ type: 'further-association-ended', association }),
      sent: (bytes, pdu, via) =>
        this.#recordSent({
          bytes,
          streamId: 0,
          messageType: ngapMessageType(pdu),
          pdu,
          further: via.endpoint,
        }),
      received: (message, via) => {
        const decoded = decodeNgapPdu(message.payload);
        this.#recordReceived({
          bytes: message.payload,
          streamId: message.streamId,
          messageType: decoded.ok ? ngapMessageType(decoded.value) : 'Unknown',
          pdu: decoded.ok ? decoded.value : undefined,
          further: via.endpoint,
        });
      },
    });
  }

  /** The further TNL associations set up and live (`furtherAssociations`). */
  get furtherAssociations(): readonly FurtherAssociation[] {
    return this.#tnl?.live ?? [];
  }

  get config(): GnbConfig {
    return this.#config;
  }

  get state(): GnbState {
    return this.#state;
  }

  /** True when the node acts as a strict commercial gNB (`GnbOptions.strict`). */
  get strict(): boolean {
    return this.#options.strict ?? false;
  }

  /**
   * The stream of a UE's signalling (TS 38.412 7: one stream other than 0 for the whole UE-associated
   * logical NG-connection, if the association has one): spread by RAN UE NGAP ID over the outbound
   * streams the association negotiated, as the AMF spreads by AMF UE NGAP ID.
   */
  ueStream(ranUeNgapId: number): number {
    const state = this.#state;
    const outbound = state.kind === 'associated' || state.kind === 'ready' ? state.up.streams.outbound : 1;
    return outbound > 1 ? 1 + (ranUeNgapId % (outbound - 1)) : 0;
  }

  /**
   * The GUAMIs this AMF declared unavailable (AMF Status Indication, TS 38.413 8.7.6.2): the node selects
   * another AMF for their UEs, the backup named with each when there is one. A new NG Setup, or the
   * association's end or restart, starts the list over: the AMF describes itself anew.
   */
  get unavailableGuamis(): readonly UnavailableGuami[] {
    return this.#unavailableGuamis;
  }

  /**
   * The AMF's overload as it announced it (Overload Start, TS 38.413 8.7.7.2), undefined once it sent
   * Overload Stop (8.7.8.2) or before: the node's UE side rejects the RRC establishments it names
   * (gnb-overload.ts). A new NG Setup, or the association's end or restart, starts over.
   */
  get overload(): AmfOverload | undefined {
    return this.#overload;
  }

  /** Every PDU sent, in order (none without `keepLog`). */
  get sent(): readonly NgapExchange[] {
    return this.#sent;
  }

  /** Every PDU received, in order, decoded or not (none without `keepLog`). */
  get received(): readonly NgapExchange[] {
    return this.#received;
  }

  /** The local SCTP address the AMF sees (its `address`), once up. */
  get local(): TransportAddress | undefined {
    const state = this.#state;
    return state.kind === 'associated' || state.kind === 'ready' ? state.up.localAddresses[0] : undefined;
  }

  /** Subscribes to the node's events; returns the unsubscribe function. */
  on(listener: (event: GnbEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The first later event `select` maps to a value; rejects after `timeoutMs` (default the response
   * timeout), so a test waiting for something that never comes fails instead of hanging.
   */
  next<T>(select: (event: GnbEvent) => T | undefined, timeoutMs = this.#responseTimeout()): Promise<T> {
    return new Promise((resolve, reject) => {
      const cancel = this.#timers.after(timeoutMs, () => {
        unsubscribe();
        reject(new NgapProcedureError(`no matching event within ${timeoutMs} ms`));
      });
      const unsubscribe = this.on((event) => {
        const value = select(event);
        if (value === undefined) return;
        cancel();
        unsubscribe();
        resolve(value);
      });
    });
  }

  /** The next PDU received with this message type (`ErrorIndication`, `Unknown`, ...). */
  nextReceived(messageType: string, timeoutMs?: number): Promise<NgapExchange> {
    return this.next(
      (event) =>
        event.type === 'received' && event.exchange.messageType === messageType ? event.exchange : undefined,
      timeoutMs,
    );
  }

  /** Hands UE-associated signalling to `ues` (one at a time). */
  attachUes(ues: UeSignalling): void {
    this.#ues = ues;
  }

  /** Opens the association to the AMF. */
  async connect(): Promise<AssociationUp> {
    if (this.#state.kind !== 'idle') throw new NgapProcedureError(`connect in state ${this.#state.kind}`);
    this.#state = { kind: 'connecting' };
    const streams = this.#askedStreams();
    let up: AssociationUp | undefined;
    try {
      await this.#options.transport.connect(
        {
          remote: this.#options.amf,
          ...(this.#options.local === undefined ? {} : { local: this.#options.local }),
          outboundStreams: streams.outbound,
          inboundStreams: streams.inbound,
        },
        (association, facts) => {
          up = facts;
          this.#state = { kind: 'associated', association, up: facts };
          return this.#handler();
        },
      );
    } catch (error) {
      this.#close({
        reason: 'connect-failed',
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
    if (up === undefined)
      throw new NgapProcedureError('the transport resolved connect without an association');
    this.#emit({ type: 'up', up });
    return up;
  }

  /** NG Setup (TS 38.413 8.7.1): accepted with the AMF's description, or refused with its cause. */
  async ngSetup(): Promise<NgSetupOutcome> {
    // Before the request: an Overload Start may follow the response before this method resumes.
    this.#overload = undefined;
    const answer = await this.#request(NG_SETUP, ngSetupRequest(this.#config));
    const { pdu } = answer;
    if (answer.kind === 'unsuccessful') {
      if (pdu.choice !== 'unsuccessfulOutcome' || pdu.value.name !== 'NGSetup') return wrongAnswer(pdu);
      return { outcome: 'refused', failure: readFailure(pdu) ?? unreadableAnswer(pdu) };
    }
    if (pdu.choice !== 'successfulOutcome' || pdu.value.name !== 'NGSetup') return wrongAnswer(pdu);
    const amf = readNgSetupResponse(pdu) ?? unreadableAnswer(pdu);
    this.#unavailableGuamis = [];
    const state = this.#state;
    if (state.kind === 'associated' || state.kind === 'ready') {
      this.#state = { kind: 'ready', association: state.association, up: state.up, amf };
    }
    return { outcome: 'accepted', amf };
  }

  /**
   * RAN Configuration Update (TS 38.413 8.7.2): sends the changed fields; on acknowledgement they
   * become the node's configuration.
   */
  async ranConfigurationUpdate(changes: RanConfigurationChanges): Promise<RanConfigurationUpdateOutcome> {
    const next: GnbConfig = {
      ...this.#config,
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.supportedTas === undefined ? {} : { supportedTas: changes.supportedTas }),
      ...(changes.pagingDrx === undefined ? {} : { pagingDrx: changes.pagingDrx }),
    };
    validateGnbConfig(next);
    const answer = await this.#request(RAN_CONFIGURATION_UPDATE, ranConfigurationUpdate(changes));
    const { pdu } = answer;
    if (answer.kind === 'unsuccessful') {
      if (pdu.choice !== 'unsuccessfulOutcome' || pdu.value.name !== 'RANConfigurationUpdate') {
        return wrongAnswer(pdu);
      }
      return { outcome: 'refused', failure: readFailure(pdu) ?? unreadableAnswer(pdu) };
    }
    this.#config = next;
    return { outcome: 'acknowledged' };
  }

  /** NG Reset initiated by the node (TS 38.413 8.7.4.2.2); its UE contexts in `scope` are released. */
  async ngReset(cause: Cause, scope: ResetScope = { kind: 'all' }): Promise<NgResetOutcome> {
    this.#forgetUeStreams(scope);
    this.#ues?.reset(scope);
    const answer = await this.#request(NG_RESET, ngReset(cause, scope));
    const { pdu } = answer;
    if (answer.kind !== 'successful' || pdu.choice !== 'successfulOutcome' || pdu.value.name !== 'NGReset') {
      return wrongAnswer(pdu);
    }
    const read = readNGResetAcknowledge(pdu);
    if (!read.ok) return unreadableAnswer(pdu);
    return { outcome: 'acknowledged', connections: read.message.ueAssociatedLogicalNgConnectionList ?? [] };
  }

  /** Error Indication (TS 38.413 8.7.5) towards the AMF. */
  errorIndication(report: ErrorReport): SendResult {
    return this.send(errorIndication(report));
  }

  /** Sends any NGAP PDU as it is (stream 0 unless told: the procedures without a UE). */
  send(pdu: NGAPPDU, streamId = 0): SendResult {
    return this.#transmit(encodeNgapPdu(pdu), streamId, pdu);
  }

  /** Sends bytes as an NGAP message whatever they are: garbage, truncated or crafted PDUs. */
  sendBytes(bytes: Uint8Array, streamId = 0): SendResult {
    const decoded = decodeNgapPdu(bytes);
    return this.#transmit(bytes, streamId, decoded.ok ? decoded.value : undefined);
  }

  /** Graceful SCTP shutdown; resolves when the association has ended. */
  shutdown(): Promise<GnbEnd> {
    const state = this.#state;
    if (state.kind === 'associated' || state.kind === 'ready') state.association.shutdown();
    else if (state.kind === 'idle') this.#close({ reason: 'shutdown' });
    return this.closed;
  }

  /** SCTP ABORT at once; resolves when the association has ended. */
  abort(cause?: string): Promise<GnbEnd> {
    const state = this.#state;
    if (state.kind === 'associated' || state.kind === 'ready') state.association.abort(cause);
    else if (state.kind === 'idle') this.#close({ reason: 'shutdown' });
    return this.closed;
  }

  // ----- internals -----

  #responseTimeout(): number {
    return this.#options.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS;
  }

  #askedStreams(): StreamCounts {
    const asked = this.#options.streams ?? DEFAULT_STREAMS;
    return typeof asked === 'number' ? { outbound: asked, inbound: asked } : asked;
  }

  #handler(): AssociationHandler {
    return {
      message: (message) => this.#receive(message),
      event: (event) => this.#associationEvent(event),
    };
  }

  #associationEvent(event: AssociationEvent): void {
    switch (event.type) {
      case 'restart': {
        const state = this.#state;
        if (state.kind === 'ready') {
          this.#state = { kind: 'associated', association: state.association, up: state.up };
        }
        this.#failPending('the peer restarted the association');
        this.#ueStreams.clear();
        this.#unavailableGuamis = [];
        this.#overload = undefined;
        this.#ues?.reset({ kind: 'all' });
        this.#emit({ type: 'restart' });
        return;
      }
      case 'peer-address-change':
      case 'drain':
        return;
      case 'communication-lost':
        this.#close({ reason: 'communication-lost', lost: event.reason, cause: event.cause });
        return;
      case 'shutdown-complete':
        this.#close({ reason: 'shutdown' });
        return;
    }
  }

  #close(end: GnbEnd): void {
    if (this.#state.kind === 'closed') return;
    const hadUes = this.#state.kind === 'associated' || this.#state.kind === 'ready';
    this.#state = { kind: 'closed', end };
    // The simulated node's NG-C interface lives on its first association (the further ones joined it).
    this.#tnl?.abortAll('the first association ended');
    this.#unavailableGuamis = [];
    this.#overload = undefined;
    this.#failPending(`the association ended (${end.reason})`);
    if (hadUes) this.#ues?.reset({ kind: 'all' });
    this.#emit({ type: 'closed', end });
    this.#resolveClosed(end);
  }

  /** NG Reset ends the UE-associated logical NG-connections in `scope` (TS 38.413 8.7.4). */
  #forgetUeStreams(scope: ResetScope): void {
    if (scope.kind === 'all') return this.#ueStreams.clear();
    for (const item of scope.connections)
      if (item.aMFUENGAPID !== undefined) this.#ueStreams.delete(item.aMFUENGAPID);
  }

  #failPending(why: string): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const procedure of pending) procedure.fail(new NgapProcedureError(why));
  }

  #transmit(bytes: Uint8Array, streamId: number, pdu: NGAPPDU | undefined): SendResult {
    const state = this.#state;
    if (state.kind !== 'associated' && state.kind !== 'ready') return { ok: false, error: 'closed' };
    const ranUeNgapId = pdu === undefined ? undefined : ueNgapIdsOf(pdu).ranUeNgapId;
    // A UE's signalling goes on the association it is bound to (TS 38.412 7), the first one otherwise.
    const via = ranUeNgapId === undefined ? undefined : this.#tnl?.route(ranUeNgapId);
    const result =
      via === undefined
        ? state.association.send(streamId, NGAP_PPID, bytes)
        : via.association.send(streamOn(via.up, streamId, ranUeNgapId ?? 0), NGAP_PPID, bytes);
    // The UE-associated logical NG-connection ends with UE Context Release Complete (TS 38.413 8.3.3):
    // a later connection under the same AMF UE NGAP ID may use another stream.
    if (
      result.ok &&
      this.strict &&
      pdu !== undefined &&
      ngapMessageType(pdu) === 'UEContextReleaseComplete'
    ) {
      const { amfUeNgapId } = ueNgapIdsOf(pdu);
      if (amfUeNgapId !== undefined) this.#ueStreams.delete(amfUeNgapId);
    }
    if (result.ok && ranUeNgapId !== undefined && ngapMessageType(pdu!) === 'UEContextReleaseComplete')
      this.#tnl?.forget(ranUeNgapId);
    if (result.ok)
      this.#recordSent({
        bytes,
        streamId,
        messageType: pdu === undefined ? 'Unknown' : ngapMessageType(pdu),
        pdu,
        ...(via === undefined ? {} : { further: via.endpoint }),
      });
    return result;
  }

  #recordSent(exchange: NgapExchange): void {
    if (!this.#keepLog && this.#listeners.size === 0) return;
    if (this.#keepLog) this.#sent.push(exchange);
    this.#emit({ type: 'sent', exchange });
  }

  /** Sends a class 1 request and waits for its outcome (TS 38.413 8.1: one response per request). */
  #request(procedureCode: number, pdu: NGAPPDU): Promise<Answer> {
    if (this.#pending.has(procedureCode)) {
      return Promise.reject(new NgapProcedureError(`procedure ${procedureCode} is already running`));
    }
    const bytes = encodeNgapPdu(pdu);
    return new Promise<Answer>((resolve, reject) => {
      const timeoutMs = this.#responseTimeout();
      const cancel = this.#timers.after(timeoutMs, () => {
        this.#pending.delete(procedureCode);
        reject(new NgapProcedureError(`no answer to ${ngapMessageType(pdu)} within ${timeoutMs} ms`));
      });
      this.#pending.set(procedureCode, {
        settle: (answer) => {
          cancel();
          resolve(answer);
        },
        fail: (error) => {
          cancel();
          reject(error);
        },
      });
      const sent = this.#transmit(bytes, 0, pdu);
      if (!sent.ok) {
        this.#pending.get(procedureCode)?.fail(new NgapProcedureError(`send refused: ${sent.error}`));
        this.#pending.delete(procedureCode);
      }
    });
  }

  /** A PDU from the AMF, on the first association or on the further one `via`. */
  #receive(message: InboundMessage, via?: FurtherAssociation): void {
    if (message.ppid !== NGAP_PPID) return; // not NGAP (TS 38.412 7): not ours to read
    const decoded = decodeNgapPdu(message.payload);
    const { payload: bytes, streamId } = message;
    if (!decoded.ok) {
      this.#recordReceived({ bytes, streamId, messageType: 'Unknown', pdu: undefined, error: decoded.error });
      // TS 38.413 10.2: a PDU that cannot be decoded (transfer syntax error) is answered by Error Indication.
      this.errorIndication({ cause: { choice: 'protocol', value: 'transfer-syntax-error' } });
      return;
    }
    const pdu = decoded.value;
    const exchange = {
      bytes,
      streamId,
      messageType: ngapMessageType(pdu),
      pdu,
      ...(via === undefined ? {} : { further: via.endpoint }),
    };
    this.#recordReceived(exchange);
    const { ranUeNgapId } = ueNgapIdsOf(pdu);
    if (ranUeNgapId !== undefined) this.#tnl?.heard(ranUeNgapId, via);
    if (this.strict) this.#checkStream(exchange, via);
    this.#dispatch(exchange);
  }

  /**
   * TS 38.412 7: stream 0 carries the procedures without a UE only; a UE's messages come on one other
   * stream for the whole UE-associated logical NG-connection (when the association has more than one
   * stream towards this node). An Error Indication naming a UE may come on the stream of the message it
   * answers (TS 38.413 8.2.7), so it is held to the first rule only. A violation is counted and reported,
   * the message still handled.
   */
  #checkStream(exchange: NgapExchange & { pdu: NGAPPDU }, via: FurtherAssociation | undefined): void {
    const { pdu, streamId, messageType } = exchange;
    const { amfUeNgapId, ranUeNgapId } = ueNgapIdsOf(pdu);
    const state = this.#state;
    const up = via?.up ?? (state.kind === 'associated' || state.kind === 'ready' ? state.up : undefined);
    const inbound = up?.streams.inbound ?? 1;
    const report = (violation: StreamViolation): void => {
      this.streamViolations.push(violation);
      this.#emit({ type: 'stream-violation', violation });
    };
    if (amfUeNgapId === undefined && ranUeNgapId === undefined) {
      if (streamId !== 0) report({ rule: 'non-ue-associated-off-stream-0', messageType, streamId });
      return;
    }
    const ids = amfUeNgapId === undefined ? {} : { amfUeNgapId };
    if (streamId === 0 && inbound > 1) {
      report({ rule: 'ue-associated-on-stream-0', messageType, streamId, ...ids });
      return;
    }
    if (amfUeNgapId === undefined || messageType === 'ErrorIndication') return;
    const known = this.#ueStreams.get(amfUeNgapId);
    // A UE the AMF moved to another association (TS 38.412 7) has its stream there.
    if (known === undefined || known.via !== via) this.#ueStreams.set(amfUeNgapId, { streamId, via });
    else if (known.streamId !== streamId)
      report({ rule: 'ue-stream-changed', messageType, streamId, ...ids });
  }

  #recordReceived(exchange: NgapExchange): void {
    if (this.#keepLog) this.#received.push(exchange);
    if (this.#listeners.size > 0) this.#emit({ type: 'received', exchange });
  }

  #dispatch(exchange: NgapExchange & { pdu: NGAPPDU }): void {
    const { pdu } = exchange;
    switch (pdu.choice) {
      case 'initiatingMessage': {
        const message = pdu.value;
        switch (message.name) {
          case 'AMFConfigurationUpdate': {
            const changes = readAmfConfigurationUpdate(pdu);
            if (changes === undefined) this.#emit({ type: 'unreadable', exchange });
            else this.#amfConfigurationUpdate(changes);
            return;
          }
          case 'NGReset': {
            const read = readNGReset(pdu);
            if (!read.ok) {
              this.#emit({ type: 'unreadable', exchange });
              return;
            }
            const { resetType: reset, cause } = read.message;
            const scope: ResetScope =
              reset.choice === 'partOfNG-Interface'
                ? { kind: 'part', connections: reset.value }
                : { kind: 'all' };
            this.#forgetUeStreams(scope);
            this.#ues?.reset(scope);
            this.send(ngResetAcknowledge(reset));
            this.#emit({
              type: 'ng-reset',
              cause: cause === undefined ? undefined : causeText(cause),
              reset,
            });
            return;
          }
          case 'AMFStatusIndication': {
            const unavailable = readAmfStatusIndication(pdu);
            if (unavailable === undefined) this.#emit({ type: 'unreadable', exchange });
            else this.#amfStatusIndication(unavailable);
            return;
          }
          case 'OverloadStart': {
            const overload = readAmfOverloadStart(pdu);
            if (overload === undefined) return this.#emit({ type: 'unreadable', exchange });
            this.#overload = overload;
            return this.#emit({ type: 'overload', overload });
          }
          case 'OverloadStop':
            if (!readsAsOverloadStop(pdu)) return this.#emit({ type: 'unreadable', exchange });
            this.#overload = undefined;
            return this.#emit({ type: 'overload', overload: undefined });
          case 'ErrorIndication': {
            const report = readErrorIndication(pdu);
            this.#emit(
              report === undefined ? { type: 'unreadable', exchange } : { type: 'error-indication', report },
            );
            return;
          }
          default:
            this.#ues?.receive(exchange);
            return;
        }
      }
      case 'successfulOutcome':
      case 'unsuccessfulOutcome': {
        const procedure = this.#pending.get(pdu.value.procedureCode);
        if (procedure === undefined) {
          this.#ues?.receive(exchange);
          return;
        }
        this.#pending.delete(pdu.value.procedureCode);
        procedure.settle({ kind: pdu.choice === 'successfulOutcome' ? 'successful' : 'unsuccessful', pdu });
        return;
      }
      case null:
        return; // an extension of NGAP-PDU this release does not know: kept in `received`
    }
  }

  /**
   * TS 38.413 8.7.3.2: the node takes the new values and acknowledges; with `furtherAssociations` it
   * first removes and updates the TNL associations named, then sets up those offered and reports them.
   */
  #amfConfigurationUpdate(changes: AmfConfigurationChanges): void {
    const offered = changes.tnlToAdd ?? [];
    this.#tnl?.remove(changes.tnlToRemove ?? []);
    this.#tnl?.update(changes.tnlToUpdate ?? []);
    if (this.#tnl === undefined || offered.length === 0) return this.#acknowledgeUpdate(changes);
    void this.#tnl.open(offered).then((outcome) => this.#acknowledgeUpdate(changes, outcome));
  }

  #acknowledgeUpdate(changes: AmfConfigurationChanges, tnl?: TnlSetupOutcome): void {
    const state = this.#state;
    const amf =
      state.kind === 'ready'
        ? applyAmfConfigurationChanges(state.amf, changes)
        : applyAmfConfigurationChanges(
            { name: undefined, servedGuamis: [], relativeCapacity: undefined, plmnSupport: [] },
            changes,
          );
    if (state.kind === 'ready') this.#state = { ...state, amf };
    this.send(amfConfigurationUpdateAcknowledge(tnl));
    this.#emit({ type: 'amf-configuration-update', changes, amf });
  }

  /** TS 38.413 8.7.6.2: the indicated GUAMIs are unavailable from now on (class 2: no answer). */
  #amfStatusIndication(unavailable: UnavailableGuami[]): void {
    const known = this.#unavailableGuamis.filter(
      (guami) => !unavailable.some((item) => sameGuami(item, guami)),
    );
    this.#unavailableGuamis = [...known, ...unavailable];
    this.#emit({ type: 'amf-status-indication', unavailable });
  }

  #emit(event: GnbEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }
}

/** A UE's stream on a further association: as asked when it has it, else spread as `ueStream` does. */
function streamOn(up: AssociationUp, streamId: number, ranUeNgapId: number): number {
  const { outbound } = up.streams;
  if (streamId < outbound) return streamId;
  return outbound > 1 ? 1 + (ranUeNgapId % (outbound - 1)) : 0;
}

function wrongAnswer(pdu: NGAPPDU): never {
  throw new NgapProcedureError(`unexpected answer ${ngapMessageType(pdu)}`);
}

/** The answer a generated reader refused (TS 38.413 10.3.5: the procedure ends, unsuccessfully). */
function unreadableAnswer(pdu: NGAPPDU): never {
  throw new NgapProcedureError(`unreadable answer ${ngapMessageType(pdu)}: an abstract syntax error`);
}
