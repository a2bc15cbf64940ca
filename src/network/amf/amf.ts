import type { Logger } from 'pino';
import type { Timers } from '../../clock.ts';
import { createPeerLogLimiter, type PeerLogLimiter } from '../peer-log-limiter.ts';
import { servingNetworkName } from '../../crypto/key-hierarchy.ts';
import { randomPool } from '../../crypto/random-pool.ts';
import type { RecordsIngestion } from '../../records/ingestion.ts';
import type { ConfigurationEvents } from '../ports/configuration-events.ts';
import type { OperatorConfigurationPort } from '../ports/operator-configuration.ts';
import type { SubscriptionDataPort } from '../ports/subscription-data.ts';
import type { UeContextStore } from '../ports/ue-contexts.ts';
import type { NetworkEventEmitter } from '../events/network-events.ts';
import type { AmfContext, AmfNetwork } from './context/amf-context.ts';
import type { AmfIdentity } from './context/amf-identity.ts';
import { DEFAULT_AMF_SETTINGS, type AmfSettings } from './amf-settings.ts';
import type { AmfUe } from './context/amf-ue.ts';
import { createAmfUes } from './context/amf-ues.ts';
import { allowedNssaiChanged } from './gmm/configuration-update.ts';
import { deregisterByNetwork } from './gmm/deregistration.ts';
import { GMM_CAUSE } from '../nas/index.ts';
import { createAmfLocation } from './location.ts';
import { createNasDispatch } from './gmm/nas-dispatch.ts';
import { createHandover, type HandoverTiming } from './n2/handover.ts';
import { createPathSwitch } from './n2/path-switch.ts';
import { allowedNssaiFor } from './gmm/nssai-selection.ts';
import type { Authentication } from './ports/authentication.ts';
import type { LocationManagement } from './ports/location.ts';
import type { SessionManagement } from './ports/session-management.ts';
import type { SmsService } from './ports/sms.ts';
import type { HeldSubscribers } from './ports/held-subscribers.ts';
import { rekeyingSecurityMode } from './gmm/rekeying.ts';
import { smsTransfer } from './gmm/sms.ts';
import { n1n2MessageTransfer } from './sm/session-management.ts';
import { createUeContextWrites } from './context/ue-context-writes.ts';
import { dropTakenOver, stopTimers } from './gmm/ue-lifecycle.ts';
import { adoptUesOf, type AdoptionPacing } from './gmm/adoption.ts';
import { releaseQuietUes } from './gmm/drain.ts';
import { createOverloadWatch } from './gmm/overload.ts';
import { createUeNgap, DEFAULT_RELEASE_TIMEOUT_MS } from './n2/ue-ngap.ts';
import { createRadioCapability } from './n2/radio-capability.ts';
import { createRadioCapabilityCheck } from './n2/radio-capability-check.ts';
import { createSessionIndications } from './sm/session-indications.ts';
import { createContextModification } from './n2/ue-context-modification.ts';
import { inactiveAssistanceFor } from './n2/rrc-inactive-assistance.ts';
import type { UeSignalling } from './n2/ue-signalling.ts';
import { isRegistered } from './context/gmm-state.ts';

export interface AmfOptions {
  identity: AmfIdentity;
  settings?: Partial<AmfSettings>;
  /** The AUSF and SIDF (ports/authentication.ts). */
  authentication: Authentication;
  subscriptionData: SubscriptionDataPort;
  operatorConfiguration: OperatorConfigurationPort;
  configurationEvents: ConfigurationEvents;
  /** Where the AMF and its SMF report what happens (network state, metrics and records subscribe). */
  events: NetworkEventEmitter;
  records: Pick<RecordsIngestion, 'recordSubscriberLog'>;
  timers: Timers;
  logger: Logger;
  /** Shared with the N2 service (one summary for both); one of its own, counting nothing, unless given. */
  peerLog?: PeerLogLimiter;
  /**
   * Where the UE contexts are written, owned by this AMF (its AMF Name) with a fencing epoch per UE,
   * and read to take over a UE of the set (docs/amf-set.md); none unless given.
   */
  ueContexts?: UeContextStore;
  /** What the AMF counts (UE context limit rejects, UE context write failures); nothing unless given. */
  metrics?: AmfContext['metrics'];
  /** 32 random bits for 5G-TMSIs; node:crypto's unless given. */
  randomTmsi?: () => number;
  /** PDU sessions (docs/sessions.md): 5GSM messages go to this SMF; refused (#90) without one. */
  sessionManagement?: SessionManagement;
  /** Where uplink NRPPa and LPP go (the LMF, network.md section 8). */
  location: LocationManagement;
  /** How long an N2 handover waits for the target and for the UE (n2/handover.ts); defaults there. */
  handoverTiming?: HandoverTiming;
  /** SMS over NAS (docs/sms.md): the SMSF; without one no UE is told SMS is allowed. */
  sms?: SmsService;
  /** Told which subscribers the AMF holds UE contexts for (the remembered subscription data); none unless given. */
  heldSubscribers?: HeldSubscribers;
}

/**
 * The AMF's UE side (docs/registration.md): UE-associated NGAP, the 5GMM procedures over a shared UE
 * context. It builds no other network function: it is given the ports it consumes (authentication,
 * session management, location) and offers what the SMF and the LMF ask of it (`n1n2`,
 * `lmfTransport`); core/network-functions.ts wires them. `signalling` plugs into N2
 * (`createN2(..., { ue })`); `stop` ends every timer.
 */
export function createAmf(options: AmfOptions) {
  const settings: AmfSettings = { ...DEFAULT_AMF_SETTINGS, ...options.settings };
  const peerLog =
    options.peerLog ??
    createPeerLogLimiter({ logger: options.logger, timers: options.timers, count: () => undefined });
  const ngap = createUeNgap<AmfUe>({
    peerLog,
    maxConnections: settings.maxConnections,
    releaseTimeoutMs: DEFAULT_RELEASE_TIMEOUT_MS,
    timers: options.timers,
    logger: options.logger,
  });
  let network: Promise<AmfNetwork> | undefined;
  const readNetwork = async (): Promise<AmfNetwork> => {
    const configuration = await options.operatorConfiguration.getOperatorConfiguration();
    return {
      configuration,
      servingNetworkName: servingNetworkName(configuration.plmn.mcc, configuration.plmn.mnc),
    };
  };
  const smf = options.sessionManagement;
  let generation = 0;
  /** Set once this AMF's planned removal starts (`drain`); never unset: the process exits after it. */
  let draining = false;
  /** Set while this member is cut off from the database (`suspend`, set/database-cut.ts). */
  let suspended = false;
  const metrics = options.metrics ?? {
    ueContextLimitReject: () => undefined,
    ueContextWriteFailure: () => undefined,
  };
  const ues = createAmfUes({
    limit: settings.maxUeContexts,
    ...(options.heldSubscribers === undefined ? {} : { subscribers: options.heldSubscribers }),
  });
  const overload = createOverloadWatch({
    limit: settings.maxUeContexts,
    held: () => ues.size(),
    timers: options.timers,
    logger: options.logger,
  });
  const radioCapabilityCheck = createRadioCapabilityCheck({ ngap, timers: options.timers });
  const amf: AmfContext = {
    settings,
    identity: options.identity,
    timers: options.timers,
    logger: options.logger,
    peerLog,
    metrics,
    overload,
    ngap,
    radioCapabilityCheck,
    ues,
    ueContexts: createUeContextWrites({
      store: options.ueContexts,
      owner: options.identity.name,
      sessions: (supi) => smf?.sessionRecords(supi) ?? [],
      logger: options.logger,
      failed: (reason) => metrics.ueContextWriteFailure(reason),
      lost: (ue) => dropTakenOver(amf, ue),
      holder: (supi) => amf.ues.bySupi(supi),
    }),
    ausf: options.authentication,
    network: () => {
      network ??= readNetwork().catch((error: unknown) => {
        network = undefined;
        throw error;
      });
      return network;
    },
    subscriptionData: options.subscriptionData,
    events: options.events,
    records: options.records,
    randomTmsi: options.randomTmsi ?? randomPool.word,
    smf,
    sms: options.sms,
    reconsider: (ue) => void reconsider(ue).catch(failed),
    refreshInactiveAssistance: (ue) =>
      contextModification.inactiveAssistance(ue, inactiveAssistanceFor(ue, settings.t3512Ms)),
    refreshAccessKey: (ue, kgnb) => contextModification.securityKey(ue, kgnb),
    accessKeyChanging: (ue) => rekeyingSecurityMode(ue) || contextModification.keyPending(ue),
    handingOver: (ue) => ue.supi !== undefined && handover.handingOver(ue.supi),
    draining: () => draining,
    suspended: () => suspended,
    get configurationGeneration() {
      return generation;
    },
  };
  const location = createAmfLocation(amf, options.location);
  ngap.bind(createNasDispatch(amf, location));
  ngap.bindLocation(location.endpoint);
  ngap.bindPathSwitch(createPathSwitch(amf));
  const handover = createHandover(amf, options.handoverTiming);
  ngap.bindHandover(handover);
  ngap.bindRadioCapability(createRadioCapability(peerLog));
  ngap.bindRadioCapabilityCheck(radioCapabilityCheck.endpoint);
  const contextModification = createContextModification(amf);
  ngap.bindContextModification(contextModification.endpoint);
  ngap.bindSessionIndications(createSessionIndications(amf));

  /**
   * A subscriber deleted, or a change to its profile, a policy or a slice (network.md 5): the device is
   * deregistered by the network when it may no longer be served (#7 5GS services not allowed, #62 no
   * network slices available), else given its new allowed NSSAI if that changed (TS 24.501 5.4.4). A
   * device still registering is looked at again at its Registration Complete if anything changed since
   * its subscription was read (`configurationGeneration`): its Registration Accept may carry what the
   * change made stale.
   */
  async function reconsider(ue: AmfUe): Promise<void> {
    const supi = ue.supi;
    if (supi === undefined || !isRegistered(ue)) return;
    const [subscription, current] = await Promise.all([
      options.subscriptionData.getSubscriptionData(supi),
      amf.network(),
    ]);
    if (!amf.ues.has(ue) || !isRegistered(ue)) return;
    if (subscription === undefined) return deregisterByNetwork(amf, ue, GMM_CAUSE.fiveGsServicesNotAllowed);
    const allowed = allowedNssaiFor(ue.requestedNssai, current.configuration.slices, subscription);
    if (allowed.length === 0) return deregisterByNetwork(amf, ue, GMM_CAUSE.noNetworkSlicesAvailable);
    allowedNssaiChanged(amf, ue, allowed);
    contextModification.subscribedAmbr(ue, subscription.profile);
  }

  const failed = (error: unknown): void =>
    options.logger.error({ err: error }, 'AMF: a configuration change could not be applied');
  const unsubscribe = options.configurationEvents.subscribe((change) => {
    generation++;
    if (change.resource === 'operator' || change.resource === 'slice') network = undefined;
    if (change.resource === 'subscriber') {
      const ue = amf.ues.bySupi(change.name);
      if (ue !== undefined) reconsider(ue).catch(failed);
      return;
    }
    if (change.resource === 'profile' || change.resource === 'policy' || change.resource === 'slice')
      for (const ue of [...amf.ues.withSupi()]) reconsider(ue).catch(failed);
  });

  const signalling: UeSignalling = ngap.signalling;
  return {
    signalling,
    /** UE contexts and UE-associated connections held now (metrics, tests). */
    counts: () => ({ ues: amf.ues.size(), connections: ngap.connections() }),
    /** N2 handovers in progress (tests: nothing leaks after a failure path). */
    handoversInProgress: () => handover.inProgress(),
    /** Location: a fresh serving cell (network.md section 8). */
    refreshServingCell: location.refreshServingCell,
    /** What the SMF asks of the AMF (N1N2 message transfer, paging). */
    n1n2: n1n2MessageTransfer(() => amf),
    /** What the LMF asks of the AMF (reach a device, NRPPa and LPP transport). */
    lmfTransport: location.lmfTransport,
    /** What the SMSF asks of the AMF (SMS containers to a device, paged when idle). */
    smsTransfer: smsTransfer(
      () => amf,
      (imsi, withinMs) => location.lmfTransport.reach(imsi, withinMs),
    ),
    /**
     * Planned removal (TS 23.501 5.21.2.2; gmm/drain.ts): from the first call no new UE is taken; each
     * call releases the N2 connection of every UE between procedures and says how many UE-associated
     * connections are left.
     */
    drain(): number {
      draining = true;
      return releaseQuietUes(amf);
    },
    /** Whether the AMF sheds load (UE context limit), and its changes: Overload Start / Stop (gmm/overload.ts). */
    overload: { overloaded: overload.overloaded, subscribe: overload.subscribe },
    /** Resolves once every UE context write asked for so far has ended (tests, the end of a drain). */
    ueContextsWritten: () => amf.ueContexts.settled(),
    /**
     * Adopts the UEs the store says `owner`, a member of the set whose lease ran out, owns (gmm/adoption.ts):
     * idle here, paged under their old 5G-GUTI when downlink data arrives.
     */
    adopt: (owner: string, pacing?: AdoptionPacing) => adoptUesOf(amf, owner, pacing),
    /**
     * Cut off from the database (set/database-cut.ts): from now on no NAS is served and nothing is
     * written; every UE context is dropped without a write, its N2 connection released and its sessions
     * ended here, as for a UE another member took over: the set's members serve the UEs from the store.
     * How many UE contexts were dropped.
     */
    suspend(): number {
      suspended = true;
      amf.ueContexts.suspend();
      const ues = [...amf.ues.all()];
      for (const ue of ues) dropTakenOver(amf, ue);
      return ues.length;
    },
    /** The member joined its set again: it serves NAS, and writes, again (UEs come back by takeover). */
    resume(): void {
      suspended = false;
      amf.ueContexts.resume();
    },
    /** Stops listening to configuration changes and every UE timer (the process stops). */
    stop(): void {
      unsubscribe();
      amf.ueContexts.stop();
      overload.stop();
      for (const ue of amf.ues.all()) stopTimers(ue);
      location.stop();
    },
  };
}

export type Amf = ReturnType<typeof createAmf>;
