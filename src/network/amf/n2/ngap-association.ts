import type { Logger } from 'pino';
import type { Timers } from '../../../clock.ts';
import type { NetworkEventEmitter } from '../../events/network-events.ts';
import type { PeerLogLimiter, PeerProblemKind } from '../../peer-log-limiter.ts';
import { handlerTable, type MessageOf } from '../../asn1/message-runtime.ts';
import {
  READERS,
  readNGSetupRequest,
  type readAMFConfigurationUpdateAcknowledge,
  type readNGReset,
  type readRANConfigurationUpdate,
} from '../../ngap/generated/messages.ts';
import type {
  Cause,
  NGAPPDU,
  ServedGUAMIList,
  TimeToWait,
  UEassociatedLogicalNGconnectionList,
  UnavailableGUAMIList,
} from '../../ngap/generated/types.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../../ngap/ngap-codec.ts';
import type { RadioAssociation, SupportedTai } from '../../radio-registry.ts';
import { radioAddress } from '../../radio-id.ts';
import {
  NGAP_PPID,
  type AssociationEvent,
  type AssociationHandler,
  type AssociationUp,
  type InboundMessage,
  type N2Association,
  type TransportAddress,
} from '../../transport/n2-transport.ts';
import { diagnosedProcedure, judgeAbstractSyntax, type NotifyReport } from './abstract-syntax.ts';
import type { AmfIdentity } from '../context/amf-identity.ts';
import {
  criticalityDiagnostics,
  PROTOCOL_CAUSE,
  type DiagnosedProcedure,
} from './criticality-diagnostics.ts';
import { decideNgSetup, ranNodeName } from './ng-setup.ts';
import { readNgapHeader } from '../../ngap/ngap-header.ts';
import {
  amfConfigurationUpdate,
  amfStatusIndication,
  errorIndication,
  ngReset,
  ngSetupFailure,
  ngResetAcknowledge,
  overloadStart,
  overloadStop,
  ranConfigurationUpdateFailure,
} from './ngap-messages.ts';
import {
  carriesNonUe,
  carriesUe,
  endpointKey,
  tnlAssociationChange,
  tnlSetupReport,
  type OfferedEndpoint,
  type TnlSetupReport,
  type TnlUsage,
} from './tnl-associations.ts';
import type { NgapRecorder, RadioRecordContext } from './ngap-recorder.ts';
import { pduDetails, type PduDetails } from './pdu-details.ts';
import { decideRanConfigurationUpdate } from './ran-configuration-update.ts';
import { ranNodeOf } from './ran-node.ts';
import { plmnSupportList, type ServedNetwork } from '../context/served-network.ts';
import type { RadioLink, UeSignalling } from './ue-signalling.ts';
import { streamFor } from '../context/ue-connections.ts';

/** A PDU of one of the three kinds, not an extension alternative. */
type DecodedPdu = Exclude<NGAPPDU, { choice: null }>;

/** Stream of the procedures without a UE (TS 38.412 7). */
const NON_UE_STREAM = 0;

export interface AssociationTiming {
  /** An association that has not completed NG Setup by then is shut down. */
  ngSetupTimeoutMs: number;
  /** How long the AMF waits for the answer to a procedure it initiated (AMF Configuration Update, NG Reset). */
  responseTimeoutMs: number;
  /**
   * A radio's association silent this long (no SCTP packet, heartbeats included, where the transport
   * tells) gives its Global RAN Node ID up to an NG Setup over another association (docs/n2.md).
   */
  replaceSilentAfterMs: number;
}

/** What every association of one N2 service shares. */
export interface AssociationContext {
  identity: AmfIdentity;
  /** The operator's PLMN, TACs and slices as they are now. */
  network(): ServedNetwork;
  /** The GUAMIs this AMF announces as its set is now, each with its backup AMF (set/served-guamis.ts). */
  servedGuamis(): ServedGUAMIList;
  /** The radio's life as network events (radio.connected, radio.updated, radio.disconnected). */
  events: NetworkEventEmitter;
  recorder: NgapRecorder;
  timers: Timers;
  logger: Logger;
  /** Warn lines a peer can trigger in bulk go through it: the first per peer and kind, then a summary. */
  peerLog: PeerLogLimiter;
  /**
   * The association that carries each connected radio's non-UE signalling (the NG Setup one while it
   * lives): a new NG Setup from the same node replaces the radio.
   */
  owners: Map<string, NgapAssociation>;
  /**
   * The further endpoints the AMF listens on, offered to each radio after NG Setup (TS 38.413 8.7.3.2
   * AMF TNL Association To Add List); empty when none is configured.
   */
  offers(): readonly OfferedEndpoint[];
  ue: UeSignalling | undefined;
  timing: AssociationTiming;
  /** Whether the AMF has told its radios it is overloaded (TS 38.413 8.7.7), so a new radio hears it too. */
  overloaded(): boolean;
}

/** A procedure the AMF initiates towards one radio, one at a time (TS 38.413 8.7.3, 8.7.4). */
type InitiatedProcedure =
  | { state: 'idle' }
  /** Sent; `again` when the configuration changed meanwhile, so the answer is followed by a new update. */
  | {
      state: 'awaiting-response';
      cancelTimer: () => void;
      again: boolean;
      /** What the radio knew of the further endpoints before this update (kept when it is refused). */
      told?: ReadonlyMap<string, OfferedEndpoint>;
    }
  /** Refused with Time to Wait (8.7.3.4): the update is sent again when it has passed. */
  | { state: 'waiting-to-retry'; cancelTimer: () => void };

/** One of a radio's TNL associations (TS 23.502 4.2.7.1) and the usage it was offered for. */
interface Member {
  association: NgapAssociation;
  usage: TnlUsage;
}

interface ConnectedRadio {
  id: string;
  name: string;
  supportedTais: SupportedTai[];
  configurationUpdate: InitiatedProcedure;
  reset: InitiatedProcedure;
  /** The live associations serving the radio, the NG Setup one first (usage both). */
  members: Member[];
  /**
   * The further endpoints as the radio was told of them (AMF TNL Association To Add, To Remove, To Update
   * Lists), by `endpointKey`; none before the offer.
   */
  offered: ReadonlyMap<string, OfferedEndpoint>;
  /** What the radio's AMF Configuration Update Acknowledge reported of them. */
  tnl: TnlSetupReport | undefined;
}

/** The life of one association (TS 38.413 8.7.1: nothing but NG Setup before NG Setup). */
type Phase =
  | { phase: 'awaiting-ng-setup'; cancelTimer: () => void }
  | { phase: 'ready'; radio: ConnectedRadio }
  | { phase: 'closed' };

const TIME_TO_WAIT_MS: Record<string, number> = {
  v1s: 1000,
  v2s: 2000,
  v5s: 5000,
  v10s: 10_000,
  v20s: 20_000,
  v60s: 60_000,
};

/** The shortest Time to Wait (TS 38.413 9.3.1.56) of at least `ms`, a minute at most. */
function timeToWait(ms: number): TimeToWait {
  for (const [value, wait] of Object.entries(TIME_TO_WAIT_MS)) if (wait >= ms) return value as TimeToWait;
  return 'v60s';
}

/** The peer's IP addresses as the transport gave them, the primary first. */
function peerIps(addresses: readonly TransportAddress[], association: N2Association): string[] {
  return addresses.length > 0 ? addresses.map((a) => a.address) : [association.remote.address];
}

/** The radio's associations as the network state lists them (radio-registry.ts). */
function associationsOf(radio: ConnectedRadio): RadioAssociation[] {
  return radio.members.map(({ association, usage }) => ({ address: association.address, usage }));
}

/** Time to Wait (TS 38.413 9.3.1.56) in ms; an extension value from a later release waits a minute. */
function timeToWaitMs(value: TimeToWait): number {
  return typeof value === 'string' ? (TIME_TO_WAIT_MS[value] ?? 60_000) : 60_000;
}

/**
 * The AMF's side of one N2 association: the NGAP procedures without a UE (TS 38.413 8.7 interface
 * management, 8.2.7 Error Indication and clause 10 error handling), the radio it makes appear in and
 * disappear from the network state, and the records of every PDU. UE-associated messages go to the
 * `UeSignalling` seam once NG Setup is complete.
 */
export class NgapAssociation implements AssociationHandler {
  readonly #association: N2Association;
  readonly #context: AssociationContext;
  #address: string;
  /** The peer's primary IP address, whom the rate-limited warn lines are counted against. */
  readonly #peer: string;
  #peerAddresses: readonly string[];
  #phase: Phase;
  /** Why this side is ending the association, so that its end is logged as expected. */
  #endingOnPurpose: string | undefined;
  /** The link of each radio this association connected (one per NG Setup), see #link. */
  readonly #links = new WeakMap<ConnectedRadio, RadioLink>();
  /** IEs of criticality notify of the message being handled, for what is sent in answer (see #checked). */
  #report: NotifyReport | undefined;
  /** The offered endpoint this association reached, undefined for the AMF's first endpoint. */
  readonly #endpoint: OfferedEndpoint | undefined;

  constructor(
    association: N2Association,
    up: AssociationUp,
    context: AssociationContext,
    endpoint?: OfferedEndpoint,
  ) {
    this.#association = association;
    this.#context = context;
    this.#endpoint = endpoint;
    this.#address = radioAddress(up.peerAddresses[0] ?? association.remote);
    this.#peer = (up.peerAddresses[0] ?? association.remote).address;
    this.#peerAddresses = peerIps(up.peerAddresses, association);
    this.#phase = this.#awaitingNgSetup();
    context.recorder.associationUp(this.#recordContext());
  }

  /** The connected radio's id, once NG Setup has been accepted. */
  get radioId(): string | undefined {
    return this.#phase.phase === 'ready' ? this.#phase.radio.id : undefined;
  }

  message(message: InboundMessage): void {
    if (this.#phase.phase === 'closed') return;
    if (message.ppid !== NGAP_PPID) {
      // TS 38.412 7: NGAP is PPID 60; anything else on this association is not ours to interpret.
      this.#problem('foreign_ppid', { ppid: message.ppid }, 'N2 message with a foreign PPID ignored');
      return;
    }
    try {
      this.#receive(message.payload, message.streamId);
    } catch (error) {
      this.#context.logger.error({ err: error, radio: this.#address }, 'N2 message handling failed');
    }
  }

  event(event: AssociationEvent): void {
    switch (event.type) {
      case 'restart': {
        // RFC 9260 5.2.4: the peer restarted; NGAP starts over with NG Setup, on the same association.
        if (this.#phase.phase === 'closed') return;
        const context = this.#recordContext();
        this.#peerAddresses = peerIps(event.peerAddresses, this.#association);
        this.#stopSetupTimer();
        this.#releaseRadio();
        this.#context.recorder.associationDown(context, { expected: false, cause: 'peer restarted' });
        this.#phase = this.#awaitingNgSetup();
        this.#context.recorder.associationUp(this.#recordContext());
        return;
      }
      case 'peer-address-change':
        if (event.state === 'primary') {
          this.#address = radioAddress(event.address);
          if (this.#phase.phase !== 'ready') return;
          const { radio } = this.#phase;
          const owner = this.#spokenFor() !== undefined;
          this.#context.events.emit('radio.updated', {
            id: radio.id,
            changes: { associations: associationsOf(radio), ...(owner ? { address: this.#address } : {}) },
          });
        }
        return;
      case 'drain':
        return;
      case 'communication-lost':
        this.#close({
          expected: event.reason === 'local-abort' && this.#endingOnPurpose !== undefined,
          cause: this.#endingOnPurpose ?? event.cause ?? event.reason,
        });
        return;
      case 'shutdown-complete':
        this.#close({
          expected: true,
          ...(this.#endingOnPurpose === undefined ? {} : { cause: this.#endingOnPurpose }),
        });
        return;
    }
  }

  /**
   * The operator's PLMN, TACs or slices, or the AMF set's live members, changed: AMF Configuration Update
   * (TS 38.413 8.7.3) with the served GUAMIs and PLMN support as they are now. One at a time: a change while one is pending is
   * sent when it is answered, a change while waiting out a Time to Wait goes with the retry.
   */
  configurationChanged(): void {
    const radio = this.#spokenFor();
    if (radio === undefined) return;
    switch (radio.configurationUpdate.state) {
      case 'idle':
        this.#sendConfigurationUpdate(radio);
        return;
      case 'awaiting-response':
        radio.configurationUpdate.again = true;
        return;
      case 'waiting-to-retry':
        return;
    }
  }

  /**
   * AMF Status Indication (TS 38.413 8.7.6, class 2: no answer): the radio selects another AMF for the
   * GUAMIs' UEs from now on. False when the radio has not completed NG Setup or the transport refused it.
   */
  statusIndication(unavailable: UnavailableGUAMIList): boolean {
    if (this.#spokenFor() === undefined) return false;
    return this.#send(amfStatusIndication(unavailable));
  }

  /**
   * Overload Start or Overload Stop (TS 38.413 8.7.7, 8.7.8; class 2: no answer). False when the radio
   * has not completed NG Setup or the transport refused it.
   */
  overloadChanged(overloaded: boolean): boolean {
    if (this.#spokenFor() === undefined) return false;
    return this.#send(overloaded ? overloadStart() : overloadStop());
  }

  /**
   * AMF-initiated NG Reset of the whole interface (TS 38.413 8.7.4.2.1): the AMF lost its UE contexts
   * of this radio. False when the radio has not completed NG Setup.
   */
  reset(cause: Cause): boolean {
    const radio = this.#spokenFor();
    if (radio === undefined) return false;
    if (radio.reset.state === 'awaiting-response') radio.reset.cancelTimer();
    this.#context.ue?.reset(this.#link(radio), 'all');
    if (!this.#send(ngReset(cause, { choice: 'nG-Interface', value: 'reset-all' }))) return false;
    radio.reset = this.#awaitResponse(radio, 'reset', 'NG Reset Acknowledge');
    return true;
  }

  /**
   * Another association completed NG Setup for the same node: this one and the radio's other
   * associations end, the radio is the new one's.
   */
  replaced(): void {
    const members = this.#phase.phase === 'ready' ? this.#phase.radio.members : [];
    const why = 'replaced by a new association of the same RAN node';
    for (const { association } of [...members]) if (association !== this) association.#end(why);
    this.#end(why);
  }

  /** This side ends the association on purpose (logged as expected). */
  #end(why: string): void {
    this.#endingOnPurpose = why;
    this.#close({ expected: true, cause: why });
    this.#association.abort(why);
  }

  /** The radio when this association carries its non-UE signalling (TS 23.502 4.2.7.1), else undefined. */
  #spokenFor(): ConnectedRadio | undefined {
    if (this.#phase.phase !== 'ready') return undefined;
    const { radio } = this.#phase;
    return this.#context.owners.get(radio.id) === this ? radio : undefined;
  }

  /**
   * Ends the association because its peer is no longer admitted (the N2 allowlist changed): its radio
   * leaves the list, as an operator who removed the peer expects.
   */
  refused(why: string): void {
    if (this.#phase.phase === 'closed') return;
    this.#endingOnPurpose = why;
    this.#close({ expected: true, cause: why });
    this.#association.abort(why);
  }

  /** The association's primary peer address, `ip:port`. */
  get address(): string {
    return this.#address;
  }

  /** Every address the peer gave for this association (the allowlist checks each). */
  get peerAddresses(): readonly string[] {
    return this.#peerAddresses;
  }

  /**
   * How long until this association's radio may be taken over by an NG Setup over another association:
   * 0 when the association is ending or has been silent `replaceSilentAfterMs` (a restarted radio whose
   * old association was never closed gets back in). A transport that cannot tell silence (the kernel's
   * SCTP) keeps the radio until its association ends: its own heartbeats end a dead one (RFC 9260 8.3).
   */
  holdsFor(): number {
    if (this.#phase.phase === 'closed' || this.#association.state !== 'established') return 0;
    const silent = this.#association.silentForMs();
    const bound = this.#context.timing.replaceSilentAfterMs;
    if (silent === undefined) return bound;
    return Math.max(0, bound - silent);
  }

  // ---- receiving

  #receive(bytes: Uint8Array, streamId: number): void {
    const decoded = decodeNgapPdu(bytes);
    if (!decoded.ok) return this.#undecodable(bytes, decoded.error);
    const pdu = decoded.value;
    const messageType = ngapMessageType(pdu);
    const context = messageType === 'NGSetupRequest' ? this.#setupContext(pdu) : this.#recordContext();
    this.#context.recorder.pdu('inbound', bytes, messageType, context, this.#details(pdu));
    const id = this.radioId;
    if (id !== undefined) this.#context.events.emit('radio.updated', { id });
    this.#dispatch(pdu, messageType, streamId, context);
  }

  /**
   * The procedures without a UE (TS 38.413 8.7), each reached with its message as the generated reader
   * reads it; every other message is UE-associated (`#ueAssociated`).
   */
  readonly #handlers = handlerTable<DecodedPdu, typeof READERS, []>(READERS, {
    NGSetupRequest: (request) => this.#ngSetup(request),
    RANConfigurationUpdate: (update) => this.#ranConfigurationUpdate(update),
    NGReset: (request, pdu) => this.#ngReset(request, pdu),
    NGResetAcknowledge: (_, pdu) => this.#answered('reset', pdu),
    AMFConfigurationUpdateAcknowledge: (acknowledge, pdu) => {
      if (this.#answered('configurationUpdate', pdu)) this.#tnlReported(acknowledge);
    },
    AMFConfigurationUpdateFailure: (failure, pdu) =>
      this.#answered('configurationUpdate', pdu, { timeToWait: failure.timeToWait }),
  });

  #dispatch(pdu: NGAPPDU, messageType: string, streamId: number, context: RadioRecordContext): void {
    // An NGAP-PDU extension alternative (TS 38.413 9.4.2): there is no procedure to diagnose.
    if (pdu.choice === null) return void this.#sendErrorIndication(PROTOCOL_CAUSE.abstractSyntaxErrorReject);
    // TS 38.413 8.2.7.2: the radio reports an error in a message of ours; recorded on receipt, never
    // answered (nor judged, 10.3), and erroneous UE NGAP ids released at the UE seam (10.6).
    if (messageType === 'ErrorIndication') return this.#errorIndication(pdu, streamId);
    const handler = this.#handlers.get(messageType);
    if (handler === undefined) return this.#ueAssociated(pdu, messageType, streamId);
    this.#checked(pdu, context, NON_UE_STREAM, () => handler(pdu));
  }

  #errorIndication(pdu: NGAPPDU, streamId: number): void {
    if (this.#phase.phase !== 'ready') return;
    this.#context.ue?.handlers.get('ErrorIndication')?.(pdu, this.#link(this.#phase.radio), streamId);
  }

  /** TS 38.413 10.2: a PDU that does not decode is stored as `Unknown` and answered per its header. */
  #undecodable(bytes: Uint8Array, error: string): void {
    this.#context.recorder.pdu('inbound', bytes, 'Unknown', this.#recordContext(), { error });
    this.#problem('undecodable', { error }, 'undecodable NGAP PDU answered per TS 38.413 10.2');
    const header = readNgapHeader(bytes);
    const cause = PROTOCOL_CAUSE.transferSyntaxError;
    if (header === undefined) return void this.#sendErrorIndication(cause);
    // An Error Indication is never answered by another (8.2.7), or two nodes could echo forever.
    if (header.procedureCode === 9) return;
    if (header.procedureCode === 21 && header.triggeringMessage === 'initiating-message') {
      // network.md section 2: an NG Setup Request that fails to decode gets NG Setup Failure.
      return void this.#send(ngSetupFailure(cause, criticalityDiagnostics(header, [], false)));
    }
    this.#sendErrorIndication(cause, header);
  }

  /**
   * A message the procedures without a UE do not handle: UE-associated signalling goes to the seam
   * once NG Setup is complete. Before it, any message is a logical error (TS 38.413 10.4); an
   * outcome nothing was waiting for is one too; an initiating message with no handler is a procedure
   * not comprehended (10.3.4.1), answered by its criticality.
   */
  #ueAssociated(pdu: NGAPPDU, messageType: string, streamId: number): void {
    if (pdu.choice === null) return;
    const procedure = diagnosedProcedure(pdu);
    if (this.#phase.phase !== 'ready') {
      this.#problem('before_ng_setup', { message: messageType }, 'NGAP message before NG Setup refused');
      return void this.#sendErrorIndication(PROTOCOL_CAUSE.messageNotCompatibleWithReceiverState, procedure);
    }
    const handler = this.#context.ue?.handlers.get(messageType);
    if (handler !== undefined) {
      const link = this.#link(this.#phase.radio);
      return this.#checked(pdu, this.#recordContext(), streamId, () => handler(pdu, link, streamId));
    }
    this.#problem('unexpected', { message: messageType }, 'NGAP message the AMF does not handle');
    if (pdu.choice !== 'initiatingMessage') {
      return void this.#sendErrorIndication(PROTOCOL_CAUSE.messageNotCompatibleWithReceiverState, procedure);
    }
    switch (procedure.criticality) {
      case 'reject':
        return void this.#sendErrorIndication(PROTOCOL_CAUSE.abstractSyntaxErrorReject, procedure);
      case 'notify':
        return void this.#sendErrorIndication(PROTOCOL_CAUSE.abstractSyntaxErrorIgnoreAndNotify, procedure);
      case 'ignore':
        return;
    }
  }

  /**
   * Handles a message of a procedure the AMF comprehends (10.3.4.1 is decided before) once its IEs
   * pass TS 38.413 10.3.4.2, 10.3.5 and 10.3.6 (abstract-syntax.ts). A rejected one is not handled: it
   * is answered with the procedure's failure message or an Error Indication, on its stream, or not at
   * all when it is a response (local error handling: the procedure ends unanswered). IEs of criticality
   * notify go into the Criticality Diagnostics of the answer the handling sends, else into an Error
   * Indication after it.
   */
  #checked(pdu: DecodedPdu, context: RadioRecordContext, streamId: number, handle: () => void): void {
    const verdict = judgeAbstractSyntax(pdu);
    if (verdict.action === 'reject') {
      if (verdict.answer !== undefined) this.#send(verdict.answer, context, {}, streamId);
      else
        this.#context.logger.debug(
          { radio: context.address },
          'NGAP response with an abstract syntax error not processed',
        );
      return;
    }
    const { report } = verdict;
    if (report === undefined) return handle();
    this.#report = report;
    try {
      handle();
    } finally {
      this.#report = undefined;
    }
    if (!report.reported) this.#send(report.errorIndication(), context, {}, streamId);
  }

  // ---- procedures

  /** NG Setup (TS 38.413 8.7.1); a repeated NG Setup on a ready association starts over (8.7.1.2). */
  #ngSetup(request: MessageOf<typeof readNGSetupRequest>): void {
    const decision = decideNgSetup(request, {
      identity: this.#context.identity,
      network: this.#context.network(),
      servedGuamis: this.#context.servedGuamis(),
    });
    const context: RadioRecordContext = {
      ranId: decision.node?.id ?? this.#address,
      name: decision.name ?? decision.node?.id,
      address: this.#address,
    };
    if (!decision.accepted) {
      this.#send(decision.answer, context);
      return;
    }
    const { node } = decision;
    const name = decision.name ?? node.id;
    const previous = this.#context.owners.get(node.id);
    const holdsFor = previous === undefined || previous === this ? 0 : previous.holdsFor();
    if (holdsFor > 0) {
      // The node is connected over another live association: a peer that only knows its Global RAN Node
      // ID must not knock it off. TS 38.413 8.7.1.4 leaves the cause to the AMF; Time to Wait tells a
      // restarted radio when to try again (by then its old association is silent long enough or gone).
      this.#problem(
        'node_id_in_use',
        { node: node.id, connected: previous?.address },
        'NG Setup refused: the Global RAN Node ID is connected over another live association',
      );
      this.#send(
        ngSetupFailure({ choice: 'misc', value: 'unspecified' }, undefined, timeToWait(holdsFor)),
        context,
      );
      return;
    }
    this.#stopSetupTimer();
    // A repeated NG Setup starts the radio over; one naming another node releases the previous one.
    if (this.#phase.phase === 'ready' && this.#phase.radio.id !== node.id) this.#releaseRadio();
    if (this.#phase.phase === 'ready') {
      this.#cancelProcedures(this.#phase.radio);
      // 8.7.1.2: the node's configuration starts over, its further associations with it (offered again below).
      for (const { association } of [...this.#phase.radio.members])
        if (association !== this) association.#end('NG Setup repeated over another association of the node');
    }
    this.#context.owners.set(node.id, this);
    if (previous !== undefined && previous !== this) previous.replaced();
    this.#context.events.emit('radio.connected', {
      id: node.id,
      name,
      address: this.#address,
      ranNodeType: node.ranNodeType,
      supportedTais: decision.supportedTais,
    });
    const radio: ConnectedRadio = {
      id: node.id,
      name,
      supportedTais: decision.supportedTais,
      configurationUpdate: { state: 'idle' },
      reset: { state: 'idle' },
      members: [{ association: this, usage: 'both' }],
      offered: new Map(),
      tnl: undefined,
    };
    this.#phase = { phase: 'ready', radio };
    this.#send(decision.answer);
    // A radio that connects while the AMF sheds load would otherwise send it new devices to refuse.
    if (this.#context.overloaded()) this.#send(overloadStart());
    this.#context.ue?.radioReady(this.#link(radio));
    this.#offer(radio);
  }

  /**
   * The further endpoints, offered once per NG Setup (TS 38.413 8.7.3.2, TS 23.502 4.2.7.1): the radio
   * sets associations up with them before it acknowledges, each starting with RAN Configuration Update
   * naming its Global RAN Node ID (TS 38.412 7, TS 38.413 8.7.2.2; see #joined).
   */
  #offer(radio: ConnectedRadio): void {
    if (tnlAssociationChange(radio.offered, this.#context.offers()) === undefined) return;
    this.#sendConfigurationUpdate(radio, false);
  }

  /**
   * The further endpoints changed (`N2Service.changeFurtherEndpoints`): AMF Configuration Update with the
   * AMF TNL Association To Add, To Remove and To Update Lists (8.7.3.2), one at a time as
   * `configurationChanged`; a pending update is followed by one that carries the change.
   */
  furtherEndpointsChanged(): void {
    const radio = this.#spokenFor();
    if (radio === undefined || tnlAssociationChange(radio.offered, this.#context.offers()) === undefined)
      return;
    if (radio.configurationUpdate.state === 'idle') this.#sendConfigurationUpdate(radio, false);
    else if (radio.configurationUpdate.state === 'awaiting-response') radio.configurationUpdate.again = true;
  }

  /** AMF Configuration Update Acknowledge's AMF TNL Association Setup and Failed To Setup lists, logged. */
  #tnlReported(acknowledge: MessageOf<typeof readAMFConfigurationUpdateAcknowledge>): void {
    if (this.#phase.phase !== 'ready') return;
    const { radio } = this.#phase;
    const { amfTnlAssociationSetupList: setup, amfTnlAssociationFailedToSetupList: failed } = acknowledge;
    if (setup === undefined && failed === undefined) return;
    radio.tnl = tnlSetupReport(setup, failed);
    this.#context.logger.info(
      { radio: radio.name, setup: radio.tnl.setup, failed: radio.tnl.failed },
      'N2: the radio reported the TNL associations offered',
    );
  }

  /** RAN Configuration Update (TS 38.413 8.7.2); before NG Setup a logical error answered by its failure. */
  #ranConfigurationUpdate(update: MessageOf<typeof readRANConfigurationUpdate>): void {
    if (this.#phase.phase === 'awaiting-ng-setup') this.#join(update);
    if (this.#phase.phase !== 'ready') {
      this.#problem(
        'before_ng_setup',
        { message: 'RANConfigurationUpdate' },
        'NGAP message before NG Setup refused',
      );
      this.#send(ranConfigurationUpdateFailure(PROTOCOL_CAUSE.messageNotCompatibleWithReceiverState));
      return;
    }
    const radio = this.#phase.radio;
    const decision = decideRanConfigurationUpdate(update, this.#context.network());
    if (!decision.accepted) {
      this.#send(decision.answer);
      return;
    }
    const { changes } = decision;
    if (changes.name !== undefined) radio.name = changes.name || radio.id;
    if (changes.supportedTais !== undefined) radio.supportedTais = changes.supportedTais;
    this.#context.events.emit('radio.updated', { id: radio.id, changes });
    this.#send(decision.answer);
  }

  /**
   * An association to an endpoint the AMF offered a connected radio whose first message, RAN
   * Configuration Update, names that radio's Global RAN Node ID joins the radio (TS 38.412 7: RAN
   * Configuration Update is the first NGAP message on an added TNLA; TS 38.413 8.7.2.2: the AMF
   * associates the TNLA with the NG-C interface instance by the Global RAN Node ID). The radio does not
   * repeat NG Setup on it. Without the offer nothing joins: the update is refused as before NG Setup.
   */
  #join(update: MessageOf<typeof readRANConfigurationUpdate>): void {
    const endpoint = this.#endpoint;
    const node = update.globalRanNodeId === undefined ? undefined : ranNodeOf(update.globalRanNodeId);
    if (endpoint === undefined || node === undefined) return;
    const owner = this.#context.owners.get(node.id);
    const phase = owner === undefined ? undefined : owner.#phase;
    const key = endpointKey(endpoint);
    const offered = phase?.phase === 'ready' ? phase.radio.offered.get(key) : undefined;
    if (phase?.phase !== 'ready' || offered === undefined) return;
    // One association per offered endpoint (8.7.3.2 reports each once): a radio's associations stay bounded.
    const reached = (member: Member): boolean =>
      member.association.#endpoint !== undefined && endpointKey(member.association.#endpoint) === key;
    if (phase.radio.members.some(reached)) return;
    this.#stopSetupTimer();
    phase.radio.members.push({ association: this, usage: offered.usage });
    this.#phase = { phase: 'ready', radio: phase.radio };
    this.#context.events.emit('radio.updated', {
      id: phase.radio.id,
      changes: { associations: associationsOf(phase.radio) },
    });
    this.#context.logger.info(
      {
        radio: phase.radio.name,
        address: this.#address,
        endpoint: key,
        usage: offered.usage,
      },
      'N2: a further TNL association of the radio joined it',
    );
  }

  /** NG Reset from the radio (TS 38.413 8.7.4.2.2): UE contexts released, NG Reset Acknowledge. */
  #ngReset(request: MessageOf<typeof readNGReset>, pdu: DecodedPdu): void {
    if (this.#phase.phase !== 'ready') {
      this.#problem('before_ng_setup', { message: 'NGReset' }, 'NGAP message before NG Setup refused');
      return void this.#sendErrorIndication(
        PROTOCOL_CAUSE.messageNotCompatibleWithReceiverState,
        diagnosedProcedure(pdu),
      );
    }
    const { resetType } = request;
    const link = this.#link(this.#phase.radio);
    let released: UEassociatedLogicalNGconnectionList | undefined;
    if (resetType.choice === 'partOfNG-Interface') {
      // 8.7.4.2.2: the acknowledge lists the connections in the order received.
      released = this.#context.ue?.reset(link, resetType.value) ?? resetType.value;
    } else {
      this.#context.ue?.reset(link, 'all');
    }
    this.#send(ngResetAcknowledge(released));
  }

  /**
   * The radio answered a procedure the AMF initiated (on any of its associations), or answered something
   * never asked; true for an awaited answer.
   */
  #answered(
    procedure: 'configurationUpdate' | 'reset',
    pdu: DecodedPdu,
    /** The radio's AMF Configuration Update Failure. */
    failure?: { timeToWait: TimeToWait | undefined },
  ): boolean {
    const radio = this.#phase.phase === 'ready' ? this.#phase.radio : undefined;
    const pending = radio?.[procedure];
    if (radio === undefined || pending?.state !== 'awaiting-response') {
      this.#problem('unexpected', { message: ngapMessageType(pdu) }, 'NGAP answer to nothing the AMF asked');
      this.#sendErrorIndication(
        PROTOCOL_CAUSE.messageNotCompatibleWithReceiverState,
        diagnosedProcedure(pdu),
      );
      return false;
    }
    pending.cancelTimer();
    radio[procedure] = { state: 'idle' };
    // 8.7.3.4: a radio that refused keeps its configuration, the further endpoints as it knew them.
    if (failure !== undefined && pending.told !== undefined) {
      radio.offered = pending.told;
      this.#usagesAsTold(radio);
    }
    const owner = this.#context.owners.get(radio.id);
    if (procedure !== 'configurationUpdate' || owner === undefined) return true;
    owner.#configurationAnswered(radio, pending.again, failure?.timeToWait);
    return true;
  }

  /** What follows the answer to AMF Configuration Update, on the association that speaks for the radio. */
  #configurationAnswered(radio: ConnectedRadio, again: boolean, timeToWait: TimeToWait | undefined): void {
    if (timeToWait !== undefined) {
      // 8.7.3.4: wait at least Time to Wait before initiating the update again towards this radio.
      const cancelTimer = this.#context.timers.after(timeToWaitMs(timeToWait), () => {
        if (radio.configurationUpdate.state !== 'waiting-to-retry') return;
        radio.configurationUpdate = { state: 'idle' };
        if (this.#phase.phase === 'ready' && this.#phase.radio === radio)
          this.#sendConfigurationUpdate(radio);
      });
      radio.configurationUpdate = { state: 'waiting-to-retry', cancelTimer };
    } else if (again) {
      this.#sendConfigurationUpdate(radio);
    }
  }

  /**
   * AMF Configuration Update with the AMF's description as it is now (unless `description` is false) and
   * the AMF TNL association lists when the further endpoints differ from what the radio was told.
   */
  #sendConfigurationUpdate(radio: ConnectedRadio, description = true): void {
    const { identity } = this.#context;
    const offers = this.#context.offers();
    const told = radio.offered;
    const tnl = tnlAssociationChange(told, offers);
    const sent = this.#send(
      amfConfigurationUpdate(
        description
          ? {
              amfName: identity.name,
              servedGuamis: this.#context.servedGuamis(),
              relativeCapacity: identity.relativeCapacity,
              plmnSupport: plmnSupportList(this.#context.network()),
            }
          : undefined,
        tnl,
      ),
    );
    if (!sent) return;
    const pending = this.#awaitResponse(radio, 'configurationUpdate', 'AMF Configuration Update Acknowledge');
    radio.configurationUpdate = tnl === undefined ? pending : { ...pending, told };
    if (tnl === undefined) return;
    radio.offered = new Map(offers.map((endpoint) => [endpointKey(endpoint), { ...endpoint }]));
    this.#usagesAsTold(radio);
  }

  /** The AMF's own choices (non-UE signalling, rebinding) follow the usages the radio knows (`offered`). */
  #usagesAsTold(radio: ConnectedRadio): void {
    let changed = false;
    for (const member of radio.members) {
      const reached = member.association.#endpoint;
      const now = reached === undefined ? undefined : radio.offered.get(endpointKey(reached));
      if (now === undefined || now.usage === member.usage) continue;
      member.usage = now.usage;
      changed = true;
    }
    if (changed)
      this.#context.events.emit('radio.updated', {
        id: radio.id,
        changes: { associations: associationsOf(radio) },
      });
  }

  /** Waits for the answer of a procedure this AMF initiated; when none comes, the procedure ends (logged). */
  #awaitResponse(
    radio: ConnectedRadio,
    procedure: 'configurationUpdate' | 'reset',
    answer: string,
  ): Extract<InitiatedProcedure, { state: 'awaiting-response' }> {
    const cancelTimer = this.#context.timers.after(this.#context.timing.responseTimeoutMs, () => {
      const pending = radio[procedure];
      if (pending.state !== 'awaiting-response') return;
      radio[procedure] = { state: 'idle' };
      // Unanswered: the endpoints' change is told again with the next update.
      if (pending.told !== undefined) {
        radio.offered = pending.told;
        this.#usagesAsTold(radio);
      }
      this.#context.logger.warn({ radio: radio.name }, `no ${answer} from radio ${radio.name}`);
      if (pending.again && procedure === 'configurationUpdate' && this.#phase.phase === 'ready') {
        this.#sendConfigurationUpdate(radio);
      }
    });
    return { state: 'awaiting-response', cancelTimer, again: false };
  }

  // ---- sending

  /** Encodes, sends on stream 0 (or `streamId`) and records one PDU; false when the transport refused it. */
  #send(
    pdu: NGAPPDU,
    context: RadioRecordContext = this.#recordContext(),
    details: Record<string, unknown> = {},
    streamId = NON_UE_STREAM,
  ): boolean {
    if (this.#report !== undefined) pdu = this.#report.attach(pdu);
    const bytes = encodeNgapPdu(pdu);
    const { outbound } = this.#association.streams;
    // An answer on the stream the radio used (TS 38.413 8.2.7 Error Indication, a procedure's failure)
    // must fit the streams this side may send on: a radio may open more streams towards the AMF than it
    // accepts back (RFC 9260 5.1.1), so a stream beyond them maps onto the UE streams (TS 38.412 7).
    const stream = streamId < outbound ? streamId : streamFor(streamId, { outboundStreams: outbound });
    const result = this.#association.send(stream, NGAP_PPID, bytes);
    const messageType = ngapMessageType(pdu);
    if (!result.ok) {
      this.#problem(
        'send_refused',
        { radio: context.name ?? context.address, error: result.error, message: messageType },
        'NGAP message not sent: the transport refused it',
      );
      return false;
    }
    // #details makes a new object: the caller's details join it in place (what a spread of both gives,
    // without V8's runtime path for a spread).
    this.#context.recorder.pdu(
      'outbound',
      bytes,
      messageType,
      context,
      Object.assign(this.#details(pdu), details),
    );
    return true;
  }

  /** Error Indication (TS 38.413 8.2.7.2) with Criticality Diagnostics naming the faulty procedure. */
  #sendErrorIndication(cause: Cause, procedure?: DiagnosedProcedure): boolean {
    const diagnostics = procedure === undefined ? undefined : criticalityDiagnostics(procedure, [], true);
    return this.#send(errorIndication({ cause, ...(diagnostics === undefined ? {} : { diagnostics }) }));
  }

  // ---- life of the association

  #awaitingNgSetup(): Phase {
    const cancelTimer = this.#context.timers.after(this.#context.timing.ngSetupTimeoutMs, () => {
      if (this.#phase.phase !== 'awaiting-ng-setup') return;
      this.#endingOnPurpose = 'no NG Setup in time';
      this.#problem('no_ng_setup', {}, 'no NG Setup in time, association shut down');
      this.#association.shutdown();
    });
    return { phase: 'awaiting-ng-setup', cancelTimer };
  }

  /** A warn line a peer can trigger in bulk: counted always, logged per the limiter (docs/n2.md). */
  #problem(kind: PeerProblemKind, fields: Record<string, unknown>, message: string): void {
    this.#context.peerLog.warn(kind, this.#peer, { radio: this.#address, ...fields }, message);
  }

  #stopSetupTimer(): void {
    if (this.#phase.phase === 'awaiting-ng-setup') this.#phase.cancelTimer();
  }

  /**
   * The radio of this association, if any, is no longer served through it: its procedures end, its UE
   * contexts lose their N2 connection, and it leaves the network state unless another association of
   * the same node has taken it over.
   */
  #releaseRadio(): void {
    if (this.#phase.phase !== 'ready') return;
    const radio = this.#phase.radio;
    radio.members = radio.members.filter((member) => member.association !== this);
    if (radio.members.length > 0) return this.#leave(radio);
    this.#cancelProcedures(radio);
    this.#context.ue?.radioGone(this.#link(radio));
    if (this.#context.owners.get(radio.id) === this) {
      this.#context.owners.delete(radio.id);
      this.#context.events.emit('radio.disconnected', { id: radio.id });
    }
  }

  /**
   * This association ends while others of its radio live: the radio stays connected. Its UEs are bound
   * to a remaining association that carries UE signalling, their next downlink message going on it
   * (TS 23.502 4.2.7.2.3: the AMF may rebind the UE to another TNLA of the same radio; no UE TNLA
   * Binding Release, which would leave the UE unreachable until the radio sends for it). When it carried
   * the radio's non-UE signalling, the first remaining association that may carry it takes over.
   */
  #leave(radio: ConnectedRadio): void {
    const first = radio.members[0]!.association;
    const ue = radio.members.find((member) => carriesUe(member.usage))?.association ?? first;
    if (this.#context.owners.get(radio.id) === this) {
      const next = radio.members.find((member) => carriesNonUe(member.usage))?.association ?? first;
      // Its pending procedures' answers would have come here.
      this.#cancelProcedures(radio);
      this.#context.owners.set(radio.id, next);
      this.#context.ue?.radioReady(next.#link(radio));
    }
    const address = this.#context.owners.get(radio.id)?.address;
    this.#context.events.emit('radio.updated', {
      id: radio.id,
      changes: { associations: associationsOf(radio), ...(address === undefined ? {} : { address }) },
    });
    this.#context.ue?.radioRebound(this.#link(radio), ue.#link(radio));
  }

  #close(how: { expected: boolean; cause?: string }): void {
    if (this.#phase.phase === 'closed') return;
    const context = this.#recordContext();
    this.#stopSetupTimer();
    this.#releaseRadio();
    this.#phase = { phase: 'closed' };
    this.#context.recorder.associationDown(context, how);
  }

  #cancelProcedures(radio: ConnectedRadio): void {
    for (const procedure of [radio.configurationUpdate, radio.reset]) {
      if (procedure.state !== 'idle') procedure.cancelTimer();
    }
    radio.configurationUpdate = { state: 'idle' };
    radio.reset = { state: 'idle' };
  }

  /** A PDU's summary for its radio event, with the SUPI of the UE its ids name (network.md section 3). */
  #details(pdu: NGAPPDU): PduDetails {
    const details = pduDetails(pdu);
    const { amf_ue_ngap_id: amfUeNgapId, ran_ue_ngap_id: ranUeNgapId } = details;
    if (this.#phase.phase !== 'ready' || (amfUeNgapId === undefined && ranUeNgapId === undefined))
      return details;
    const imsi = this.#context.ue?.subscriberOf(this.#phase.radio.id, amfUeNgapId, ranUeNgapId);
    if (imsi !== undefined) details.imsi = imsi;
    return details;
  }

  #recordContext(): RadioRecordContext {
    return this.#phase.phase === 'ready'
      ? { ranId: this.#phase.radio.id, name: this.#phase.radio.name, address: this.#address }
      : { ranId: this.#address, name: undefined, address: this.#address };
  }

  /** An NG Setup Request is recorded under the node it names, when its Global RAN Node ID reads. */
  #setupContext(pdu: NGAPPDU): RadioRecordContext {
    const read = readNGSetupRequest(pdu);
    const request = read.ok ? read.message : undefined;
    const node = request === undefined ? undefined : ranNodeOf(request.globalRanNodeId);
    const name = request && ranNodeName(request.ranNodeName, request.extendedRanNodeName);
    return { ranId: node?.id ?? this.#address, name: name ?? node?.id, address: this.#address };
  }

  /**
   * The radio's link, made once per NG Setup: every UE connection through the radio keeps it, so a
   * registered UE costs no link of its own (a link per message was about 400 bytes of heap per UE).
   */
  #link(radio: ConnectedRadio): RadioLink {
    let link = this.#links.get(radio);
    if (link === undefined) {
      const association = this.#association;
      link = {
        id: radio.id,
        // Read when named or paging: RAN Configuration Update replaces both.
        get name() {
          return radio.name;
        },
        outboundStreams: association.streams.outbound,
        get supportedTais() {
          return radio.supportedTais;
        },
        send: (pdu, streamId) => this.#send(pdu, this.#recordContext(), {}, streamId),
      };
      this.#links.set(radio, link);
    }
    return link;
  }
}
