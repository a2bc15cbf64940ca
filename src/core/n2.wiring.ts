import { systemClock, systemTimers, type Clock, type Timers } from '../clock.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Amf } from '../network/amf/amf.ts';
import { DEFAULT_AMF_SETTINGS, type AmfSettings } from '../network/amf/amf-settings.ts';
import { createN2Service, type N2Service } from '../network/amf/n2/n2-service.ts';
import {
  chooseN2Transport,
  HOST_SUPPORT,
  openN2Transport,
  type HostSupport,
  type N2TransportKind,
} from '../network/amf/n2/n2-transport-choice.ts';
import type { N2Settings } from '../network/amf/n2/n2-settings.ts';
import type { AssociationTiming } from '../network/amf/n2/ngap-association.ts';
import type { UeSignalling } from '../network/amf/n2/ue-signalling.ts';
import type { SctpParameters } from '../network/transport/sctp/sctp-config.ts';
import type { UpfAddon } from '../network/upf/upf-addon.ts';
import type { UpfSettings } from '../network/upf/upf-settings.ts';
import type { Upf } from '../network/upf/upf.ts';
import { createNgapMetrics, type NgapMetrics } from '../network/network-metrics.ts';
import { createPeerLogLimiter } from '../network/peer-log-limiter.ts';
import {
  createAmfSetMembership,
  DEFAULT_AMF_SET_TIMING,
  type AmfSetMembership,
} from '../network/amf/set/amf-set-membership.ts';
import {
  createMemberDrain,
  DEFAULT_DRAIN_TIMEOUT_MS,
  type DrainOutcome,
  type MemberDrain,
} from '../network/amf/set/member-drain.ts';
import { watchDeadMembers } from '../network/amf/set/dead-members.ts';
import { watchDatabaseCut } from '../network/amf/set/database-cut.ts';
import { startLeaseReclamation, type LeaseReclamation } from '../network/smf/lease-reclamation.ts';
import { redactNgapPdu } from '../network/ngap/ngap-codec.ts';
import type { TransportAddress } from '../network/transport/n2-transport.ts';
import type { Core } from './create-core.ts';
import type { Component } from './lifecycle.ts';
import { createNetworkFunctions, type NetworkFunctions } from './network-functions.ts';
import { createNetworkWriteRetries } from './network-write-retries.ts';
import { rememberedSubscriptionData } from './remembered-subscription-data.ts';

/** Where radios reach the AMF once N2 has started. */
export interface N2Endpoint {
  transport: N2TransportKind;
  /** The bound addresses and SCTP port. */
  local: readonly TransportAddress[];
  /** `udp` only: the UDP port the SCTP packets go to. */
  udpPort?: number;
}

export { DEFAULT_N2_SETTINGS, type N2Settings } from '../network/amf/n2/n2-settings.ts';

export interface N2Component extends Component {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Undefined before start, and when the service runs without N2. */
  endpoint(): N2Endpoint | undefined;
  /** The running service (AMF-initiated NG Reset, test hooks); undefined before start. */
  service(): N2Service | undefined;
  /** The AMF's UE side built from the core's ports (undefined before start, or when `ue` was given). */
  amf(): Amf | undefined;
  /** The network functions (AMF, SMF, LMF, UPF) built for N2 (undefined before start, or when `ue` was given). */
  networkFunctions(): NetworkFunctions | undefined;
  /** The UPF when it started (undefined before start, without `upf`, or when it could not start). */
  upf(): Upf | undefined;
  /** This process's membership of its AMF set (undefined before start and after stop). */
  amfSet(): AmfSetMembership | undefined;
  /** This member's planned removal (docs/amf-set.md, "Draining"); undefined before start, or when `ue` was given. */
  drain(): MemberDrain | undefined;
}

const ngapMetricsOfCore = new WeakMap<Metrics, NgapMetrics>();

/** NGAP counters are registered once per core, however often N2 starts. */
function ngapMetrics(metrics: Metrics): NgapMetrics {
  let found = ngapMetricsOfCore.get(metrics);
  if (found === undefined) ngapMetricsOfCore.set(metrics, (found = createNgapMetrics(metrics)));
  return found;
}

/**
 * The AMF's N2 side as a lifecycle component of the core (docs/n2.md). `main.ts` adds it after HTTP
 * so that it stops first; a test starts it itself on a started core:
 *
 * ```ts
 * const n2 = createN2(core, { ...DEFAULT_N2_SETTINGS, transport: 'udp', port: 0, udpPort: 0 });
 * await n2.start();
 * const { local, udpPort } = n2.endpoint()!; // connect a gNB to 127.0.0.1, SCTP port local[0].port, UDP udpPort
 * ...
 * await n2.stop(); // before core.stop()
 * ```
 *
 * The start says in one log line which transport it uses and why (`auto`: the kernel's SCTP, else raw
 * sockets, else no N2 with a warning); an explicit transport the host cannot give fails the start.
 */
export function createN2(
  core: Pick<
    Core,
    'logger' | 'metrics' | 'networkEvents' | 'networkState' | 'records' | 'ports' | 'amfSet'
  > & {
    location: Pick<Core['location'], 'locationServices'>;
  },
  settings: N2Settings,
  options: {
    timers?: Timers;
    ue?: UeSignalling;
    timing?: Partial<AssociationTiming>;
    host?: HostSupport;
    /** RFC 9260 parameters of the userland SCTP (`raw`, `udp`), e.g. short timers for a path-failure test. */
    sctp?: Partial<SctpParameters>;
    /** The AMF's NAS timers and limits (docs/registration.md); the defaults of network.md section 5. */
    amf?: Partial<AmfSettings>;
    /**
     * The UPF's settings (config `upf`), and an addon in place of the native one (tests): with them the
     * UPF starts with N2 and the SMF drives it; without, PDU sessions are refused with #26.
     */
    upf?: { settings: UpfSettings; addon?: UpfAddon };
    /** The clock of the UPF's reports; the system's unless given. */
    clock?: Clock;
    /** Called once a drain has ended (main.ts stops the process, exit status 0); nothing unless given. */
    onDrained?: (outcome: DrainOutcome) => void;
  } = {},
): N2Component {
  const { logger } = core;
  let service: N2Service | undefined;
  let endpoint: N2Endpoint | undefined;
  let functions: NetworkFunctions | undefined;
  /** Stops handing the API's queued messages to the SMSF. */
  let stopSmsQueued: (() => void) | undefined;
  let upf: Upf | undefined;
  let membership: AmfSetMembership | undefined;
  /** The membership while its start waits (another run's lease): a stop then ends that wait. */
  let joining: AmfSetMembership | undefined;
  /** Stops watching the set for dead members whose UEs this one adopts. */
  let stopAdopting: (() => void) | undefined;
  /** Stops watching this member's membership for the loss of the database. */
  let stopCutWatch: (() => void) | undefined;
  /** Frees gone members' address leases that no UE context names (where the set runs). */
  let reclamation: LeaseReclamation | undefined;
  let drain: MemberDrain | undefined;
  /** Stops writing the member's row as its radios come and go. */
  let stopRadioWrites: (() => void) | undefined;
  /** Stops telling the radios of the AMF's overload. */
  let stopOverload: (() => void) | undefined;
  /** Abandons the network side's writes still waiting for the database. */
  let stopWriteRetries: (() => void) | undefined;

  return {
    name: 'n2',
    endpoint: () => endpoint,
    service: () => service,
    amf: () => functions?.amf,
    networkFunctions: () => functions,
    upf: () => upf,
    amfSet: () => membership,
    drain: () => drain,

    async start() {
      const choice = chooseN2Transport(settings.transport, options.host ?? HOST_SUPPORT);
      if (choice.use === 'none') {
        if (settings.transport === 'off') logger.info(choice.why);
        else logger.warn(choice.why);
        return;
      }
      // Before the first PDU is recorded: KgNB and NH never reach the records (network.md section 4).
      core.records.redactions.register('NGAP', redactNgapPdu);
      const timers = options.timers ?? systemTimers;
      // The AMF set first (docs/decisions.md, 15): a member whose AMF Pointer a live member holds does
      // not start, before any radio could hear of it.
      const joined = createAmfSetMembership({
        store: core.amfSet.store,
        identity: settings.amf,
        n2Addresses: settings.addresses,
        plmn: async () => (await core.ports.operatorConfiguration.getOperatorConfiguration()).plmn,
        radios: () => core.networkState.radios(),
        clock: options.clock ?? systemClock,
        timers,
        logger,
        timing: { ...DEFAULT_AMF_SET_TIMING, ...settings.amfSet },
      });
      joining = joined;
      try {
        await joined.start();
      } finally {
        joining = undefined;
      }
      // Stopped while it waited: nothing was taken, and nothing more starts.
      if (joined.status() === 'stopped') return;
      // Its radios are written to its row as they come and go, not only at the next heartbeat: every
      // member's API lists them at once (docs/amf-set.md, "One view of the network").
      const radioWrites = [
        core.networkEvents.on('radio.connected', () => joined.radiosChanged()),
        core.networkEvents.on('radio.disconnected', () => joined.radiosChanged()),
      ];
      stopRadioWrites = () => radioWrites.forEach((stop) => stop());
      let opened: Awaited<ReturnType<typeof openN2Transport>>;
      try {
        opened = await openN2Transport(choice, {
          addresses: settings.addresses,
          udpPort: settings.udpPort,
          ...(options.sctp === undefined ? {} : { sctp: options.sctp }),
        });
      } catch (error) {
        stopRadioWrites();
        await joined.stop();
        throw error;
      }
      // One limiter for N2 and the AMF's UE side: one summary line an interval covers both.
      const peerLog = createPeerLogLimiter({
        logger,
        timers,
        count: (kind) => ngapMetrics(core.metrics).peerProblem(kind),
      });
      // Writes no procedure waits for are tried again while the database is unavailable (bounded, counted).
      const retried = createNetworkWriteRetries({
        metrics: core.metrics,
        clock: options.clock ?? systemClock,
        timers,
        logger,
      });
      stopWriteRetries = () => retried.stop();
      const amfSettings: AmfSettings = {
        ...DEFAULT_AMF_SETTINGS,
        ...settings.amfTimers,
        ...settings.amfLimits,
        ...options.amf,
      };
      // A registered device is served while the database is unavailable (remembered-subscription-data.ts):
      // the data of the subscribers the AMF holds, as its UE table tells.
      const subscriptionData = rememberedSubscriptionData(core.ports.subscriptionData, amfSettings);
      // The network functions side by side (network-functions.ts), unless a test brings its own UE side.
      const built =
        options.ue === undefined
          ? createNetworkFunctions({
              amf: {
                identity: settings.amf,
                settings: amfSettings,
                metrics: ngapMetrics(core.metrics),
                peerLog,
                // In the database: the AMF set's members share it, and a restart keeps it (docs/amf-set.md).
                ueContexts: retried.ueContexts(core.ports.ueContexts),
                heldSubscribers: subscriptionData,
              },
              // Shared by the AMF set where it runs (PostgreSQL), under this member's AMF Name.
              addressLeases: retried.addressLeases(core.ports.addressLeases(settings.amf.name)),
              authenticationData: core.ports.authenticationData,
              subscriptionData,
              operatorConfiguration: core.ports.operatorConfiguration,
              configurationEvents: core.ports.configurationEvents,
              events: core.networkEvents,
              records: core.records.ingestion,
              timers,
              logger,
              // The SMF always: without a UPF (none configured, or it could not start) it refuses with #26.
              sessions:
                options.upf === undefined
                  ? { userPlane: undefined }
                  : {
                      upf: options.upf,
                      records: core.records.ingestion,
                      clock: options.clock ?? systemClock,
                    },
              sms: {
                store: retried.smsStore(core.ports.smsStore),
                subscribers: core.ports.smsSubscribers,
                clock: options.clock ?? systemClock,
                smsc: {
                  configuration: core.ports.smscLink.configuration,
                  outbox: core.ports.smscLink.outbox,
                  onPdu: core.ports.smscLink.onPdu,
                },
              },
            })
          : undefined;
      const ue = options.ue ?? built?.amf.signalling;
      const started = createN2Service({
        transport: opened.transport,
        listen: { addresses: settings.addresses, port: settings.port },
        identity: settings.amf,
        operatorConfiguration: core.ports.operatorConfiguration,
        configurationEvents: core.ports.configurationEvents,
        events: core.networkEvents,
        records: core.records.ingestion,
        metrics: ngapMetrics(core.metrics),
        logger,
        timers,
        peerLog,
        ...(settings.allowedPeers === undefined ? {} : { allowedPeers: settings.allowedPeers }),
        ...(settings.furtherEndpoints === undefined ? {} : { furtherEndpoints: settings.furtherEndpoints }),
        ...(ue === undefined ? {} : { ue }),
        amfSet: joined,
        ...(options.timing === undefined ? {} : { timing: options.timing }),
      });
      try {
        await started.start();
      } catch (error) {
        await built?.stop();
        await opened.transport.close();
        await joined.stop();
        const where = settings.addresses.map((address) => `${address}:${settings.port}`).join(', ');
        throw new Error(`N2 cannot listen on ${where} (${opened.kind}): ${(error as Error).message}`, {
          cause: error,
        });
      }
      service = started;
      functions = built;
      // The AMF sheds load at its UE context limit: the radios hear Overload Start / Stop (docs/n2.md).
      stopOverload = built?.amf.overload.subscribe((on) => void started.overload(on));
      membership = joined;
      drain =
        built === undefined
          ? undefined
          : createMemberDrain({
              membership: joined,
              identity: settings.amf,
              plmn: async () => (await core.ports.operatorConfiguration.getOperatorConfiguration()).plmn,
              radios: started,
              ues: { drain: () => built.amf.drain(), written: () => built.amf.ueContextsWritten() },
              timers,
              logger,
              timeoutMs: settings.amfDrainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
            });
      const onDrained = options.onDrained;
      if (drain !== undefined && onDrained !== undefined) void drain.done.then(onDrained);
      core.amfSet.running(settings.amf.name);
      core.amfSet.drainable(drain);
      // Location (network.md section 8) asks the AMF for fresh cells and the LMF's measurements.
      if (built !== undefined) core.location.locationServices.provide(built.locationServices);
      // A message the operator queued through the API goes now if its recipient is reachable (docs/sms.md).
      const smsf = built?.smsf;
      stopSmsQueued = smsf === undefined ? undefined : core.ports.smsQueued((imsi) => smsf.ueReachable(imsi));
      // The SMSC link binds when its configuration says so (docs/sms.md, "SMSC link").
      await built?.start();
      core.ports.smscLink.running(built?.smsc);
      upf = built?.upf;
      // The backup AMF of a dead member's GUAMI adopts its UEs (docs/amf-set.md, "A dead member's idle devices").
      const amf = built?.amf;
      stopAdopting =
        amf === undefined
          ? undefined
          : watchDeadMembers({
              membership: joined,
              self: settings.amf.name,
              adopt: (owner) => amf.adopt(owner),
              logger,
            }).stop;
      // Cut off from the database, this member stops serving rather than diverge (docs/amf-set.md).
      stopCutWatch =
        amf === undefined
          ? undefined
          : watchDatabaseCut({
              membership: joined,
              identity: settings.amf,
              radios: started,
              ues: {
                suspend: () => {
                  retried.abandonUeContextWrites();
                  return amf.suspend();
                },
                resume: () => amf.resume(),
              },
              counted: () => core.amfSet.cutOff(),
              logger,
            });
      // A live member frees the leases of gone members that no UE context names (docs/amf-set.md).
      const stranded = core.ports.strandedLeases;
      reclamation =
        stranded === undefined
          ? undefined
          : startLeaseReclamation({
              leases: stranded,
              ueContexts: core.ports.ueContexts,
              self: settings.amf.name,
              clock: options.clock ?? systemClock,
              timers,
              logger,
            });
      endpoint = {
        transport: opened.kind,
        local: started.local(),
        ...(opened.udpPort === undefined ? {} : { udpPort: opened.udpPort }),
      };
      const where = endpoint.local.map((a) => `${a.address}:${a.port}`).join(', ');
      logger.info(
        { transport: opened.kind, local: endpoint.local, udpPort: endpoint.udpPort },
        `N2 (NGAP) listening on ${where} over ${opened.kind}: ${choice.why}` +
          (endpoint.udpPort === undefined ? '' : `, UDP port ${endpoint.udpPort}`),
      );
    },

    /**
     * The user plane's records first: the UPF ends every session (their last flow reports and usage) and
     * the records are written, so that nothing the network does after (radios that do not answer the
     * SHUTDOWN, see LISTENER_SHUTDOWN_TIMEOUT_MS) can keep them from the database. Then the radios are
     * shut down, those still there after the bound aborted, and the transport closed.
     */
    async stop() {
      await joining?.stop();
      const running = service;
      service = undefined;
      stopAdopting?.();
      stopAdopting = undefined;
      stopCutWatch?.();
      stopCutWatch = undefined;
      stopOverload?.();
      stopOverload = undefined;
      await reclamation?.stop();
      reclamation = undefined;
      endpoint = undefined;
      await upf?.stop();
      upf = undefined;
      await core.records.ingestion.flush();
      await running?.stop();
      if (functions !== undefined) core.location.locationServices.provide(undefined);
      stopSmsQueued?.();
      stopSmsQueued = undefined;
      core.ports.smscLink.running(undefined);
      await functions?.stop();
      functions = undefined;
      stopWriteRetries?.();
      stopWriteRetries = undefined;
      core.amfSet.drainable(undefined);
      drain?.stop();
      drain = undefined;
      stopRadioWrites?.();
      stopRadioWrites = undefined;
      // Left last: the set hears this member is gone once its radios have been shut down.
      core.amfSet.running(undefined);
      await membership?.stop();
      membership = undefined;
    },
  };
}
