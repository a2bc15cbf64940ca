import type { Timers } from '../../clock.ts';
import { systemTimers } from '../../clock.ts';
import { ACCESS_TYPE, deriveKamf, deriveKgnb, servingNetworkName } from '../../crypto/key-hierarchy.ts';
import { causeLabel, GMM_CAUSE } from '../../network/nas/causes.ts';
import type { Guti, MobileIdentity } from '../../network/nas/ie/mobile-identity.ts';
import { IDENTITY_TYPE } from '../../network/nas/ie/mobile-identity.ts';
import type { NasKeySetIdentifier } from '../../network/nas/ie/mobility.ts';
import { timerSeconds } from '../../network/nas/ie/mobility.ts';
import type { SNssai } from '../../network/nas/ie/nssai.ts';
import type { PartialTaiList } from '../../network/nas/ie/tracking-area.ts';
import type { NasMessage, NasMessageOf } from '../../network/nas/message-codec.ts';
import type { NasDecodeResult } from '../../network/nas/message-codec.ts';
import { encodeNasMessage } from '../../network/nas/message-codec.ts';
import { withCipheredContainer } from '../../network/nas/initial-message-container.ts';
import { decodeNasPdu, SECURITY_HEADER_TYPE } from '../../network/nas/security-header.ts';
import type { ProtectedSecurityHeaderType } from '../../network/nas/security-header.ts';
import type { NasSecurityContext } from '../../network/nas-security/index.ts';
import {
  createNasSecurityContext,
  deriveContextKgnb,
  isNasAlgorithm,
  makeCurrent,
  protect,
  unprotect,
} from '../../network/nas-security/index.ts';
import type { RRCEstablishmentCause } from '../../network/ngap/generated/types.ts';
import type { FiveGSTmsi } from './ran-ue-messages.ts';
import type { UeConfig } from './ue-config.ts';
import { concealSupi, imeiOf, validateUeConfig } from './ue-config.ts';
import type { RegistrationKind } from './ue-nas-messages.ts';
import {
  cleartextRegistrationRequest,
  fullRegistrationRequest,
  NO_KEY,
  SERVICE_TYPE,
  UE_CAUSE,
} from './ue-nas-messages.ts';
import { lppUplink } from './ue-lpp.ts';
import { UeSms } from './ue-sms.ts';
import { PAYLOAD_CONTAINER_SMS } from '../../network/sms/cp.ts';
import { NO_POSITIONING } from './ue-positioning.ts';
import type { UePositioning } from './ue-positioning.ts';
import type { RadioUe, RrcConnection, UeRadio } from './ue-radio.ts';
import { Usim } from './usim.ts';

/**
 * A simulated UE: the device side of 5GS mobility management (TS 24.501 5.4-5.6) over a simulated gNB.
 * It registers (initial with SUCI or a stored 5G-GUTI, mobility and periodic updating), answers identity,
 * authentication (its USIM, TS 33.102 / TS 33.501 6.1.3.2) and security mode, completes the registration
 * and configuration updates, deregisters (normal or switch-off) or accepts the network's deregistration,
 * goes idle when its connection is released and comes back with a service request (its own or after
 * paging). NAS security uses the same context code as the AMF (`nas-security`, side 'ue').
 *
 * Each UE-initiated procedure returns a promise of its outcome and is guarded by its 3GPP timer (T3510,
 * T3517, T3521, TS 24.501 10.2). On T3510's expiry the attempt is aborted and, while the registration
 * attempt counter is below `registrationAttempts`, the Registration Request goes again after T3511
 * (5.5.1.2.7 c, 5.5.1.3.7 c); T3521 retransmits the Deregistration Request `t3521Retransmissions` times
 * (5.5.2.2.6 b); T3517's expiry aborts the service request (5.6.1.7 c: no retransmission).
 */

/** 5GMM states of TS 24.501 5.1.3.2.1 with the procedure in progress. */
type UeState =
  | { kind: 'deregistered' }
  | {
      kind: 'registered-initiated';
      registration: RegistrationKind;
      settle: (o: RegistrationOutcome) => void;
      /** The attempt failed (TS 24.501 5.5.1.2.7): true when another follows after T3511. */
      nextAttempt: () => boolean;
    }
  | { kind: 'registered' }
  | { kind: 'service-request-initiated'; settle: (o: ServiceOutcome) => void }
  | { kind: 'deregistered-initiated'; settle: (o: DeregistrationOutcome) => void };

type UeStateKind = UeState['kind'];

/** A procedure that ended abnormally: its timer expired, the connection was released, nothing could be sent. */
interface Failed {
  outcome: 'failed';
  reason: string;
}

export type RegistrationOutcome =
  | {
      outcome: 'accepted';
      guti: Guti | undefined;
      allowedNssai: SNssai[];
      /** T3512 in seconds; undefined when the network deactivated it or sent none. */
      t3512Seconds: number | undefined;
      taiList: PartialTaiList[];
    }
  | { outcome: 'rejected'; cause: number; causeName: string }
  | { outcome: 'authentication-rejected' }
  | Failed;

export type ServiceOutcome =
  | { outcome: 'accepted' }
  | { outcome: 'rejected'; cause: number; causeName: string }
  | { outcome: 'authentication-rejected' }
  | Failed;

type DeregistrationOutcome =
  | { outcome: 'accepted' }
  /** Switch-off: no Deregistration Accept follows (TS 24.501 5.5.2.2.2). */
  | { outcome: 'switched-off' }
  | Failed;

/** One NAS message either way: the plain message and the PDU as it travelled. */
interface NasExchange {
  direction: 'uplink' | 'downlink';
  messageType: string;
  plain: Uint8Array;
  pdu: Uint8Array;
  /**
   * An initial NAS message sent with a ciphered NAS message container (TS 24.501 4.4.6): the whole
   * message the container holds, in plain (`plain` is the cleartext message that carried it).
   */
  contained?: Uint8Array;
}

export type UeEvent =
  | { type: 'nas'; exchange: NasExchange }
  /** A downlink PDU the UE dropped (TS 24.501 4.4.4.2: integrity check failed, replay, not decodable). */
  | { type: 'discarded'; reason: string; pdu: Uint8Array }
  | { type: 'state'; state: UeStateKind }
  | { type: 'connected' }
  | { type: 'released' }
  | { type: 'context-setup'; kgnbMatches: boolean }
  /** The gNB took a KgNB from a new KAMF into use (`keyChanged`): whether it is the UE's own. */
  | { type: 'key-changed'; kgnbMatches: boolean }
  | { type: 'configuration-update'; guti: Guti | undefined }
  | { type: 'deregistered-by-network'; cause: number | undefined; reRegistrationRequired: boolean }
  | { type: 'paged'; outcome: ServiceOutcome }
  | { type: 'periodic-registration'; outcome: RegistrationOutcome }
  /** The mobility registration update a handover out of the registration area started (`handedOver`). */
  | { type: 'mobility-registration'; outcome: RegistrationOutcome };

export interface UeProcedureTimers {
  /** T3510, registration (15 s). */
  t3510: number;
  /** T3517, service request (15 s). */
  t3517: number;
  /** T3521, deregistration (15 s). */
  t3521: number;
  /** T3511, the wait before another registration attempt (10 s). */
  t3511: number;
  /**
   * Registration attempts before the UE gives up (TS 24.501 5.5.1.2.7: the attempt counter's limit is 5).
   * 1 by default: a simulated UE reports its first failure at once to the test or benchmark driving it.
   */
  registrationAttempts: number;
  /** Retransmissions of the Deregistration Request on T3521's expiry (5.5.2.2.6 b: 4). */
  t3521Retransmissions: number;
}

/** TS 24.501 10.2, Table 10.2.1; the registration attempt counter as said above. */
const DEFAULT_UE_TIMERS: UeProcedureTimers = {
  t3510: 15_000,
  t3517: 15_000,
  t3521: 15_000,
  t3511: 10_000,
  registrationAttempts: 1,
  t3521Retransmissions: 4,
};

export interface UeOptions {
  config: UeConfig;
  radio: UeRadio;
  timers?: Timers;
  procedureTimers?: Partial<UeProcedureTimers>;
  /** Keep every NAS exchange in `log` (default true); thousands of UEs in a benchmark do without. */
  keepLog?: boolean;
}

/** A procedure was asked for in a state that does not allow it. */
class UeProcedureError extends Error {
  override readonly name = 'UeProcedureError';
}

/** Plain 5GMM messages a UE accepts without integrity protection (TS 24.501 4.4.4.2). */
const ACCEPTED_PLAIN = new Set<string>([
  'identityRequest',
  'authenticationRequest',
  'authenticationResult',
  'authenticationReject',
  'registrationReject',
  'deregistrationAcceptUeOriginating',
  'serviceReject',
]);

const MS_PER_SECOND = 1000;

/**
 * The 5GMM causes of a Registration Reject that TS 24.501 5.5.1.2.5 (Release 17) lists for an initial
 * registration; the UE treats any other as an abnormal case (5.5.1.2.7 d): another attempt after T3511.
 */
const INITIAL_REGISTRATION_REJECT_CAUSES: ReadonlySet<number> = new Set([
  3, 5, 6, 7, 11, 12, 13, 15, 22, 27, 31, 36, 62, 72, 73, 74, 75, 76, 77, 78, 79, 80,
]);

/** Causes after which the UE considers the USIM invalid for 5GS services until switched off (5.5.1.2.5). */
const USIM_INVALIDATING_CAUSES: ReadonlySet<number> = new Set([
  GMM_CAUSE.illegalUe,
  6, // Illegal ME
  GMM_CAUSE.fiveGsServicesNotAllowed,
]);

export class SimulatedUe implements RadioUe {
  readonly config: UeConfig;
  readonly usim: Usim;
  readonly #timers: Timers;
  readonly #procedureTimers: UeProcedureTimers;
  #radio: UeRadio;
  #state: UeState = { kind: 'deregistered' };
  #connection: RrcConnection | undefined;
  /** KAMF and ngKSI of the last successful authentication, until a security mode command uses them. */
  #authenticated: { kamf: Buffer; ngKsi: NasKeySetIdentifier } | undefined;
  #security: NasSecurityContext | undefined;
  /** The context a Security Mode Command (header type 3) created and verified, until it is handled. */
  #pendingContext: NasSecurityContext | undefined;
  /** The uplink NAS COUNT of the last Security Mode Complete, the input of a key change's KgNB (A.9). */
  #securityModeCompleteCount: number | undefined;
  #guti: Guti | undefined;
  #allowedNssai: SNssai[] = [];
  #taiList: PartialTaiList[] = [];
  #t3512Seconds: number | undefined;
  #cancelT3512: (() => void) | undefined;
  /** The full Registration Request of the registration in progress, for the SMC's container. */
  #pendingRequest: NasMessageOf<'registrationRequest'> | undefined;
  #cancelGuard: (() => void) | undefined;
  /** T3511 runs: the last registration attempt failed and another follows (5.5.1.2.7). */
  #betweenAttempts = false;
  /** The 5GMM cause that made the USIM invalid for 5GS services (5.5.1.2.5), until switched off. */
  #usimInvalid: number | undefined;
  #silent = false;
  /** The PDU sessions the UE holds (its 5GSM side, ue-sessions.ts), for PDU session status. */
  #pduSessions: (() => number[]) | undefined;
  readonly #listeners = new Set<(event: UeEvent) => void>();
  /** Every NAS message, both ways, in order (unless `keepLog` is false). */
  readonly log: NasExchange[] = [];
  readonly #keepLog: boolean;
  /** SMS over NAS (ue-sms.ts): send text, and the inbox of what the network delivered. */
  readonly sms: UeSms;
  /** The last Registration Accept said "SMS over NAS allowed" (TS 24.501 9.11.3.6). */
  #smsAllowed = false;

  constructor(options: UeOptions) {
    validateUeConfig(options.config);
    this.config = options.config;
    this.usim = new Usim({ key: options.config.key, opc: options.config.opc }, options.config.sqn);
    this.#timers = options.timers ?? systemTimers;
    this.#procedureTimers = { ...DEFAULT_UE_TIMERS, ...options.procedureTimers };
    this.#radio = options.radio;
    this.#keepLog = options.keepLog ?? true;
    this.sms = new UeSms(
      (container) =>
        void this.#send({
          messageType: 'ulNasTransport',
          payloadContainerType: PAYLOAD_CONTAINER_SMS,
          payloadContainer: container,
        }),
      this.#timers,
    );
    this.#radio.camp(this);
  }

  get imsi(): string {
    return this.config.imsi;
  }

  get state(): UeStateKind {
    return this.#state.kind;
  }

  /** CM-CONNECTED (an RRC connection and its NG connection) or CM-IDLE. */
  get connected(): boolean {
    return this.#connection?.open === true;
  }

  get guti(): Guti | undefined {
    return this.#guti;
  }

  /** The USIM is invalid for 5GS services after Registration Reject #3, #6 or #7 (TS 24.501 5.5.1.2.5). */
  get usimValid(): boolean {
    return this.#usimInvalid === undefined;
  }

  /** The network allows SMS over NAS (the last Registration Accept's 5GS registration result). */
  get smsAllowed(): boolean {
    return this.#smsAllowed;
  }

  get allowedNssai(): readonly SNssai[] {
    return this.#allowedNssai;
  }

  get radio(): UeRadio {
    return this.#radio;
  }

  /** The current NAS security context's algorithms, once security mode completed. */
  get algorithms(): { ciphering: number; integrity: number } | undefined {
    const context = this.#security;
    return context === undefined ? undefined : { ciphering: context.ciphering, integrity: context.integrity };
  }

  get connection(): RrcConnection | undefined {
    return this.#connection;
  }

  on(listener: (event: UeEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The first later event `select` maps to a value; rejects after `timeoutMs`. */
  next<T>(select: (event: UeEvent) => T | undefined, timeoutMs = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const cancel = this.#timers.after(timeoutMs, () => {
        unsubscribe();
        reject(new UeProcedureError(`${this.imsi}: no matching event within ${timeoutMs} ms`));
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

  /** Camps on another cell (idle mode reselection); a mobility registration update may follow. */
  moveTo(radio: UeRadio): void {
    if (this.connected) throw new UeProcedureError('a connected UE moves by handover, not reselection');
    this.#radio.leave(this);
    this.#radio = radio;
    radio.camp(this);
  }

  /**
   * Initial registration (TS 24.501 5.5.1.2) with the stored 5G-GUTI, or a fresh SUCI when there is none
   * or `identity` says so.
   */
  register(identity: 'guti' | 'suci' = 'guti'): Promise<RegistrationOutcome> {
    if (this.#state.kind !== 'deregistered')
      return Promise.reject(new UeProcedureError(`register in state ${this.#state.kind}`));
    if (this.#usimInvalid !== undefined)
      return Promise.reject(
        new UeProcedureError(
          `the USIM is invalid for 5GS services (${causeLabel('5gmm', this.#usimInvalid)}, TS 24.501 5.5.1.2.5)`,
        ),
      );
    if (this.connected)
      return Promise.reject(new UeProcedureError('register while a connection is still open'));
    const mobileIdentity: MobileIdentity =
      identity === 'guti' && this.#guti !== undefined ? this.#guti : concealSupi(this.config);
    const input = {
      kind: 'initial' as const,
      ngKsi: NO_KEY,
      identity: mobileIdentity,
      securityCapability: this.config.securityCapability,
      requestedNssai: this.config.requestedNssai,
      smsRequested: this.config.sms === true,
      imsVoice: this.config.imsVoice === true,
    };
    this.#pendingRequest = fullRegistrationRequest(input);
    return this.#registration('initial', cleartextRegistrationRequest(input));
  }

  /**
   * Mobility or periodic registration updating (TS 24.501 5.5.1.3): from idle, integrity-protected with
   * the current security context, its non-cleartext IEs in the ciphered NAS message container (4.4.6);
   * a mobility update also in 5GMM-CONNECTED mode, over the open connection (5.5.1.3.2 a, after a
   * handover: `handedOver`). Like a Service Request it carries the PDU session status IE when the UE's
   * sessions are known (`providePduSessions`) and Uplink data status with `uplinkData` (5.5.1.3.2).
   */
  registrationUpdate(
    kind: 'mobility' | 'periodic',
    options: { uplinkData?: number[] } = {},
  ): Promise<RegistrationOutcome> {
    if (this.#state.kind !== 'registered' || this.#guti === undefined || this.#security === undefined)
      return Promise.reject(new UeProcedureError(`registration update in state ${this.#state.kind}`));
    // T3512 runs only in 5GMM-IDLE (5.3.7): a periodic update never starts from a connection.
    if (this.connected && kind === 'periodic')
      return Promise.reject(new UeProcedureError('periodic registration update while connected'));
    const input = {
      kind,
      ngKsi: this.#security.ngKsi,
      identity: this.#guti,
      securityCapability: this.config.securityCapability,
      requestedNssai: this.config.requestedNssai,
      smsRequested: this.config.sms === true,
      imsVoice: this.config.imsVoice === true,
    };
    const sessions = {
      ...(options.uplinkData === undefined ? {} : { uplinkDataStatus: options.uplinkData }),
      ...(this.#pduSessions === undefined ? {} : { pduSessionStatus: this.#pduSessions() }),
    };
    this.#pendingRequest = { ...fullRegistrationRequest(input), ...sessions };
    return this.#registration(kind, this.#pendingRequest);
  }

  /**
   * The UE reached a new cell by handover (RRC reconfiguration with sync, TS 38.331 5.3.5.5): when the
   * cell's TAI is not in its registration area (the last TAI list), it starts a mobility registration
   * update over the connection (TS 24.501 5.5.1.3.2 a; TS 23.502 4.9.1.3.3 step 9), reported by a
   * `mobility-registration` event. True when it started one.
   */
  handedOver(): boolean {
    if (this.#state.kind !== 'registered' || !this.connected || this.inRegistrationArea) return false;
    void this.registrationUpdate('mobility').then((outcome) =>
      this.#emit({ type: 'mobility-registration', outcome }),
    );
    return true;
  }

  /** The serving cell's TAI is in the TAI list of the last Registration Accept or Configuration Update. */
  get inRegistrationArea(): boolean {
    const { plmn, tac } = this.#radio.cell;
    const ours = (entry: { mcc: string; mnc: string }): boolean =>
      entry.mcc === plmn.mcc && entry.mnc === plmn.mnc;
    return this.#taiList.some((list) => {
      switch (list.type) {
        case 'non-consecutive-tacs':
          return ours(list.plmn) && list.tacs.includes(tac);
        case 'consecutive-tacs':
          return ours(list.plmn) && tac >= list.firstTac && tac < list.firstTac + list.count;
        case 'multiple-plmns':
          return list.tais.some((entry) => ours(entry) && entry.tac === tac);
      }
    });
  }

  /**
   * Where the UE's PDU sessions are known (its 5GSM side): its Service Requests and registration updates
   * then carry the PDU session status IE (TS 24.501 5.6.1.2, 5.5.1.3.2).
   */
  providePduSessions(sessions: () => number[]): void {
    this.#pduSessions = sessions;
  }

  /**
   * Service request from idle (TS 24.501 5.6.1): `signalling` unless paged, `data` with the PDU
   * sessions that have uplink data (Uplink data status IE). The PDU session status IE goes when the
   * UE's sessions are known (`providePduSessions`). Both travel in the ciphered NAS message container
   * (4.4.6), beside the cleartext IEs.
   */
  serviceRequest(
    serviceType: keyof typeof SERVICE_TYPE = 'signalling',
    options: { uplinkData?: number[] } = {},
  ): Promise<ServiceOutcome> {
    const security = this.#security;
    const sTmsi = this.sTmsi;
    if (this.#state.kind !== 'registered' || security === undefined || sTmsi === undefined)
      return Promise.reject(new UeProcedureError(`service request in state ${this.#state.kind}`));
    if (this.connected) return Promise.reject(new UeProcedureError('service request while connected'));
    this.#cancelT3512?.();
    return new Promise<ServiceOutcome>((resolve) => {
      const { settle } = this.#guarded<ServiceOutcome>(this.#procedureTimers.t3517, 'T3517', resolve);
      this.#setState({ kind: 'service-request-initiated', settle });
      const request: NasMessageOf<'serviceRequest'> = {
        messageType: 'serviceRequest',
        ngKsi: security.ngKsi,
        serviceType: SERVICE_TYPE[serviceType],
        fiveGSTmsi: { type: '5g-s-tmsi', ...sTmsi },
        ...(options.uplinkData === undefined ? {} : { uplinkDataStatus: options.uplinkData }),
        ...(this.#pduSessions === undefined ? {} : { pduSessionStatus: this.#pduSessions() }),
      };
      const cause: RRCEstablishmentCause =
        serviceType === 'mobileTerminatedServices' ? 'mt-Access' : 'mo-Signalling';
      if (!this.#send(request, cause)) settle({ outcome: 'failed', reason: 'no connection to the network' });
    });
  }

  /**
   * UE-initiated deregistration (TS 24.501 5.5.2.2), normal or switch-off; from idle it opens a connection
   * first. The current security context is dropped afterwards; the 5G-GUTI is kept for the next
   * registration.
   */
  deregister(options: { switchOff?: boolean } = {}): Promise<DeregistrationOutcome> {
    const switchOff = options.switchOff ?? false;
    if (this.#state.kind !== 'registered' || this.#guti === undefined)
      return Promise.reject(new UeProcedureError(`deregister in state ${this.#state.kind}`));
    this.#cancelT3512?.();
    const request: NasMessageOf<'deregistrationRequestUeOriginating'> = {
      messageType: 'deregistrationRequestUeOriginating',
      deregistrationType: { switchOff, reRegistrationRequired: false, accessType: 1 },
      ngKsi: this.#security?.ngKsi ?? NO_KEY,
      mobileIdentity: this.#guti,
    };
    return new Promise<DeregistrationOutcome>((resolve) => {
      const { settle } = this.#guarded<DeregistrationOutcome>(this.#procedureTimers.t3521, 'T3521', resolve, {
        times: this.#procedureTimers.t3521Retransmissions,
        waitMs: 0,
        again: () => void this.#send(request, 'mo-Signalling'),
      });
      this.#setState({ kind: 'deregistered-initiated', settle });
      if (!this.#send(request, 'mo-Signalling')) {
        settle({ outcome: 'failed', reason: 'no connection to the network' });
        return;
      }
      if (switchOff) {
        this.#deregistered();
        settle({ outcome: 'switched-off' });
      }
    });
  }

  /** Sends bytes that are not a NAS message over the open connection (misbehaviour on demand). */
  sendGarbage(bytes: Uint8Array = Uint8Array.of(0x7e, 0x02, 0xde, 0xad, 0xbe, 0xef, 0x00)): boolean {
    return this.#connection?.uplink(bytes) ?? false;
  }

  /**
   * UL NAS Transport (TS 24.501 5.4.5.2), protected, over the open connection: the session side's
   * 5GSM messages (ue-sessions.ts). False when not registered and connected.
   */
  uplinkNasTransport(message: NasMessageOf<'ulNasTransport'>): boolean {
    if (this.#state.kind !== 'registered' || !this.connected) return false;
    return this.#send(message);
  }

  /**
   * Sends the last uplink NAS PDU of `log` again, as it was (a replay, TS 33.501 6.4.3.2). False without
   * `keepLog`: a UE does not otherwise hold its PDUs (a small one is a view of a shared 8 KiB buffer, which
   * a held device would keep alive).
   */
  replayLastUplink(): boolean {
    const last = this.log.findLast((exchange) => exchange.direction === 'uplink')?.pdu;
    return last !== undefined && (this.#connection?.uplink(last) ?? false);
  }

  // ----- RadioUe: what the gNB delivers -----

  get sTmsi(): FiveGSTmsi | undefined {
    const guti = this.#guti;
    return guti === undefined
      ? undefined
      : { amfSetId: guti.amfSetId, amfPointer: guti.amfPointer, tmsi: guti.tmsi };
  }

  get failInitialContextSetup(): boolean {
    return this.config.misbehaviour?.failInitialContextSetup ?? false;
  }

  get positioning(): UePositioning | undefined {
    return this.config.positioning;
  }

  downlink(nasPdu: Uint8Array): void {
    if (this.#silent) return;
    const opened = this.#open(nasPdu);
    if (opened === undefined) return;
    const { message, plain } = opened;
    if (this.#recording)
      this.#record({ direction: 'downlink', messageType: message.messageType, plain, pdu: nasPdu });
    if (this.config.misbehaviour?.silentAfter === message.messageType) {
      this.#silent = true;
      return;
    }
    this.#handle(message);
  }

  contextSetUp(securityKey: Uint8Array | undefined): void {
    // KgNB would key AS security, which is not simulated: it is derived only to tell a listener whether
    // the network's matches the UE's own.
    if (this.#listeners.size === 0) return;
    const context = this.#security;
    const expected = context === undefined ? undefined : deriveContextKgnb(context);
    const kgnbMatches =
      expected !== undefined && securityKey !== undefined && Buffer.from(securityKey).equals(expected);
    this.#emit({ type: 'context-setup', kgnbMatches });
  }

  keyChanged(securityKey: Uint8Array): void {
    const own = this.keyChangeKgnb();
    this.#emit({
      type: 'key-changed',
      kgnbMatches: own !== undefined && Buffer.from(securityKey).equals(own),
    });
  }

  /**
   * The KgNB this UE takes into use at a key change after NAS re-keying (TS 33.501 6.9.4.4): from its
   * current KAMF, which its own USIM's authentication gave it, and the uplink NAS COUNT of the Security
   * Mode Complete it sent under that KAMF (A.9). Undefined before one.
   */
  keyChangeKgnb(): Buffer | undefined {
    const context = this.#security;
    const count = this.#securityModeCompleteCount;
    if (context === undefined || count === undefined) return undefined;
    return deriveKgnb(context.kamf, count, ACCESS_TYPE.threeGpp);
  }

  released(): void {
    this.#connection = undefined;
    this.#emit({ type: 'released' });
    const state = this.#state;
    switch (state.kind) {
      case 'registered-initiated':
        // Between attempts (T3511 running) the release after a reject is expected (5.5.1.2.7).
        if (!this.#betweenAttempts) state.settle({ outcome: 'failed', reason: 'connection released' });
        return;
      case 'service-request-initiated':
        state.settle({ outcome: 'failed', reason: 'connection released' });
        return;
      case 'deregistered-initiated':
        // TS 24.501 5.5.2.2.6 d): a release before the accept ends the procedure locally.
        this.#deregistered();
        state.settle({ outcome: 'accepted' });
        return;
      case 'registered':
        this.#startT3512();
        return;
      case 'deregistered':
        return;
    }
  }

  paged(): void {
    if (this.#state.kind !== 'registered' || this.connected) return;
    void this.serviceRequest('mobileTerminatedServices').then((outcome) =>
      this.#emit({ type: 'paged', outcome }),
    );
  }

  // ----- procedures -----

  #registration(
    kind: RegistrationKind,
    initial: NasMessageOf<'registrationRequest'>,
  ): Promise<RegistrationOutcome> {
    this.#cancelT3512?.();
    return new Promise<RegistrationOutcome>((resolve) => {
      const attempt = (): void => {
        if (!this.#send(initial, 'mo-Signalling'))
          settle({ outcome: 'failed', reason: 'no connection to the network' });
      };
      const { settle, nextAttempt } = this.#guarded<RegistrationOutcome>(
        this.#procedureTimers.t3510,
        'T3510',
        resolve,
        {
          times: this.#procedureTimers.registrationAttempts - 1,
          waitMs: this.#procedureTimers.t3511,
          again: () => {
            // A new attempt starts over: the security context the aborted one was creating is dropped.
            this.#authenticated = undefined;
            this.#pendingContext = undefined;
            attempt();
          },
        },
      );
      this.#setState({ kind: 'registered-initiated', registration: kind, settle, nextAttempt });
      attempt();
    });
  }

  /**
   * Wraps a procedure's resolve: its guard timer, and back to a resting state when it fails. With `retry`,
   * the first `times` failed attempts (the timer's expiries, or `nextAttempt` when the procedure saw its
   * attempt fail otherwise) run `again` after `waitMs` (T3511, or at once for a retransmission) and
   * restart the timer; the next expiry fails the procedure, and `nextAttempt` answers false.
   */
  #guarded<T extends { outcome: string }>(
    ms: number,
    timer: string,
    resolve: (outcome: T | Failed) => void,
    retry: { times: number; waitMs: number; again: () => void } = { times: 0, waitMs: 0, again: () => {} },
  ): { settle: (o: T | Failed) => void; nextAttempt: () => boolean } {
    let settled = false;
    let expiries = 0;
    let attempts = 0;
    const settle = (outcome: T | Failed): void => {
      if (settled) return;
      settled = true;
      this.#betweenAttempts = false;
      this.#cancelGuard?.();
      this.#cancelGuard = undefined;
      const state = this.#state;
      if (outcome.outcome === 'failed') {
        // TS 24.501 5.5.1.2.7, 5.5.1.3.7, 5.6.1.7: an abnormal end leaves the UE where it was before.
        if (
          state.kind === 'service-request-initiated' ||
          (state.kind === 'registered-initiated' && state.registration !== 'initial')
        )
          this.#setState({ kind: 'registered' });
        else if (state.kind === 'registered-initiated') this.#setState({ kind: 'deregistered' });
      }
      resolve(outcome);
    };
    const nextAttempt = (): boolean => {
      attempts += 1;
      if (settled || attempts > retry.times) return false;
      this.#cancelGuard?.();
      const again = (): void => {
        this.#betweenAttempts = false;
        if (settled) return;
        guard();
        retry.again();
      };
      if (retry.waitMs === 0) again();
      else {
        this.#betweenAttempts = true;
        this.#cancelGuard = this.#timers.after(retry.waitMs, again);
      }
      return true;
    };
    const guard = (): void => {
      this.#cancelGuard = this.#timers.after(ms, () => {
        expiries += 1;
        if (nextAttempt()) return;
        settle({
          outcome: 'failed',
          reason: expiries === 1 ? `${timer} expired` : `${timer} expired ${expiries} times`,
        });
      });
    };
    this.#cancelGuard?.();
    guard();
    return { settle, nextAttempt };
  }

  #handle(message: NasMessage): void {
    switch (message.messageType) {
      case 'identityRequest':
        this.#identityRequest(message);
        return;
      case 'authenticationRequest':
        this.#authenticationRequest(message);
        return;
      case 'authenticationReject':
        this.#authenticationReject();
        return;
      case 'securityModeCommand':
        this.#securityModeCommand(message);
        return;
      case 'registrationAccept':
        this.#registrationAccept(message);
        return;
      case 'registrationReject':
        this.#reject(message.fiveGmmCause);
        return;
      case 'serviceAccept': {
        const state = this.#state;
        if (state.kind !== 'service-request-initiated') return;
        this.#setState({ kind: 'registered' });
        state.settle({ outcome: 'accepted' });
        return;
      }
      case 'serviceReject':
        this.#reject(message.fiveGmmCause);
        return;
      case 'configurationUpdateCommand':
        this.#configurationUpdate(message);
        return;
      case 'deregistrationRequestUeTerminated':
        this.#networkDeregistration(message);
        return;
      case 'deregistrationAcceptUeOriginating': {
        const state = this.#state;
        if (state.kind !== 'deregistered-initiated') return;
        this.#deregistered();
        state.settle({ outcome: 'accepted' });
        return;
      }
      case 'dlNasTransport': {
        // TS 24.501 5.4.5.3: an SMS payload goes to the device's SMS side (ue-sms.ts) ...
        if (message.payloadContainerType === PAYLOAD_CONTAINER_SMS)
          return this.sms.handle(message.payloadContainer);
        // ... and an LPP payload to its positioning side (ue-lpp.ts).
        const answer = lppUplink(message, this.config.positioning ?? NO_POSITIONING, {
          cell: this.#radio.cell,
          nowMs: Date.now(),
        });
        if (answer !== undefined) this.#send(answer);
        return;
      }
      default:
        return; // other messages (5GMM Status, ...) are kept in the log only
    }
  }

  #identityRequest(message: NasMessageOf<'identityRequest'>): void {
    const identity: MobileIdentity =
      message.identityType === IDENTITY_TYPE.imei
        ? { type: 'imei', digits: imeiOf(this.config.imeisv) }
        : message.identityType === IDENTITY_TYPE.imeisv
          ? { type: 'imeisv', digits: this.config.imeisv }
          : concealSupi(this.config);
    this.#send({ messageType: 'identityResponse', mobileIdentity: identity });
  }

  #authenticationRequest(message: NasMessageOf<'authenticationRequest'>): void {
    const rand = message.authenticationParameterRand;
    const autn = message.authenticationParameterAutn;
    if (rand === undefined || autn === undefined) return; // EAP-AKA' is not simulated
    const { plmn } = this.#radio.cell;
    const answer = this.usim.authenticate(
      Buffer.from(rand),
      Buffer.from(autn),
      servingNetworkName(plmn.mcc, plmn.mnc),
    );
    switch (answer.kind) {
      case 'accepted':
        this.#authenticated = {
          kamf: deriveKamf(answer.kseaf, this.config.imsi, Buffer.from(message.abba)),
          ngKsi: message.ngKsi,
        };
        this.#send({
          messageType: 'authenticationResponse',
          authenticationResponseParameter: answer.resStar,
        });
        return;
      case 'mac-failure':
        this.#send({ messageType: 'authenticationFailure', fiveGmmCause: UE_CAUSE.macFailure });
        return;
      case 'synch-failure':
        this.#send({
          messageType: 'authenticationFailure',
          fiveGmmCause: UE_CAUSE.synchFailure,
          authenticationFailureParameter: answer.auts,
        });
        return;
      case 'non-5g-authentication':
        this.#send({
          messageType: 'authenticationFailure',
          fiveGmmCause: UE_CAUSE.non5gAuthenticationUnacceptable,
        });
        return;
      case 'malformed':
        return;
    }
  }

  /** TS 24.501 5.4.1.3.5: the UE deletes its 5G-GUTI, keys and TAI list, and is deregistered. */
  #authenticationReject(): void {
    const state = this.#state;
    this.#guti = undefined;
    this.#security = undefined;
    this.#authenticated = undefined;
    this.#taiList = [];
    this.#setState({ kind: 'deregistered' });
    if (state.kind === 'registered-initiated' || state.kind === 'service-request-initiated')
      state.settle({ outcome: 'authentication-rejected' });
    if (state.kind === 'deregistered-initiated') state.settle({ outcome: 'accepted' });
  }

  /**
   * TS 24.501 5.4.2.3: check the replayed security capabilities, take the new context into use with the
   * selected algorithms (its MAC was verified in #open), and answer Security Mode Complete with the IMEISV
   * and the full Registration Request, protected with the new context (header type 4).
   */
  #securityModeCommand(message: NasMessageOf<'securityModeCommand'>): void {
    const replayed = message.replayedUeSecurityCapabilities;
    const own = this.config.securityCapability;
    if (!sameList(replayed.ea, own.ea) || !sameList(replayed.ia, own.ia)) {
      this.#securityModeReject(UE_CAUSE.ueSecurityCapabilitiesMismatch);
      return;
    }
    const context = this.#pendingContext ?? this.#security;
    this.#pendingContext = undefined;
    if (context === undefined) {
      this.#securityModeReject(UE_CAUSE.securityModeRejectedUnspecified);
      return;
    }
    this.#security = context;
    this.#authenticated = undefined;
    const imeisvRequested = ((message.imeisvRequest ?? 0) & 0x1) === 1;
    const request = this.#pendingRequest;
    const complete: NasMessageOf<'securityModeComplete'> = {
      messageType: 'securityModeComplete',
      ...(imeisvRequested ? { imeisv: { type: 'imeisv', digits: this.config.imeisv } } : {}),
      ...(request === undefined ? {} : { nasMessageContainer: encodeNasMessage(request) }),
    };
    this.#securityModeCompleteCount = context.nextSendCount;
    this.#send(
      complete,
      'mo-Signalling',
      SECURITY_HEADER_TYPE.integrityProtectedAndCipheredWithNewSecurityContext,
    );
    makeCurrent(context);
  }

  #securityModeReject(cause: number): void {
    this.#pendingContext = undefined;
    this.#sendPlain({ messageType: 'securityModeReject', fiveGmmCause: cause });
  }

  #registrationAccept(message: NasMessageOf<'registrationAccept'>): void {
    const state = this.#state;
    if (state.kind !== 'registered-initiated') return;
    if (message.fiveGGuti?.type === '5g-guti') this.#guti = message.fiveGGuti;
    this.#allowedNssai = message.allowedNssai ?? [];
    this.#smsAllowed = message.registrationResult.smsAllowed;
    this.#taiList = message.taiList ?? this.#taiList;
    this.#t3512Seconds =
      message.t3512Value === undefined ? undefined : timerSeconds(message.t3512Value, 'timer3');
    this.#pendingRequest = undefined;
    this.#setState({ kind: 'registered' });
    // TS 24.501 5.5.1.2.4: Registration Complete acknowledges a new 5G-GUTI (and network slicing info).
    if (message.fiveGGuti !== undefined) this.#send({ messageType: 'registrationComplete' });
    state.settle({
      outcome: 'accepted',
      guti: this.#guti,
      allowedNssai: this.#allowedNssai,
      t3512Seconds: this.#t3512Seconds,
      taiList: this.#taiList,
    });
  }

  #reject(cause: number): void {
    const state = this.#state;
    const outcome = { outcome: 'rejected' as const, cause, causeName: causeLabel('5gmm', cause) };
    if (state.kind === 'registered-initiated') {
      // TS 24.501 5.5.1.2.7 d: a cause 5.5.1.2.5 does not list (e.g. #9) is an abnormal case for an
      // initial registration: the attempt counter grows and the request goes again after T3511.
      if (
        state.registration === 'initial' &&
        !INITIAL_REGISTRATION_REJECT_CAUSES.has(cause) &&
        state.nextAttempt()
      )
        return;
      this.#pendingRequest = undefined;
      if (USIM_INVALIDATING_CAUSES.has(cause)) {
        // 5.5.1.2.5, 5.5.1.3.5 (#3, #6, #7): 5G-GUTI, TAI list and ngKSI deleted; the USIM is invalid for
        // 5GS services until the UE is switched off (here: for the rest of this UE's life).
        this.#usimInvalid = cause;
        this.#guti = undefined;
        this.#taiList = [];
        this.#security = undefined;
        this.#authenticated = undefined;
        this.#cancelT3512?.();
      }
      this.#setState({ kind: 'deregistered' });
      state.settle(outcome);
    } else if (state.kind === 'service-request-initiated') {
      // TS 24.501 5.6.1.5: #9 and #10 leave the UE deregistered, to register anew (#9 without its
      // 5G-GUTI, which the network no longer knows); other causes leave it registered.
      if (cause === GMM_CAUSE.ueIdentityCannotBeDerived) this.#guti = undefined;
      if (cause === GMM_CAUSE.ueIdentityCannotBeDerived || cause === GMM_CAUSE.implicitlyDeregistered)
        this.#deregistered();
      else this.#setState({ kind: 'registered' });
      state.settle(outcome);
    }
  }

  /** TS 24.501 5.4.4.3: take the new values; answer when asked to or given a new 5G-GUTI. */
  #configurationUpdate(message: NasMessageOf<'configurationUpdateCommand'>): void {
    if (message.fiveGGuti?.type === '5g-guti') this.#guti = message.fiveGGuti;
    if (message.allowedNssai !== undefined) this.#allowedNssai = message.allowedNssai;
    if (message.taiList !== undefined) this.#taiList = message.taiList;
    const acknowledgementRequested = ((message.configurationUpdateIndication ?? 0) & 0x1) === 1;
    if (acknowledgementRequested || message.fiveGGuti !== undefined)
      this.#send({ messageType: 'configurationUpdateComplete' });
    this.#emit({ type: 'configuration-update', guti: this.#guti });
  }

  /** TS 24.501 5.5.2.3.2: accept, and be deregistered. */
  #networkDeregistration(message: NasMessageOf<'deregistrationRequestUeTerminated'>): void {
    this.#send({ messageType: 'deregistrationAcceptUeTerminated' });
    const state = this.#state;
    this.#deregistered();
    if (state.kind === 'registered-initiated' || state.kind === 'service-request-initiated')
      state.settle({ outcome: 'failed', reason: 'deregistered by the network' });
    if (state.kind === 'deregistered-initiated') state.settle({ outcome: 'accepted' });
    this.#emit({
      type: 'deregistered-by-network',
      cause: message.fiveGmmCause,
      reRegistrationRequired: message.deregistrationType.reRegistrationRequired,
    });
  }

  #deregistered(): void {
    this.#cancelT3512?.();
    this.#security = undefined;
    this.#authenticated = undefined;
    this.#setState({ kind: 'deregistered' });
  }

  /** T3512 runs in idle (TS 24.501 5.3.7); at expiry, periodic registration updating. */
  #startT3512(): void {
    this.#cancelT3512?.();
    const seconds = this.#t3512Seconds;
    if (seconds === undefined || seconds === 0) return;
    this.#cancelT3512 = this.#timers.after(seconds * MS_PER_SECOND, () => {
      this.#cancelT3512 = undefined;
      if (this.#state.kind !== 'registered' || this.connected) return;
      void this.registrationUpdate('periodic').then((outcome) =>
        this.#emit({ type: 'periodic-registration', outcome }),
      );
    });
  }

  // ----- NAS transport and security -----

  /**
   * Opens a downlink PDU: plain messages only from the list of 4.4.4.2 once a context exists; header type 3
   * only for a Security Mode Command, verified with the context it creates; 1 and 2 with the current one.
   */
  #open(pdu: Uint8Array): { message: NasMessage; plain: Uint8Array } | undefined {
    const decoded = decodeNasPdu(pdu);
    if (!decoded.ok) return this.#discard(`undecodable: ${decoded.error.kind}`, pdu);
    if (decoded.pdu.kind === 'plain') {
      const { message } = decoded.pdu;
      if (this.#security !== undefined && !ACCEPTED_PLAIN.has(message.messageType))
        return this.#discard(`plain ${message.messageType} under a security context`, pdu);
      return { message, plain: pdu };
    }
    let context = this.#security;
    if (decoded.pdu.securityHeaderType === SECURITY_HEADER_TYPE.integrityProtectedWithNewSecurityContext) {
      context = this.#contextFor(decoded.pdu.inner);
      if (context === undefined) return this.#discard('security mode command without a usable KAMF', pdu);
    }
    if (context === undefined) return this.#discard('protected message without a security context', pdu);
    const opened = unprotect(context, pdu);
    if (!opened.ok) return this.#discard(`${opened.reason}: ${opened.detail}`, pdu);
    if (context !== this.#security) this.#pendingContext = context;
    return { message: opened.message, plain: opened.plain };
  }

  /** The new context a Security Mode Command (header type 3) asks for: KAMF of the last authentication. */
  #contextFor(inner: NasDecodeResult | undefined): NasSecurityContext | undefined {
    if (inner?.ok !== true || inner.message.messageType !== 'securityModeCommand') return undefined;
    const { selectedNasSecurityAlgorithms: selected, ngKsi } = inner.message;
    const keys =
      this.#authenticated?.ngKsi.ksi === ngKsi.ksi
        ? this.#authenticated
        : this.#security?.ngKsi.ksi === ngKsi.ksi
          ? { kamf: this.#security.kamf, ngKsi }
          : undefined;
    if (keys === undefined || !isNasAlgorithm(selected.ciphering) || !isNasAlgorithm(selected.integrity))
      return undefined;
    return createNasSecurityContext({
      side: 'ue',
      ngKsi,
      kamf: keys.kamf,
      ciphering: selected.ciphering,
      integrity: selected.integrity,
    });
  }

  #discard(reason: string, pdu: Uint8Array): undefined {
    this.#emit({ type: 'discarded', reason, pdu });
    return undefined;
  }

  /**
   * Sends a message: protected with the current context when there is one, plain otherwise. As an
   * initial NAS message (no connection yet, TS 24.501 4.4.6) integrity protected only, a Registration or
   * Service Request's non-cleartext IEs going in the NAS message container, ciphered; over an
   * established connection ciphered too. Opens a connection with `cause` when there is none. False
   * when nothing could be sent.
   */
  #send(
    message: NasMessage,
    cause: RRCEstablishmentCause = 'mo-Signalling',
    headerType?: ProtectedSecurityHeaderType,
  ): boolean {
    const context = this.#security;
    if (context === undefined) {
      const plain = encodeNasMessage(message);
      return this.#transmit(message.messageType, plain, plain, cause);
    }
    const initial =
      !this.connected &&
      (message.messageType === 'registrationRequest' || message.messageType === 'serviceRequest');
    const sent = initial ? withCipheredContainer(context, context.nextSendCount, message) : message;
    const plain = encodeNasMessage(sent);
    const type =
      headerType ??
      (this.connected
        ? SECURITY_HEADER_TYPE.integrityProtectedAndCiphered
        : SECURITY_HEADER_TYPE.integrityProtected);
    const pdu = protect(context, plain, type);
    // The contained message in plain is for the log only: encoded again only when someone reads it.
    const contained = sent === message || !this.#recording ? undefined : encodeNasMessage(message);
    return this.#transmit(message.messageType, plain, pdu, cause, contained);
  }

  #sendPlain(message: NasMessage): boolean {
    const plain = encodeNasMessage(message);
    return this.#transmit(message.messageType, plain, plain, 'mo-Signalling');
  }

  #transmit(
    messageType: string,
    plain: Uint8Array,
    pdu: Uint8Array,
    cause: RRCEstablishmentCause,
    contained?: Uint8Array,
  ): boolean {
    let sent: boolean;
    if (this.connected && this.#connection !== undefined) sent = this.#connection.uplink(pdu);
    else {
      this.#connection = this.#radio.establish(this, pdu, cause, this.sTmsi);
      sent = this.#connection !== undefined;
      if (sent) this.#emit({ type: 'connected' });
    }
    if (!sent) return false;
    if (this.#recording)
      this.#record({
        direction: 'uplink',
        messageType,
        plain,
        pdu,
        ...(contained === undefined ? {} : { contained }),
      });
    return true;
  }

  /** Whether NAS exchanges are kept or listened to: without either (a benchmark's UEs), none is built. */
  get #recording(): boolean {
    return this.#keepLog || this.#listeners.size > 0;
  }

  #record(exchange: NasExchange): void {
    if (this.#keepLog) this.log.push(exchange);
    if (this.#listeners.size > 0) this.#emit({ type: 'nas', exchange });
  }

  #setState(state: UeState): void {
    const changed = state.kind !== this.#state.kind;
    this.#state = state;
    if (changed) this.#emit({ type: 'state', state: state.kind });
  }

  #emit(event: UeEvent): void {
    if (this.#listeners.size === 0) return;
    for (const listener of [...this.#listeners]) listener(event);
  }
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
