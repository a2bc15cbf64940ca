import type { Logger } from 'pino';
import type { Timers } from '../../clock.ts';
import { startRetransmissionTimer, type RetransmissionTimer } from '../amf/nas-timer.ts';
import type { FiveGsmMessage, NasMessageOf, SNssai } from '../nas/index.ts';
import type { Cause } from '../ngap/generated/types.ts';
import type { NetworkEventEmitter } from '../events/network-events.ts';
import type { PduSession } from '../network-state.ts';
import type { AddressLeases } from '../ports/address-leases.ts';
import type { ConfigurationEvents } from '../ports/configuration-events.ts';
import type { AuthorisedSession, SubscriptionDataPort } from '../ports/subscription-data.ts';
import type { TunnelEndpointIds } from '../ports/tunnel-endpoints.ts';
import type { Ambr, DownlinkTunnel, SessionRequest, UpfResult, UpfSession } from '../upf/upf.ts';
import { createMemoryAddressLeases } from '../working-state/memory-address-leases.ts';
import { createMemoryTunnelEndpointIds } from '../working-state/memory-tunnel-endpoints.ts';
import { parseBitrate } from './bitrate.ts';
import {
  modifyRequestTransfer,
  readSetupResponseTransfer,
  releaseCommandTransfer,
  setupRequestTransfer,
  type DefaultQosFlow,
  type SessionAmbrBps,
} from './n2-transfers.ts';
import {
  pathSwitchAcknowledgeTransfer,
  pathSwitchUnsuccessfulTransfer,
  readPathSwitchRequestTransfer,
  type PathSwitchItem,
  type PathSwitchOutcome,
} from './path-switch.ts';
import { authorise, type IpType, type SessionProfile } from './session-authorisation.ts';
import { SM_CAUSE } from './sm-cause.ts';
import { judgeModificationRequest } from './ue-modification.ts';
import {
  answerPco,
  establishmentAccept,
  establishmentReject,
  modificationCommand,
  releaseCommand,
} from './sm-messages.ts';

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

/**
 * A PDU session's state in the SMF (TS 24.501 6.1.3.3 on the network side, with the user plane's):
 * - `setting-up`: Accept sent in PDU Session Resource Setup Request, or the user plane asked back in
 *   Initial Context Setup Request; the gNB's tunnel not known yet;
 * - `active`: user plane up, downlink through the gNB's tunnel;
 * - `inactive`: the UE is CM-IDLE: the UPF buffers a few downlink packets (docs/upf.md "Downlink
 *   buffering"). `downlinkData`: the UPF saw downlink packets and the UE is being paged (TS 23.502
 *   4.2.3.3);
 * - `releasing`: Release Command sent, every resource already freed; T3592 runs until Release
 *   Complete (TS 24.501 6.3.3.2).
 */
export type SessionState =
  | { kind: 'setting-up' }
  | { kind: 'active'; downlink: DownlinkTunnel }
  | { kind: 'inactive'; downlinkData: boolean }
  | { kind: 'releasing'; t3592: RetransmissionTimer | undefined };

interface SmSession {
  readonly supi: string;
  readonly pduSessionId: number;
  state: SessionState;
  readonly dnn: string;
  readonly sNssai: SNssai;
  readonly ipType: IpType;
  readonly ipv4: string | undefined;
  /** The session's /64, as its first address. */
  readonly ipv6Prefix: string | undefined;
  /** The pools the addresses came from: a change of either releases the session (network.md 6). */
  readonly pools: { ipv4: string | undefined; ipv6: string | undefined };
  readonly uplinkTeid: number;
  readonly upfSessionId: number;
  policy: AuthorisedSession;
  ambr: SessionAmbrBps;
  flow: DefaultQosFlow;
  /** A Modification Command waiting for its Complete (TS 24.501 6.3.2.2, 6.4.2.3): T3591 runs. */
  t3591: RetransmissionTimer | undefined;
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

/** The QFI of the default QoS flow (network.md 6). */
const DEFAULT_QFI = 1;
/** Request type "initial request" (TS 24.501 9.11.3.47). */
const INITIAL_REQUEST = 1;

const key = (supi: string, pduSessionId: number): string => `${supi}/${pduSessionId}`;

const sdText = (sd: number | undefined): string => (sd === undefined ? '' : sd.toString(16).padStart(6, '0'));

function ambrOf(policy: AuthorisedSession): SessionAmbrBps | undefined {
  const uplinkBps = parseBitrate(policy.ambrUplink);
  const downlinkBps = parseBitrate(policy.ambrDownlink);
  return uplinkBps === undefined || downlinkBps === undefined ? undefined : { uplinkBps, downlinkBps };
}

/**
 * The SMF (docs/sessions.md): PDU sessions per (SUPI, PDU session id) — establishment (TS 24.501
 * 6.4.1, TS 23.502 4.3.2.2.1), UE-requested release (6.4.3), network-requested modification and
 * release on configuration changes (6.3.2, 6.3.3), user plane deactivation when the UE goes idle and
 * reactivation when it comes back (TS 23.502 4.2.6, 4.2.3.2) — over the AMF (`amf`) and the UPF
 * (`userPlane`). Every session's address, TEID and UPF rules are freed together, whatever ends it.
 */
export function createSmf(options: SmfOptions) {
  const { amf, logger, userPlane, timers } = options;
  const timing: SmfTiming = { ...DEFAULT_SMF_TIMING, ...options.timing };
  const sessions = new Map<string, SmSession>();
  const bySupi = new Map<string, Set<SmSession>>();
  /** By the UPF's session id, for its Downlink Data Notification. */
  const byUpfSession = new Map<number, SmSession>();
  const addresses = options.addressLeases ?? createMemoryAddressLeases();
  const teids = options.teids ?? createMemoryTunnelEndpointIds();
  /** Gives a lease back; one the store failed to end stays held, and the log says which. */
  const giveBackLease = (kind: 'address' | 'teid', value: string | number): void => {
    const released = kind === 'address' ? addresses.release(value as string) : teids.release(value as number);
    released.catch((error: unknown) =>
      logger.error({ err: error, kind, value }, 'SMF: a lease was not ended'),
    );
  };

  const apiView = (s: SmSession): PduSession => ({
    id: s.pduSessionId,
    radioAccessType: '5G',
    status: s.state.kind === 'active' ? 'active' : 'inactive',
    ipType: s.ipType,
    ipv4Address: s.ipv4 ?? '',
    ipv6Prefix: s.ipv6Prefix === undefined ? '' : `${s.ipv6Prefix}/64`,
    dataNetwork: s.dnn,
    slice: { sst: s.sNssai.sst, sd: sdText(s.sNssai.sd) },
    ambrUplink: s.policy.ambrUplink,
    ambrDownlink: s.policy.ambrDownlink,
  });
  /** The session changed: policy or AMBR, user plane activated or deactivated. */
  const publish = (s: SmSession): void =>
    options.events.emit('session.modified', { supi: s.supi, session: apiView(s) });

  function remember(s: SmSession): void {
    sessions.set(key(s.supi, s.pduSessionId), s);
    byUpfSession.set(s.upfSessionId, s);
    let set = bySupi.get(s.supi);
    if (set === undefined) bySupi.set(s.supi, (set = new Set()));
    set.add(s);
  }

  function forget(s: SmSession): void {
    stopTimers(s);
    if (sessions.get(key(s.supi, s.pduSessionId)) === s) sessions.delete(key(s.supi, s.pduSessionId));
    if (byUpfSession.get(s.upfSessionId) === s) byUpfSession.delete(s.upfSessionId);
    const set = bySupi.get(s.supi);
    set?.delete(s);
    if (set?.size === 0) bySupi.delete(s.supi);
  }

  function stopTimers(s: SmSession): void {
    s.t3591?.stop();
    s.t3591 = undefined;
    if (s.state.kind === 'releasing') s.state.t3592?.stop();
  }

  /** The UPF's rules, then the TEID and addresses; the API stops showing the session. */
  function freeResources(s: SmSession): void {
    const released = userPlane?.release(s.upfSessionId);
    if (released !== undefined && !released.ok && released.error !== 'unknown-session')
      logger.error(
        { supi: s.supi, pduSessionId: s.pduSessionId, error: released.error },
        'SMF: UPF release failed',
      );
    giveBackLease('teid', s.uplinkTeid);
    if (s.ipv4 !== undefined) giveBackLease('address', s.ipv4);
    if (s.ipv6Prefix !== undefined) giveBackLease('address', s.ipv6Prefix);
    options.events.emit('session.released', { supi: s.supi, pduSessionId: s.pduSessionId });
  }

  /** Local release (no signalling): deregistration, an old session replaced, a failed setup. */
  function releaseLocally(s: SmSession): void {
    if (s.state.kind !== 'releasing') freeResources(s);
    forget(s);
  }

  /**
   * Network-requested release (TS 24.501 6.3.3): Release Command with `cause`, in PDU Session Resource
   * Release Command when the radio holds the session's resources, else alone in DL NAS Transport; T3592
   * retransmits it in DL NAS Transport and its fifth expiry releases the session locally (6.3.3.5 a).
   * A UE in CM-IDLE is not paged for it: the session is released locally and the UE learns it from
   * the PDU session status IE of its next Service Accept (TS 24.501 5.6.1.4.1; TS 23.502 4.3.4.2 lets
   * the SMF skip paging for a release). Resources are freed at once either way.
   */
  function releaseByNetwork(s: SmSession, cause: number, pti = 0): void {
    if (s.state.kind === 'releasing') return;
    const hadRadio = s.state.kind === 'active' || s.state.kind === 'setting-up';
    freeResources(s);
    stopTimers(s);
    const n1 = releaseCommand(s.pduSessionId, pti, cause);
    const sent = hadRadio
      ? amf.releaseResources(s.supi, {
          pduSessionId: s.pduSessionId,
          sNssai: s.sNssai,
          transfer: releaseCommandTransfer(ngapCauseFor(cause)),
          n1,
        })
      : amf.sendN1(s.supi, n1);
    if (!sent) {
      s.state = { kind: 'releasing', t3592: undefined };
      forget(s);
      return;
    }
    const t3592 = startRetransmissionTimer(
      timers,
      { ms: timing.t3592Ms, retransmissions: timing.retransmissions },
      () => void amf.sendN1(s.supi, n1),
      () => {
        logger.info({ supi: s.supi, pduSessionId: s.pduSessionId }, 'SMF: T3592 expired, released locally');
        forget(s);
      },
    );
    s.state = { kind: 'releasing', t3592 };
  }

  /**
   * Sends a PDU Session Modification Command (network-requested 6.3.2 or answering the UE's request
   * 6.4.2.3): in PDU Session Resource Modify Request with the QoS for the radio when the user plane is
   * up, else in DL NAS Transport. T3591 retransmits it (DL NAS Transport); on its fifth expiry the
   * procedure is aborted and, the UE's and the network's QoS now being unknown to each other, the
   * session released (6.3.2.5 a).
   */
  function sendModificationCommand(s: SmSession, n1: NasMessageOf<'pduSessionModificationCommand'>): void {
    s.t3591?.stop();
    s.t3591 = undefined;
    const sent =
      s.state.kind === 'active'
        ? amf.modifyResources(s.supi, {
            pduSessionId: s.pduSessionId,
            sNssai: s.sNssai,
            transfer: modifyRequestTransfer({ ambr: s.ambr, flow: s.flow }),
            n1,
          })
        : amf.sendN1(s.supi, n1);
    if (!sent) return;
    s.t3591 = startRetransmissionTimer(
      timers,
      { ms: timing.t3591Ms, retransmissions: timing.retransmissions },
      () => void amf.sendN1(s.supi, n1),
      () => {
        s.t3591 = undefined;
        logger.info({ supi: s.supi, pduSessionId: s.pduSessionId }, 'SMF: T3591 expired, session released');
        releaseByNetwork(s, SM_CAUSE.requestRejectedUnspecified);
      },
    );
  }

  function reject(supi: string, pduSessionId: number, pti: number, cause: number): void {
    amf.sendN1(supi, establishmentReject(pduSessionId, pti, cause));
  }

  /** PDU Session Establishment Request (TS 24.501 6.4.1.2 network side, TS 23.502 4.3.2.2.1). */
  async function establish(
    ue: UplinkSmContext,
    request: NasMessageOf<'pduSessionEstablishmentRequest'>,
  ): Promise<void> {
    const { supi } = ue;
    const { pduSessionId, pti } = request;
    // 6.4.1.4: a PDU session identity outside 1..15 (9.4) -> #43.
    if (pduSessionId < 1 || pduSessionId > 15)
      return reject(supi, pduSessionId, pti, SM_CAUSE.invalidPduSessionIdentity);
    if (ue.requestType !== undefined && ue.requestType !== INITIAL_REQUEST)
      // Existing-session requests (handover from non-3GPP or EPS) are not served.
      return reject(supi, pduSessionId, pti, SM_CAUSE.requestRejectedUnspecified);
    // 6.4.1.2: an initial request for an identity in use replaces that session, released locally.
    const previous = sessions.get(key(supi, pduSessionId));
    if (previous !== undefined) releaseLocally(previous);

    const subscription = await options.subscriptionData.getSubscriptionData(supi);
    if (subscription === undefined)
      return reject(supi, pduSessionId, pti, SM_CAUSE.requestedServiceOptionNotSubscribed);
    if (sessions.has(key(supi, pduSessionId))) return; // a retransmission was served meanwhile
    const profile: SessionProfile = subscription.profile;
    const granted = authorise(
      { pduSessionType: request.pduSessionType, dnn: ue.dnn, sNssai: ue.sNssai },
      subscription,
      ue.allowedNssai,
    );
    if (!granted.ok) return reject(supi, pduSessionId, pti, granted.cause);
    const ambr = ambrOf(granted.policy);
    if (userPlane === undefined || ambr === undefined)
      return reject(supi, pduSessionId, pti, SM_CAUSE.insufficientResources);

    const pools = {
      ipv4: granted.ipType === 'IPv6' ? undefined : profile.ueIpPool,
      ipv6: granted.ipType === 'IPv4' ? undefined : profile.ueIpv6Pool,
    };
    const taken: string[] = [];
    const giveBack = (): void => taken.forEach((a) => giveBackLease('address', a));
    for (const [family, cidr] of [
      ['ipv4', pools.ipv4],
      ['ipv6', pools.ipv6],
    ] as const) {
      if (cidr === undefined) continue;
      const got = await addresses.lease(family, cidr);
      if (!got.ok) {
        giveBack();
        // #26: the pool is exhausted (or not a usable pool: the operator's to fix).
        return reject(supi, pduSessionId, pti, SM_CAUSE.insufficientResources);
      }
      taken.push(got.address);
    }
    const ipv4 = pools.ipv4 === undefined ? undefined : taken[0];
    const ipv6Prefix = pools.ipv6 === undefined ? undefined : taken[taken.length - 1];
    const uplinkTeid = await teids.allocate();
    if (uplinkTeid === undefined) {
      giveBack();
      return reject(supi, pduSessionId, pti, SM_CAUSE.insufficientResources);
    }
    if (sessions.has(key(supi, pduSessionId))) {
      // A retransmission was served while the leases were taken: this one gives its own back.
      giveBackLease('teid', uplinkTeid);
      return giveBack();
    }
    const installed = userPlane.establishSession({
      imsi: supi,
      ...(ipv4 === undefined ? {} : { ueIpv4: ipv4 }),
      ...(ipv6Prefix === undefined ? {} : { ueIpv6Prefix: ipv6Prefix }),
      uplinkTeid,
      ambr,
    });
    if (!installed.ok) {
      logger.warn({ supi, pduSessionId, error: installed.error }, 'SMF: the UPF refused a session');
      giveBackLease('teid', uplinkTeid);
      giveBack();
      return reject(supi, pduSessionId, pti, SM_CAUSE.insufficientResources);
    }
    const s: SmSession = {
      supi,
      pduSessionId,
      state: { kind: 'setting-up' },
      dnn: granted.dnn,
      sNssai: granted.sNssai,
      ipType: granted.ipType,
      ipv4,
      ipv6Prefix,
      pools,
      uplinkTeid,
      upfSessionId: installed.value.id,
      policy: granted.policy,
      ambr,
      flow: { qfi: DEFAULT_QFI, fiveQi: granted.policy.var5qi, arp: granted.policy.arp },
      t3591: undefined,
    };
    remember(s);
    options.events.emit('session.established', { supi, session: apiView(s) });
    const accept = establishmentAccept({
      pduSessionId,
      pti,
      ipType: s.ipType,
      typeCause: granted.typeCause,
      ipv4,
      ambr,
      flow: s.flow,
      sNssai: s.sNssai,
      dnn: s.dnn,
      pco: answerPco(request.extendedProtocolConfigurationOptions, profile, s.ipType),
    });
    if (!amf.setupResources(supi, { ...setupItem(s), n1: accept })) releaseLocally(s);
  }

  function setupItem(s: SmSession): N2SmItem {
    if (userPlane === undefined) throw new Error('SMF: a session without a user plane');
    return {
      pduSessionId: s.pduSessionId,
      sNssai: s.sNssai,
      transfer: setupRequestTransfer({
        ambr: s.ambr,
        uplink: { address: userPlane.n3Address, teid: s.uplinkTeid },
        ipType: s.ipType,
        flow: s.flow,
      }),
    };
  }

  /** PDU Session Release Request (6.4.3.2): Release Command #36 (regular deactivation). */
  function releaseRequested(supi: string, message: NasMessageOf<'pduSessionReleaseRequest'>): void {
    const s = sessions.get(key(supi, message.pduSessionId));
    if (s === undefined || s.state.kind === 'releasing') {
      // 6.4.3.5: no such session -> Release Reject #43 (invalid PDU session identity).
      amf.sendN1(supi, {
        messageType: 'pduSessionReleaseReject',
        pduSessionId: message.pduSessionId,
        pti: message.pti,
        fiveGsmCause: SM_CAUSE.invalidPduSessionIdentity,
      });
      return;
    }
    releaseByNetwork(s, SM_CAUSE.regularDeactivation, message.pti);
  }

  /** The session's configuration no longer holds (a profile, policy or slice changed): TS 24.501 6.3. */
  async function reconsider(supi: string): Promise<void> {
    const held = bySupi.get(supi);
    if (held === undefined) return;
    const subscription = await options.subscriptionData.getSubscriptionData(supi);
    for (const s of [...(bySupi.get(supi) ?? [])]) {
      if (s.state.kind === 'releasing') continue;
      if (subscription === undefined) {
        releaseByNetwork(s, SM_CAUSE.requestedServiceOptionNotSubscribed);
        continue;
      }
      const profile: SessionProfile = subscription.profile;
      // network.md 6: another address pool -> release with #39 (reactivation requested).
      if (
        (s.pools.ipv4 !== undefined && s.pools.ipv4 !== profile.ueIpPool) ||
        (s.pools.ipv6 !== undefined && s.pools.ipv6 !== profile.ueIpv6Pool)
      ) {
        releaseByNetwork(s, SM_CAUSE.reactivationRequested);
        continue;
      }
      const granted = authorise({ pduSessionType: undefined, dnn: s.dnn, sNssai: s.sNssai }, subscription, [
        s.sNssai,
      ]);
      const ambr = granted.ok ? ambrOf(granted.policy) : undefined;
      if (!granted.ok || ambr === undefined) {
        // No policy authorises it any more (TS 23.502 4.3.4.2: the SMF releases it).
        releaseByNetwork(s, SM_CAUSE.requestedServiceOptionNotSubscribed);
        continue;
      }
      const flow = { qfi: DEFAULT_QFI, fiveQi: granted.policy.var5qi, arp: granted.policy.arp };
      const changed =
        ambr.uplinkBps !== s.ambr.uplinkBps ||
        ambr.downlinkBps !== s.ambr.downlinkBps ||
        flow.fiveQi !== s.flow.fiveQi ||
        flow.arp !== s.flow.arp;
      s.policy = granted.policy;
      if (!changed) {
        publish(s);
        continue;
      }
      modify(s, ambr, flow);
    }
  }

  /**
   * Network-requested modification (TS 24.501 6.3.2, TS 23.502 4.3.3.2): the UPF's AMBR at once, the
   * UE and radio told with Modification Command in PDU Session Resource Modify Request when connected;
   * an idle UE gets the new values with its next reactivation (the setup transfer carries them).
   */
  function modify(s: SmSession, ambr: SessionAmbrBps, flow: DefaultQosFlow): void {
    s.ambr = ambr;
    s.flow = flow;
    const changed = userPlane?.modifyAmbr(s.upfSessionId, ambr);
    if (changed !== undefined && !changed.ok)
      logger.error({ supi: s.supi, error: changed.error }, 'SMF: UPF AMBR change failed');
    publish(s);
    if (s.state.kind !== 'active') return;
    sendModificationCommand(s, modificationCommand(s.pduSessionId, 0, ambr, flow));
  }

  /**
   * UE-requested modification (TS 24.501 6.4.2): served when it asks for no QoS beyond the session's
   * policy (ue-modification.ts) with a Modification Command under the request's PTI carrying the
   * session's values, else Modification Reject with the cause the judgement gives; #43 for a PDU
   * session the network does not hold (6.4.2.4).
   */
  function modificationRequested(supi: string, request: NasMessageOf<'pduSessionModificationRequest'>): void {
    const s = sessions.get(key(supi, request.pduSessionId));
    const verdict =
      s === undefined || s.state.kind === 'releasing'
        ? { ok: false as const, cause: SM_CAUSE.invalidPduSessionIdentity }
        : judgeModificationRequest(request, s.flow);
    if (s === undefined || !verdict.ok) {
      amf.sendN1(supi, {
        messageType: 'pduSessionModificationReject',
        pduSessionId: request.pduSessionId,
        pti: request.pti,
        fiveGsmCause: verdict.ok ? SM_CAUSE.requestRejectedUnspecified : verdict.cause,
      });
      return;
    }
    sendModificationCommand(s, modificationCommand(s.pduSessionId, request.pti, s.ambr, s.flow));
  }

  const failed = (error: unknown): void =>
    logger.error({ err: error }, 'SMF: a configuration change could not be applied to sessions');
  const unsubscribe = options.configurationEvents.subscribe((change) => {
    if (change.resource === 'subscriber') {
      if (bySupi.has(change.name)) reconsider(change.name).catch(failed);
      return;
    }
    if (change.resource === 'profile' || change.resource === 'policy' || change.resource === 'slice')
      for (const supi of [...bySupi.keys()]) reconsider(supi).catch(failed);
  });

  return {
    /** A 5GSM message from the UE, routed by the AMF (TS 24.501 5.4.5.2.3). */
    async uplink(ue: UplinkSmContext, message: FiveGsmMessage): Promise<void> {
      switch (message.messageType) {
        case 'pduSessionEstablishmentRequest':
          return establish(ue, message);
        case 'pduSessionReleaseRequest':
          return releaseRequested(ue.supi, message);
        case 'pduSessionReleaseComplete': {
          // 6.3.3.3: T3592 stops, the session is gone.
          const s = sessions.get(key(ue.supi, message.pduSessionId));
          if (s?.state.kind === 'releasing') forget(s);
          return;
        }
        case 'pduSessionModificationRequest':
          return modificationRequested(ue.supi, message);
        case 'pduSessionModificationComplete': {
          // 6.3.2.3: T3591 stops.
          const s = sessions.get(key(ue.supi, message.pduSessionId));
          s?.t3591?.stop();
          if (s !== undefined) s.t3591 = undefined;
          return;
        }
        case 'pduSessionModificationCommandReject': {
          // 6.3.2.4: T3591 stops; #43 means the UE has no such session: released locally.
          const s = sessions.get(key(ue.supi, message.pduSessionId));
          if (s === undefined) return;
          s.t3591?.stop();
          s.t3591 = undefined;
          if (message.fiveGsmCause === SM_CAUSE.invalidPduSessionIdentity) releaseLocally(s);
          return;
        }
        case 'fiveGsmStatus':
          return; // logged by the AMF; nothing to undo
        default:
          // 7.4: a message the network does not expect -> 5GSM Status #97.
          amf.sendN1(ue.supi, {
            messageType: 'fiveGsmStatus',
            pduSessionId: message.pduSessionId,
            pti: message.pti,
            fiveGsmCause: SM_CAUSE.messageTypeNonExistentOrNotImplemented,
          });
          return;
      }
    },

    /** PDU Session Resource Setup Response (or the Initial Context Setup item) for one session. */
    resourcesSetUp(supi: string, pduSessionId: number, transfer: Uint8Array): void {
      const s = sessions.get(key(supi, pduSessionId));
      if (s === undefined || s.state.kind === 'releasing' || userPlane === undefined) return;
      const read = readSetupResponseTransfer(transfer);
      if (!read.ok) {
        logger.warn({ supi, pduSessionId, error: read.error }, 'SMF: unreadable setup response transfer');
        return releaseByNetwork(s, SM_CAUSE.networkFailure);
      }
      const downlink: DownlinkTunnel = {
        gnbAddress: read.downlink.address,
        remoteTeid: read.downlink.teid,
        qfi: s.flow.qfi,
      };
      const updated = userPlane.updateDownlink(s.upfSessionId, downlink);
      if (!updated.ok) {
        logger.warn({ supi, pduSessionId, error: updated.error }, 'SMF: the UPF refused the downlink');
        return releaseByNetwork(s, SM_CAUSE.networkFailure);
      }
      s.state = { kind: 'active', downlink };
      publish(s);
    },

    /**
     * The radio could not set the session's resources up (PDU Session Resource Failed to Setup): the
     * session cannot carry traffic, so it is released (TS 23.502 4.3.2.2.1 step 15, the SMF's choice).
     */
    resourcesFailed(supi: string, pduSessionId: number): void {
      const s = sessions.get(key(supi, pduSessionId));
      if (s !== undefined) releaseByNetwork(s, SM_CAUSE.insufficientResources);
    },

    /**
     * The UE's N2 connection ended (AN release, radio loss): every active session's user plane is
     * deactivated (TS 23.502 4.2.6); the sessions, addresses and uplink rules stay. A session still
     * releasing is forgotten (its Complete can no longer come).
     */
    ueIdle(supi: string): void {
      for (const s of [...(bySupi.get(supi) ?? [])]) {
        switch (s.state.kind) {
          case 'releasing':
            forget(s);
            break;
          case 'active':
          case 'setting-up':
            userPlane?.deactivate(s.upfSessionId);
            s.state = { kind: 'inactive', downlinkData: false };
            publish(s);
            break;
          case 'inactive':
            break;
        }
      }
    },

    /**
     * The UPF saw downlink packets for an inactive session (Downlink Data Notification, TS 23.502
     * 4.2.3.3): the AMF pages the UE. The UPF holds the packets (bounded, docs/upf.md "Downlink
     * buffering") and sends them once the reactivated session gives it the gNB's tunnel.
     */
    downlinkData(upfSessionId: number): void {
      const s = byUpfSession.get(upfSessionId);
      if (s?.state.kind !== 'inactive' || s.state.downlinkData) return;
      s.state.downlinkData = amf.pageForDownlinkData(s.supi);
    },

    /**
     * The UE did not answer paging (T3513's last expiry, TS 23.502 4.2.3.3 step 4c): the sessions'
     * downlink data is forgotten (what the UPF buffered expires there), the next packets notify again.
     */
    pagingFailed(supi: string): void {
      for (const s of bySupi.get(supi) ?? [])
        if (s.state.kind === 'inactive') s.state = { kind: 'inactive', downlinkData: false };
    },

    /**
     * A Service Request (TS 24.501 5.6.1.4.1) or a mobility/periodic Registration Request (5.5.1.3.4):
     * sessions the UE's PDU session status says it no longer has are released locally; the user plane
     * comes back for the sessions of Uplink data status and those the UE was paged for (TS 23.502
     * 4.2.3.2 step 4), their items going in Initial Context Setup Request. Returns what the Accept says
     * (the network's sessions, and the sessions of Uplink data status it does not have) and those items.
     */
    statusReceived(supi: string, request: UeSessionStatus): NetworkSessionStatus {
      const held = [...(bySupi.get(supi) ?? [])];
      for (const s of held) {
        // A session waiting for Release Complete is gone for the UE too once it reads the status.
        if (s.state.kind === 'releasing') forget(s);
        else if (request.pduSessionStatus !== undefined && !request.pduSessionStatus.includes(s.pduSessionId))
          releaseLocally(s);
      }
      const asked = new Set(request.uplinkDataStatus ?? []);
      const left = [...(bySupi.get(supi) ?? [])].sort((a, b) => a.pduSessionId - b.pduSessionId);
      const reactivate: N2SmItem[] = [];
      for (const s of left) {
        if (s.state.kind !== 'inactive') continue;
        if (userPlane !== undefined && (asked.has(s.pduSessionId) || s.state.downlinkData)) {
          reactivate.push(setupItem(s));
          s.state = { kind: 'setting-up' };
        } else s.state = { kind: 'inactive', downlinkData: false };
      }
      const have = new Set(left.map((s) => s.pduSessionId));
      return {
        pduSessionStatus: [...have],
        reactivationFailed: [...asked].filter((id) => !have.has(id)).sort((a, b) => a - b),
        reactivate,
      };
    },

    /**
     * Xn handover's path switch (TS 23.502 4.9.1.2.2 steps 1-3): each session of the To Be Switched list
     * whose user plane is up gets its downlink moved to the target gNB's tunnel (the UPF sends an End
     * Marker down the old one, TS 29.281 7.3.2) and goes in the Switched list; one the SMF does not
     * hold up, whose transfer does not read, or the UPF refuses goes in the Released list, its user
     * plane deactivated. Sessions the target did not list (its Failed To Setup list, or none) lose their
     * user plane too (deactivated; a Service Request brings it back).
     */
    pathSwitched(supi: string, toBeSwitched: readonly PathSwitchItem[]): PathSwitchOutcome {
      const outcome: PathSwitchOutcome = { switched: [], released: [] };
      const deactivate = (s: SmSession): void => {
        userPlane?.deactivate(s.upfSessionId);
        s.state = { kind: 'inactive', downlinkData: false };
        publish(s);
      };
      const switchOne = (s: SmSession | undefined, transfer: Uint8Array): Cause | undefined => {
        if (s === undefined || (s.state.kind !== 'active' && s.state.kind !== 'setting-up'))
          return { choice: 'radioNetwork', value: 'unknown-PDU-session-ID' };
        const read = readPathSwitchRequestTransfer(transfer);
        if (!read.ok) return { choice: 'protocol', value: 'semantic-error' };
        const downlink: DownlinkTunnel = {
          gnbAddress: read.downlink.address,
          remoteTeid: read.downlink.teid,
          qfi: s.flow.qfi,
        };
        const moved = userPlane?.updateDownlink(s.upfSessionId, downlink);
        if (moved?.ok !== true) {
          logger.warn({ supi, pduSessionId: s.pduSessionId }, 'SMF: the UPF refused the switched downlink');
          return { choice: 'misc', value: 'not-enough-user-plane-processing-resources' };
        }
        s.state = { kind: 'active', downlink };
        publish(s);
        return undefined;
      };
      for (const { pduSessionId, transfer } of toBeSwitched) {
        const s = sessions.get(key(supi, pduSessionId));
        const cause = switchOne(s, transfer);
        if (cause === undefined) {
          outcome.switched.push({ pduSessionId, transfer: pathSwitchAcknowledgeTransfer() });
          continue;
        }
        if (s !== undefined && (s.state.kind === 'active' || s.state.kind === 'setting-up')) deactivate(s);
        outcome.released.push({ pduSessionId, transfer: pathSwitchUnsuccessfulTransfer(cause) });
      }
      const listed = new Set(toBeSwitched.map((item) => item.pduSessionId));
      for (const s of bySupi.get(supi) ?? [])
        if (!listed.has(s.pduSessionId) && (s.state.kind === 'active' || s.state.kind === 'setting-up'))
          deactivate(s);
      return outcome;
    },

    /** Deregistration or the subscriber's deletion: every session released locally (TS 24.501 6.3.3). */
    ueGone(supi: string): void {
      for (const s of [...(bySupi.get(supi) ?? [])]) releaseLocally(s);
    },

    /** The SMF's sessions of a UE and their states (tests, metrics). */
    sessionsOf(supi: string): { pduSessionId: number; state: SessionState['kind'] }[] {
      return [...(bySupi.get(supi) ?? [])].map((s) => ({
        pduSessionId: s.pduSessionId,
        state: s.state.kind,
      }));
    },

    counts: () => ({ sessions: sessions.size, addresses: addresses.held, teids: teids.held }),

    /** Stops listening to configuration changes; every session is released locally. */
    stop(): void {
      unsubscribe();
      for (const s of [...sessions.values()]) releaseLocally(s);
    },
  };
}

export type Smf = ReturnType<typeof createSmf>;

/** The NGAP cause a PDU session is released with (TS 38.413 9.3.1.2). */
function ngapCauseFor(smCause: number): Cause {
  return smCause === SM_CAUSE.regularDeactivation
    ? { choice: 'nas', value: 'normal-release' }
    : { choice: 'misc', value: 'unspecified' };
}
