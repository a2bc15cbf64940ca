import type { Timers } from '../../clock.ts';
import { systemTimers } from '../../clock.ts';
import {
  decodeNasMessage,
  encodeNasMessage,
  PCO_CONTAINER,
  PDU_SESSION_TYPE,
  type FiveGsmMessage,
  type NasMessageOf,
  type SessionAmbr,
  type SNssai,
} from '../../network/nas/index.ts';
import type { SimulatedUe } from './simulated-ue.ts';

/**
 * The simulated UE's side of 5GS session management (TS 24.501 6.4.1 establishment, 6.4.3 release, and
 * the network's 6.3.2 modification and 6.3.3 release): 5GSM messages in UL/DL NAS Transport over the
 * UE's NAS connection. A UE-requested procedure returns a promise of its outcome, guarded by T3580 /
 * T3582 (16 s, TS 24.501 10.3) without retransmission; network-requested ones are answered at once and
 * heard through `on(listener)`.
 */

/** Payload container type "N1 SM information" (9.11.3.40). */
const N1_SM_INFORMATION = 1;
/** Request type "initial request" (9.11.3.47). */
const INITIAL_REQUEST = 1;
const T3580_MS = 16_000;

export type UeIpType = 'IPv4' | 'IPv6' | 'IPv4v6';

const TYPE_CODE: Record<UeIpType, number> = {
  IPv4: PDU_SESSION_TYPE.ipv4,
  IPv6: PDU_SESSION_TYPE.ipv6,
  IPv4v6: PDU_SESSION_TYPE.ipv4v6,
};
const TYPE_NAME: Record<number, UeIpType> = { 1: 'IPv4', 2: 'IPv6', 3: 'IPv4v6' };

interface SessionRequest {
  /** 1..15; the lowest free one unless given. */
  pduSessionId?: number;
  /** Absent: the UE lets the network choose (no PDU session type IE). */
  type?: UeIpType;
  dnn?: string;
  sNssai?: SNssai;
}

/** An established PDU session as the UE holds it. */
interface UeSession {
  pduSessionId: number;
  ipType: UeIpType;
  ipv4: string | undefined;
  /** The interface identifier the network gave for IPv6 (8 octets), if any. */
  ipv6InterfaceIdentifier: Uint8Array | undefined;
  sessionAmbr: SessionAmbr;
  /** QFI of the default QoS rule. */
  qfi: number | undefined;
  /** 5QI of the authorised QoS flow description, if given. */
  fiveQi: number | undefined;
  dnn: string | undefined;
  sNssai: SNssai | undefined;
  dns: string | undefined;
  mtu: number | undefined;
  /** The 5GSM cause of the Accept (e.g. #50 when IPv4v6 became IPv4). */
  cause: number | undefined;
}

export type EstablishmentOutcome =
  | { outcome: 'accepted'; session: UeSession }
  | { outcome: 'rejected'; cause: number }
  /** The AMF sent the request back (5GMM cause #90 and the like). */
  | { outcome: 'not-forwarded'; fiveGmmCause: number | undefined }
  | { outcome: 'failed'; reason: string };

type ReleaseOutcome =
  | { outcome: 'released'; cause: number }
  | { outcome: 'rejected'; cause: number }
  | { outcome: 'failed'; reason: string };

export type UeSessionEvent =
  | { type: 'modified'; session: UeSession }
  | { type: 'released'; pduSessionId: number; cause: number }
  /** The network's PDU session status (Service or Registration Accept) lacked it: released locally. */
  | { type: 'released-locally'; pduSessionId: number }
  | { type: 'modification-rejected'; pduSessionId: number; cause: number }
  /** A network command the UE was told to stay silent to (`staySilentTo`) arrived and was ignored. */
  | { type: 'ignored'; messageType: SilenceableCommand; pduSessionId: number; cause: number | undefined };

/** The network's commands a UE can be told to ignore, to exercise T3591 and T3592 (TS 24.501 6.3.2.5, 6.3.3.5). */
type SilenceableCommand = 'pduSessionModificationCommand' | 'pduSessionReleaseCommand';

type Pending =
  | {
      kind: 'establishment';
      request: SessionRequest & { pduSessionId: number };
      settle: (o: EstablishmentOutcome) => void;
    }
  | { kind: 'release'; pduSessionId: number; settle: (o: ReleaseOutcome) => void };

export class UeSessions {
  readonly #ue: SimulatedUe;
  readonly #timers: Timers;
  readonly #sessions = new Map<number, UeSession>();
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(event: UeSessionEvent) => void>();
  #silentTo: ReadonlySet<SilenceableCommand> = new Set();
  #nextPti = 1;

  constructor(ue: SimulatedUe, options: { timers?: Timers } = {}) {
    this.#ue = ue;
    this.#timers = options.timers ?? systemTimers;
    ue.providePduSessions(() => [...this.#sessions.keys()].sort((a, b) => a - b));
    ue.on((event) => {
      if (event.type !== 'nas' || event.exchange.direction !== 'downlink') return;
      const type = event.exchange.messageType;
      if (type !== 'dlNasTransport' && type !== 'serviceAccept' && type !== 'registrationAccept') return;
      const decoded = decodeNasMessage(event.exchange.plain);
      if (!decoded.ok) return;
      if (decoded.message.messageType === 'dlNasTransport') this.#dlNasTransport(decoded.message);
      if (
        decoded.message.messageType === 'serviceAccept' ||
        decoded.message.messageType === 'registrationAccept'
      )
        this.#networkStatus(decoded.message.pduSessionStatus);
    });
  }

  /** PDU Session Modification Request (6.4.2.2) with what `request` adds; answered by `modified` or
   * `modification-rejected` events (the network's Command is completed at once). */
  requestModification(
    pduSessionId: number,
    request: Omit<NasMessageOf<'pduSessionModificationRequest'>, 'messageType' | 'pduSessionId' | 'pti'> = {},
  ): boolean {
    return this.#send({
      ...request,
      messageType: 'pduSessionModificationRequest',
      pduSessionId,
      pti: this.#pti(),
    });
  }

  /**
   * The PDU session status of Service Accept or Registration Accept (TS 24.501 5.6.1.4.1, 5.5.1.3.4): a
   * session the network no longer has is released locally.
   */
  #networkStatus(status: readonly number[] | undefined): void {
    if (status === undefined) return;
    for (const id of [...this.#sessions.keys()]) {
      if (status.includes(id)) continue;
      this.#sessions.delete(id);
      this.#emit({ type: 'released-locally', pduSessionId: id });
    }
  }

  /**
   * Releases a PDU session locally, without signalling (as a UE does when its lower layers fail it, TS
   * 24.501 6.4.1.5, 6.4.3.5): the network learns it from the next PDU session status the UE sends.
   */
  releaseLocally(pduSessionId: number): boolean {
    return this.#sessions.delete(pduSessionId);
  }

  /**
   * Misbehaviour on demand: from now on the UE neither answers nor acts on these network commands
   * (the network's T3591 / T3592 then retransmit them and give up, TS 24.501 6.3.2.5, 6.3.3.5); each
   * one heard is an `ignored` event. An empty list makes it answer again.
   */
  staySilentTo(commands: readonly SilenceableCommand[]): void {
    this.#silentTo = new Set(commands);
  }

  get(pduSessionId: number): UeSession | undefined {
    return this.#sessions.get(pduSessionId);
  }

  all(): UeSession[] {
    return [...this.#sessions.values()];
  }

  on(listener: (event: UeSessionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The first later event `select` maps to a value; rejects after `timeoutMs`. */
  next<T>(select: (event: UeSessionEvent) => T | undefined, timeoutMs = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const cancel = this.#timers.after(timeoutMs, () => {
        unsubscribe();
        reject(new Error(`${this.#ue.imsi}: no matching session event within ${timeoutMs} ms`));
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

  /**
   * PDU Session Establishment Request (6.4.1.2) in UL NAS Transport with the DNN, S-NSSAI and request
   * type "initial request"; its ePCO asks for DNS servers and the IPv4 link MTU.
   */
  establish(request: SessionRequest = {}): Promise<EstablishmentOutcome> {
    const pduSessionId = request.pduSessionId ?? this.#freeId();
    if (pduSessionId === undefined)
      return Promise.resolve({ outcome: 'failed', reason: 'no free PDU session id' });
    const pti = this.#pti();
    const message: NasMessageOf<'pduSessionEstablishmentRequest'> = {
      messageType: 'pduSessionEstablishmentRequest',
      pduSessionId,
      pti,
      // 9.11.4.7: full data rate both ways.
      integrityProtectionMaximumDataRate: { uplink: 0xff, downlink: 0xff },
      ...(request.type === undefined ? {} : { pduSessionType: TYPE_CODE[request.type] }),
      extendedProtocolConfigurationOptions: {
        configurationProtocol: 0,
        options: [
          PCO_CONTAINER.dnsServerIpv4Address,
          PCO_CONTAINER.dnsServerIpv6Address,
          PCO_CONTAINER.ipv4LinkMtu,
        ].map((identifier) => ({ kind: 'raw' as const, identifier, contents: new Uint8Array() })),
      },
    };
    return new Promise((resolve) => {
      const settle = this.#guard<EstablishmentOutcome>(pti, resolve);
      this.#pending.set(pti, { kind: 'establishment', request: { ...request, pduSessionId }, settle });
      const sent = this.#send(message, {
        requestType: INITIAL_REQUEST,
        ...(request.dnn === undefined ? {} : { dnn: request.dnn }),
        ...(request.sNssai === undefined ? {} : { sNssai: request.sNssai }),
      });
      if (!sent) settle({ outcome: 'failed', reason: 'not registered and connected' });
    });
  }

  /** PDU Session Release Request (6.4.3.2) with #36 regular deactivation. */
  release(pduSessionId: number): Promise<ReleaseOutcome> {
    const pti = this.#pti();
    return new Promise((resolve) => {
      const settle = this.#guard<ReleaseOutcome>(pti, resolve);
      this.#pending.set(pti, { kind: 'release', pduSessionId, settle });
      const sent = this.#send({
        messageType: 'pduSessionReleaseRequest',
        pduSessionId,
        pti,
        fiveGsmCause: 36,
      });
      if (!sent) settle({ outcome: 'failed', reason: 'not registered and connected' });
    });
  }

  #guard<T extends EstablishmentOutcome | ReleaseOutcome>(
    pti: number,
    resolve: (o: T) => void,
  ): (o: T) => void {
    let settled = false;
    const settle = (outcome: T): void => {
      if (settled) return;
      settled = true;
      cancel();
      this.#pending.delete(pti);
      resolve(outcome);
    };
    const failed: { outcome: 'failed'; reason: string } = { outcome: 'failed', reason: 'T3580 expired' };
    const cancel = this.#timers.after(T3580_MS, () => settle(failed as T));
    return settle;
  }

  #dlNasTransport(message: NasMessageOf<'dlNasTransport'>): void {
    if (message.payloadContainerType !== N1_SM_INFORMATION) return;
    const decoded = decodeNasMessage(message.payloadContainer);
    if (!decoded.ok || !('pti' in decoded.message)) return;
    const sm = decoded.message;
    if (message.fiveGmmCause !== undefined) {
      // 5.4.5.3.3: our own message came back: the AMF did not forward it.
      const pending = this.#pending.get(sm.pti);
      if (pending?.kind === 'establishment')
        pending.settle({ outcome: 'not-forwarded', fiveGmmCause: message.fiveGmmCause });
      return;
    }
    this.#handle(sm);
  }

  #handle(sm: FiveGsmMessage): void {
    if (
      (sm.messageType === 'pduSessionModificationCommand' || sm.messageType === 'pduSessionReleaseCommand') &&
      this.#silentTo.has(sm.messageType)
    ) {
      const cause = sm.messageType === 'pduSessionReleaseCommand' ? sm.fiveGsmCause : undefined;
      this.#emit({ type: 'ignored', messageType: sm.messageType, pduSessionId: sm.pduSessionId, cause });
      return;
    }
    const pending = this.#pending.get(sm.pti);
    switch (sm.messageType) {
      case 'pduSessionEstablishmentAccept': {
        if (pending?.kind !== 'establishment') return;
        const session = this.#sessionOf(sm, pending.request);
        this.#sessions.set(session.pduSessionId, session);
        pending.settle({ outcome: 'accepted', session });
        return;
      }
      case 'pduSessionEstablishmentReject':
        if (pending?.kind === 'establishment')
          pending.settle({ outcome: 'rejected', cause: sm.fiveGsmCause });
        return;
      case 'pduSessionReleaseReject':
        if (pending?.kind === 'release') pending.settle({ outcome: 'rejected', cause: sm.fiveGsmCause });
        return;
      case 'pduSessionModificationReject':
        this.#emit({ type: 'modification-rejected', pduSessionId: sm.pduSessionId, cause: sm.fiveGsmCause });
        return;
      case 'pduSessionReleaseCommand': {
        // 6.3.3.3 / 6.4.3.3: Release Complete, the session is gone.
        this.#send({ messageType: 'pduSessionReleaseComplete', pduSessionId: sm.pduSessionId, pti: sm.pti });
        this.#sessions.delete(sm.pduSessionId);
        if (pending?.kind === 'release') pending.settle({ outcome: 'released', cause: sm.fiveGsmCause });
        else this.#emit({ type: 'released', pduSessionId: sm.pduSessionId, cause: sm.fiveGsmCause });
        return;
      }
      case 'pduSessionModificationCommand': {
        // 6.3.2.3: the new values are taken and Modification Complete answers.
        const session = this.#sessions.get(sm.pduSessionId);
        this.#send({
          messageType: 'pduSessionModificationComplete',
          pduSessionId: sm.pduSessionId,
          pti: sm.pti,
        });
        if (session === undefined) return;
        if (sm.sessionAmbr !== undefined) session.sessionAmbr = sm.sessionAmbr;
        const fiveQi = fiveQiOf(sm.authorizedQosFlowDescriptions);
        if (fiveQi !== undefined) session.fiveQi = fiveQi;
        this.#emit({ type: 'modified', session });
        return;
      }
      default:
        return;
    }
  }

  #sessionOf(
    accept: NasMessageOf<'pduSessionEstablishmentAccept'>,
    request: SessionRequest & { pduSessionId: number },
  ): UeSession {
    const options = accept.extendedProtocolConfigurationOptions?.options ?? [];
    const dns = options.find((o) => o.kind === 'dns-server-ipv4');
    const mtu = options.find((o) => o.kind === 'ipv4-link-mtu');
    return {
      pduSessionId: request.pduSessionId,
      ipType: TYPE_NAME[accept.selectedPduSessionType] ?? 'IPv4',
      ipv4: accept.pduAddress?.ipv4,
      ipv6InterfaceIdentifier: accept.pduAddress?.ipv6InterfaceIdentifier,
      sessionAmbr: accept.sessionAmbr,
      qfi: accept.authorizedQosRules.find((rule) => rule.defaultRule)?.qfi,
      fiveQi: fiveQiOf(accept.authorizedQosFlowDescriptions),
      dnn: accept.dnn,
      sNssai: accept.sNssai,
      dns: dns?.kind === 'dns-server-ipv4' ? dns.address : undefined,
      mtu: mtu?.kind === 'ipv4-link-mtu' ? mtu.mtu : undefined,
      cause: accept.fiveGsmCause,
    };
  }

  #send(sm: FiveGsmMessage, info: { requestType?: number; dnn?: string; sNssai?: SNssai } = {}): boolean {
    return this.#ue.uplinkNasTransport({
      messageType: 'ulNasTransport',
      payloadContainerType: N1_SM_INFORMATION,
      payloadContainer: encodeNasMessage(sm),
      pduSessionId: sm.pduSessionId,
      ...(info.requestType === undefined ? {} : { requestType: info.requestType }),
      ...(info.sNssai === undefined ? {} : { sNssai: info.sNssai }),
      ...(info.dnn === undefined ? {} : { dnn: info.dnn }),
    });
  }

  #freeId(): number | undefined {
    for (let id = 1; id <= 15; id++) if (!this.#sessions.has(id)) return id;
    return undefined;
  }

  /** PTI 1..254 (TS 24.007 11.2.3.1a: 0 unassigned, 255 reserved). */
  #pti(): number {
    const pti = this.#nextPti;
    this.#nextPti = pti >= 254 ? 1 : pti + 1;
    return pti;
  }

  #emit(event: UeSessionEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }
}

function fiveQiOf(
  flows: NasMessageOf<'pduSessionEstablishmentAccept'>['authorizedQosFlowDescriptions'],
): number | undefined {
  const parameter = flows?.[0]?.parameters.find((p) => p.identifier === 1);
  return parameter?.contents[0];
}
