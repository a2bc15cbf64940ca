import type { Logger } from 'pino';
import type { Clock, Timers } from '../clock.ts';
import type { RecordsIngestion } from '../records/ingestion.ts';
import { createAmf, type Amf, type AmfOptions } from '../network/amf/amf.ts';
import type { Authentication } from '../network/amf/ports/authentication.ts';
import type { SessionManagement } from '../network/amf/ports/session-management.ts';
import {
  createAusf,
  createHomeNetworkKeyRing,
  resolveSupi,
  type HomeNetworkKeyRing,
} from '../network/ausf/index.ts';
import type { NetworkEventEmitter } from '../network/events/network-events.ts';
import { createLmf } from '../network/lmf/lmf.ts';
import type { LocationServices } from '../network/lmf/location-services.ts';
import type { LmfTransport } from '../network/lmf/ports/amf-transport.ts';
import type { AddressLeases } from '../network/ports/address-leases.ts';
import type { AuthenticationDataPort } from '../network/ports/authentication-data.ts';
import type { ConfigurationEvents } from '../network/ports/configuration-events.ts';
import type { HomeNetworkKey, OperatorConfigurationPort } from '../network/ports/operator-configuration.ts';
import type { SmscOutbox, SmsStore, SmsSubscribers } from '../network/ports/sms-store.ts';
import type { SmscConfigurationPort } from '../network/ports/smsc-configuration.ts';
import {
  createSmscGateway,
  type SmscGateway,
  type SmscGatewayOptions,
} from '../network/smsc-link/smsc-gateway.ts';
import type { SubscriptionDataPort } from '../network/ports/subscription-data.ts';
import { createSmsf, type Smsf } from '../network/smsf/smsf.ts';
import { DEFAULT_SMSF_SETTINGS, type SmsfSettings } from '../network/smsf/smsf-settings.ts';
import { readSetupUnsuccessfulTransfer } from '../network/smf/n2-transfers.ts';
import { createSmf, type Smf, type UserPlane } from '../network/smf/smf.ts';
import type { UpfAddon } from '../network/upf/upf-addon.ts';
import type { UpfSettings } from '../network/upf/upf-settings.ts';
import { createUpf, type Upf, type UpfRecords } from '../network/upf/upf.ts';
import { createMemoryTunnelEndpointIds } from '../network/working-state/memory-tunnel-endpoints.ts';

/** What the network functions are built over: the core's ports, its events and records, a clock. */
export interface NetworkFunctionsOptions {
  /** The AMF's identity, settings and what it shares with N2 (peer log, metrics). */
  amf: Pick<
    AmfOptions,
    'identity' | 'settings' | 'peerLog' | 'metrics' | 'randomTmsi' | 'ueContexts' | 'heldSubscribers'
  >;
  authenticationData: AuthenticationDataPort;
  subscriptionData: SubscriptionDataPort;
  operatorConfiguration: OperatorConfigurationPort;
  configurationEvents: ConfigurationEvents;
  events: NetworkEventEmitter;
  records: Pick<RecordsIngestion, 'recordSubscriberLog'>;
  timers: Timers;
  logger: Logger;
  /** The SMF's UE address leases; without, this process's memory (docs/amf-set.md, "Address leases"). */
  addressLeases?: AddressLeases;
  /**
   * PDU sessions (docs/sessions.md): the SMF over the UPF started from `upf` (config `upf`; it needs
   * CAP_NET_ADMIN and its N3 address), or over a given `userPlane` (tests). Without, no SMF: 5GSM
   * messages go back with #90. A UPF that cannot start leaves the SMF refusing sessions with #26.
   */
  sessions?:
    | { upf: { settings: UpfSettings; addon?: UpfAddon }; records: UpfRecords; clock: Clock }
    | { userPlane: UserPlane | undefined };
  /** SMS over NAS (docs/sms.md): the SMSF over the message store and the subscribers' SMS data. */
  sms?: {
    store: SmsStore;
    subscribers: SmsSubscribers;
    clock: Clock;
    settings?: Partial<SmsfSettings>;
    /**
     * The SMSC link (docs/sms.md, "SMSC link"), built from its stored configuration: `start()` binds it
     * when the configuration enables it. Without, numbers outside the network are refused (#1).
     */
    smsc?: { configuration: SmscConfigurationPort; outbox: SmscOutbox } & Pick<
      SmscGatewayOptions,
      'onPdu' | 'settings' | 'connect'
    >;
  };
}

/**
 * The network side's functions, built side by side (docs/architecture.md "Network functions"): the
 * AUSF, the UPF, the SMF, the LMF, the SMSF and the AMF. None builds another; each consumes the ports it defines,
 * and the adapters between them live here. Two pairs call each other: the AMF and the SMF (5GSM up,
 * N1N2 message transfer down), and the AMF and the LMF (positioning messages up, transport down); the
 * UPF and the SMF too (Downlink Data Notification), and the AMF and the SMSF (uplink SMS and
 * activation up, N1N2 message transfer down). Each cycle is closed by late binding below: the SMF, the
 * LMF and the SMSF are built with a port that reaches the AMF once it exists.
 */
export function createNetworkFunctions(options: NetworkFunctionsOptions) {
  const { logger, timers } = options;

  const ausf = createAusf({ authenticationData: options.authenticationData });
  const authentication = authenticationOf(ausf);

  // The AMF is built last; the SMF's and the LMF's requests reach it through `toAmf`, bound once it is
  // (none comes before: each answers a UE the AMF serves).
  const late: { amf?: Amf } = {};
  const toAmf = (): Amf => {
    if (late.amf === undefined) throw new Error('a network function used the AMF before it was built');
    return late.amf;
  };

  let smf: Smf | undefined;
  const upf = startUpf(options, (upfSessionId) => smf?.downlinkData(upfSessionId));
  if (options.sessions !== undefined)
    smf = createSmf({
      subscriptionData: options.subscriptionData,
      configurationEvents: options.configurationEvents,
      events: options.events,
      userPlane: 'userPlane' in options.sessions ? options.sessions.userPlane : upf?.userPlane,
      amf: {
        sendN1: (supi, message) => toAmf().n1n2.sendN1(supi, message),
        setupResources: (supi, item) => toAmf().n1n2.setupResources(supi, item),
        modifyResources: (supi, item) => toAmf().n1n2.modifyResources(supi, item),
        releaseResources: (supi, item) => toAmf().n1n2.releaseResources(supi, item),
        pageForDownlinkData: (supi) => toAmf().n1n2.pageForDownlinkData(supi),
      },
      logger,
      timers,
      addressLeases: options.addressLeases,
      // The uplink TEIDs come from the UPF's one TEID space, as its forwarding TEIDs do.
      ...(upf === undefined ? {} : { teids: createMemoryTunnelEndpointIds(upf.upf.teids) }),
    });

  const lmfTransport: LmfTransport = {
    reach: (imsi, withinMs) => toAmf().lmfTransport.reach(imsi, withinMs),
    sendNrppa: (imsi, pdu) => toAmf().lmfTransport.sendNrppa(imsi, pdu),
    sendLpp: (imsi, message) => toAmf().lmfTransport.sendLpp(imsi, message),
  };
  const lmf = createLmf({ transport: lmfTransport, timers });

  // The SMSF and the SMSC link call each other (messages out, messages in and receipts): the link reaches
  // the SMSF through `smsf`, bound right after.
  let smsc: SmscGateway | undefined;
  let smsf: Smsf | undefined;
  if (options.sms !== undefined) {
    const { smsc: link, ...sms } = options.sms;
    if (link !== undefined)
      smsc = createSmscGateway({
        configuration: link.configuration,
        changes: options.configurationEvents,
        outbox: link.outbox,
        store: sms.store,
        subscribers: sms.subscribers,
        validityMs: sms.settings?.defaultValidityMs ?? DEFAULT_SMSF_SETTINGS.defaultValidityMs,
        queuedFor: (imsi) => smsf?.ueReachable(imsi),
        settled: (message, outcome) => smsf?.settledOutside(message, outcome),
        clock: sms.clock,
        timers,
        logger,
        ...(link.onPdu === undefined ? {} : { onPdu: link.onPdu }),
        ...(link.settings === undefined ? {} : { settings: link.settings }),
        ...(link.connect === undefined ? {} : { connect: link.connect }),
      });
    const gateway = smsc;
    smsf = createSmsf({
      ...sms,
      amf: { transfer: (supi, container) => toAmf().smsTransfer.transfer(supi, container) },
      ...(gateway === undefined
        ? {}
        : { smsc: { accepts: () => gateway.accepts(), queued: () => gateway.queued() } }),
      timers,
      logger,
    });
  }

  const amf = createAmf({
    ...options.amf,
    authentication,
    subscriptionData: options.subscriptionData,
    operatorConfiguration: options.operatorConfiguration,
    configurationEvents: options.configurationEvents,
    events: options.events,
    records: options.records,
    timers,
    logger,
    ...(smf === undefined ? {} : { sessionManagement: sessionManagementOf(smf, logger) }),
    location: {
      nrppaReceived: (supi, pdu) => lmf.nrppaReceived(supi, pdu),
      lppReceived: (supi, message) => lmf.lppReceived(supi, message),
    },
    ...(smsf === undefined
      ? {}
      : {
          sms: {
            activate: (supi) => smsf.activate(supi),
            deactivate: (supi) => smsf.deactivate(supi),
            uplinkSms: (supi, container) => smsf.uplinkSms(supi, container),
            ueReachable: (supi) => smsf.ueReachable(supi),
          },
        }),
  });
  late.amf = amf;

  /** What the API's locator asks (network.md section 8): the AMF's fresh cell, the LMF's methods. */
  const locationServices: LocationServices = {
    refreshServingCell: (imsi) => amf.refreshServingCell(imsi),
    ecidNetwork: (imsi, rat) => lmf.ecidNetwork(imsi, rat),
    ueEcid: (imsi, rat) => lmf.ueEcid(imsi, rat),
    gnss: (imsi) => lmf.gnss(imsi),
  };

  return {
    amf: amf,
    /** The SMF, when sessions were asked for (tests, metrics). */
    smf,
    /** The UPF when it started. */
    upf: upf?.upf,
    /** The SMSF, when SMS was asked for. */
    smsf,
    /** The SMSC link, when one was asked for: started by `start()`. */
    smsc,
    locationServices,
    /** Starts what opens connections of its own: the SMSC link binds when its configuration says so. */
    async start(): Promise<void> {
      await smsc?.start();
    },
    /**
     * The UPF ends every session and reports its last flows first (the records are written before
     * anything else stops); then the SMSC link unbinds, and the AMF's timers, the LMF's waits and the SMF's sessions end.
     */
    async stop(): Promise<void> {
      await upf?.upf.stop();
      await smsc?.stop();
      amf.stop();
      lmf.stop();
      smf?.stop();
      smsf?.stop();
    },
  };
}

export type NetworkFunctions = ReturnType<typeof createNetworkFunctions>;

/**
 * The AMF's authentication port from the AUSF and the SIDF. The home network keys are prepared once
 * per configuration the AMF read (it reads the configuration again after each operator change).
 */
function authenticationOf(ausf: ReturnType<typeof createAusf>): Authentication {
  const rings = new WeakMap<readonly HomeNetworkKey[], HomeNetworkKeyRing>();
  return {
    authenticate: (supi, servingNetworkName) => ausf.authenticate(supi, servingNetworkName),
    confirm: (pending, resStar) => ausf.confirm(pending, resStar),
    resynchronise: (pending, auts) => ausf.resynchronise(pending, auts),
    resolveSupi(suci, homeNetworkKeys) {
      let ring = rings.get(homeNetworkKeys);
      if (ring === undefined) rings.set(homeNetworkKeys, (ring = createHomeNetworkKeyRing(homeNetworkKeys)));
      return resolveSupi(suci, ring);
    },
  };
}

/**
 * The AMF's session management port from the SMF. A radio's Unsuccessful Transfer is N2 SM information
 * for the SMF (TS 23.502 4.3.2.2.1 step 15); the SMF releases the session, the log says why.
 */
function sessionManagementOf(smf: Smf, logger: Logger): SessionManagement {
  return {
    uplink: (ue, message) => smf.uplink(ue, message),
    resourcesSetUp: (supi, pduSessionId, transfer) => smf.resourcesSetUp(supi, pduSessionId, transfer),
    resourcesFailed(supi, pduSessionId, transfer) {
      const cause = readSetupUnsuccessfulTransfer(transfer);
      logger.info({ supi, pduSessionId, cause }, 'SMF: the radio could not set a PDU session up');
      smf.resourcesFailed(supi, pduSessionId);
    },
    ueIdle: (supi) => smf.ueIdle(supi),
    pagingFailed: (supi) => smf.pagingFailed(supi),
    statusReceived: (supi, request) => smf.statusReceived(supi, request),
    pathSwitched: (supi, toBeSwitched) => smf.pathSwitched(supi, toBeSwitched),
    radioNotified: (supi, pduSessionId, transfer) => smf.radioNotified(supi, pduSessionId, transfer),
    radioReleasedSession: (supi, pduSessionId) => smf.radioReleasedSession(supi, pduSessionId),
    secondaryRatUsage: (supi, pduSessionId, transfer) => smf.secondaryRatUsage(supi, pduSessionId, transfer),
    modifyIndicated: (supi, pduSessionId, transfer) => smf.modifyIndicated(supi, pduSessionId, transfer),
    handoverRequired: (supi, items) => smf.handoverRequired(supi, items),
    handoverAcknowledged: (supi, admitted, failed) => smf.handoverAcknowledged(supi, admitted, failed),
    handoverExecuted: (supi) => smf.handoverExecuted(supi),
    handoverCancelled: (supi) => smf.handoverCancelled(supi),
    restoreSessions: (supi, sessions, allowedNssai) => smf.restoreSessions(supi, sessions, allowedNssai),
    ueGone: (supi) => smf.ueGone(supi),
    sessionRecords: (supi) => smf.sessionRecords(supi),
  };
}

/**
 * Starts the UPF (docs/upf.md) when `sessions.upf` is given. Without CAP_NET_ADMIN (the TUN device) or
 * its N3 address it cannot: the log says so once, and the SMF refuses PDU sessions with #26
 * (docs/sessions.md). Downlink data for an idle session goes to `onDownlinkData` (the SMF pages).
 */
function startUpf(
  options: NetworkFunctionsOptions,
  onDownlinkData: (upfSessionId: number) => void,
): { upf: Upf; userPlane: UserPlane } | undefined {
  const sessions = options.sessions;
  if (sessions === undefined || !('upf' in sessions)) return undefined;
  const { settings, addon } = sessions.upf;
  const created = createUpf({
    settings,
    records: sessions.records,
    clock: sessions.clock,
    timers: options.timers,
    onDownlinkData: (session) => onDownlinkData(session.id),
    logger: options.logger,
    ...(addon === undefined ? {} : { addon }),
  });
  try {
    created.start();
  } catch (error) {
    options.logger.warn(
      { err: error, n3: settings.n3Address, tun: settings.tunName },
      `UPF not started (${(error as Error).message}): PDU sessions are refused with 5GSM cause #26 until the service starts with CAP_NET_ADMIN and a usable N3 address`,
    );
    return undefined;
  }
  // One line says which datapath runs and why (docs/upf.md "The XDP datapath").
  options.logger.info(
    { n3: `${settings.n3Address}:${created.n3Port}`, tun: created.tunName, datapath: created.datapath.kind },
    `UPF forwarding between N3 ${settings.n3Address}:${created.n3Port} and N6 ${created.tunName}, ${created.datapath.kind} datapath: ${created.datapath.reason}`,
  );
  return {
    upf: created,
    userPlane: {
      n3Address: settings.n3Address,
      establishSession: (request) => created.establishSession(request),
      updateDownlink: (id, tunnel) => created.updateDownlink(id, tunnel),
      createForwarding: (id, target) => created.createForwarding(id, target),
      removeForwarding: (id) => created.removeForwarding(id),
      deactivate: (id) => created.deactivate(id),
      modifyAmbr: (id, ambr) => created.modifyAmbr(id, ambr),
      release: (id) => created.release(id),
    },
  };
}
