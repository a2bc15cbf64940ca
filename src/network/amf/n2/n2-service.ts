import type { Logger } from 'pino';
import type { Timers } from '../../../clock.ts';
import type { RecordsIngestion } from '../../../records/ingestion.ts';
import type { NgapMetrics } from '../../network-metrics.ts';
import type { NetworkEventEmitter } from '../../events/network-events.ts';
import { createPeerLogLimiter, type PeerLogLimiter } from '../../peer-log-limiter.ts';
import type { Cause, UnavailableGUAMIList } from '../../ngap/generated/types.ts';
import type { ConfigurationEvents } from '../../ports/configuration-events.ts';
import type { OperatorConfigurationPort } from '../../ports/operator-configuration.ts';
import type {
  AcceptAssociation,
  N2Listener,
  N2Transport,
  TransportAddress,
} from '../../transport/n2-transport.ts';
import type { AmfIdentity } from '../context/amf-identity.ts';
import type { AmfSetMembership } from '../set/amf-set-membership.ts';
import { servedGuamiList } from '../set/served-guamis.ts';
import { peerAllowlist, type PeerAllowlist } from './n2-peer-allowlist.ts';
import { NgapAssociation, type AssociationContext, type AssociationTiming } from './ngap-association.ts';
import { createNgapRecorder } from './ngap-recorder.ts';
import { sameServedNetwork, servedNetworkOf, type ServedNetwork } from '../context/served-network.ts';
import type { UeSignalling } from './ue-signalling.ts';
import { endpointKey, type OfferedEndpoint } from './tnl-associations.ts';

const DEFAULT_ASSOCIATION_TIMING: AssociationTiming = {
  ngSetupTimeoutMs: 30_000,
  responseTimeoutMs: 10_000,
  // Three heartbeat intervals (RFC 9260 8.3, 30 s): a live peer is heard at least once per interval.
  replaceSilentAfterMs: 90_000,
};

export interface N2ServiceOptions {
  transport: N2Transport;
  /** Local addresses and SCTP port (38412 by default in the settings; 0 for a free one). */
  listen: { addresses: readonly string[]; port: number };
  /**
   * Further endpoints the AMF listens on and offers each radio after NG Setup for more TNL associations
   * (`n2_further_endpoints`, docs/n2.md); port 0 for a free one (tests). None when absent.
   */
  furtherEndpoints?: readonly OfferedEndpoint[];
  identity: AmfIdentity;
  operatorConfiguration: OperatorConfigurationPort;
  configurationEvents: ConfigurationEvents;
  /** Where the radios' life is reported (network state and the metrics subscribe). */
  events: NetworkEventEmitter;
  records: Pick<RecordsIngestion, 'recordRadioEvent' | 'recordRadioLog'>;
  metrics: NgapMetrics;
  logger: Logger;
  timers: Timers;
  ue?: UeSignalling;
  timing?: Partial<AssociationTiming>;
  /** The process configuration's N2 allowlist (`n2_allowed_peers`, validated); empty or absent: no limit. */
  allowedPeers?: readonly string[];
  /** Shared with the AMF's UE side so that one summary covers both; one of its own otherwise. */
  peerLog?: PeerLogLimiter;
  /**
   * The AMF set this AMF is a member of (its live members, and the gone ones whose GUAMIs the set still
   * serves); without it, it announces its own GUAMI only.
   */
  amfSet?: Pick<AmfSetMembership, 'members' | 'gone' | 'subscribe'>;
}

/** The end an association the allowlist refuses gets: nothing it sends is read. */
const IGNORED: { message(): void; event(): void } = { message: () => undefined, event: () => undefined };

/**
 * The AMF's N2 side: listens on the transport, runs one `NgapAssociation` per radio, keeps the
 * operator's PLMN, TACs and slices at hand and tells connected radios when they or the served GUAMIs
 * of its AMF set change (AMF Configuration Update, network.md section 2, TS 23.501 5.21.2).
 */
export function createN2Service(options: N2ServiceOptions) {
  const { transport, logger } = options;
  const associations = new Set<NgapAssociation>();
  let network: ServedNetwork | undefined;
  let listener: N2Listener | undefined;
  /** The further endpoints' listeners and the endpoints as bound (the port a 0 got). */
  let further: { listener: N2Listener; endpoint: OfferedEndpoint }[] = [];
  /** Listeners of endpoints no longer offered, closed once the radios had time to remove their associations. */
  const retiring = new Set<{ listener: N2Listener; cancel: () => void }>();
  let changingEndpoints: Promise<unknown> = Promise.resolve();
  let unsubscribe: (() => void) | undefined;
  let unsubscribeSet: (() => void) | undefined;
  /** The served GUAMIs last announced, as JSON: a change of the set that leaves them alike is not sent. */
  let announced = '';
  let refreshing: Promise<void> = Promise.resolve();
  /** The AMF sheds load: its radios were told by Overload Start (`overload`). */
  let overloaded = false;
  const configured = peerAllowlist(options.allowedPeers ?? []);
  /** The allowlist set through the API (operator configuration), read with the served network. */
  let stored: PeerAllowlist = peerAllowlist([]);
  let storedEntries: readonly string[] = [];
  const peerLog =
    options.peerLog ??
    createPeerLogLimiter({
      logger,
      timers: options.timers,
      count: (kind) => options.metrics.peerProblem(kind),
    });

  const context: AssociationContext = {
    identity: options.identity,
    network: () => {
      if (network === undefined) throw new Error('N2 service used before start');
      return network;
    },
    servedGuamis: () =>
      servedGuamiList(
        options.identity,
        options.amfSet?.members() ?? [],
        context.network().plmn,
        options.amfSet?.gone() ?? [],
      ),
    events: options.events,
    recorder: createNgapRecorder({ records: options.records, metrics: options.metrics, logger }),
    timers: options.timers,
    logger,
    peerLog,
    owners: new Map(),
    ue: options.ue,
    timing: { ...DEFAULT_ASSOCIATION_TIMING, ...options.timing },
    overloaded: () => overloaded,
    offers: () => further.map(({ endpoint }) => endpoint),
  };

  async function load(): Promise<{ network: ServedNetwork; allowedPeers: string[] }> {
    const configuration = await options.operatorConfiguration.getOperatorConfiguration();
    return { network: servedNetworkOf(configuration), allowedPeers: configuration.n2AllowedPeers };
  }

  /** Admitted when each non-empty allowlist (the configuration's, the API's) holds every peer address. */
  const admitted = (addresses: readonly string[]): boolean =>
    configured.admits(addresses) && stored.admits(addresses);

  function useAllowlist(entries: string[]): void {
    try {
      stored = peerAllowlist(entries);
    } catch (error) {
      // Written only through the API's validation; a list that does not read admits nobody (fail closed).
      logger.error({ err: error }, 'N2: the stored allowlist is invalid; no peer is admitted');
      stored = { empty: false, admits: () => false };
    }
    storedEntries = entries;
  }

  /**
   * Reads the configuration again: when the PLMN, TACs or slices changed, every radio hears of it; when
   * the allowlist changed, the associations of peers it no longer admits end (their radios leave).
   */
  function refresh(): Promise<void> {
    refreshing = refreshing
      .then(async () => {
        const next = await load();
        if (!sameEntries(storedEntries, next.allowedPeers)) {
          useAllowlist(next.allowedPeers);
          for (const association of [...associations]) {
            if (!admitted(association.peerAddresses))
              association.refused('peer no longer admitted by the N2 allowlist');
          }
        }
        if (network !== undefined && sameServedNetwork(network, next.network)) return;
        network = next.network;
        announced = JSON.stringify(context.servedGuamis());
        for (const association of associations) association.configurationChanged();
      })
      .catch((error: unknown) =>
        logger.error({ err: error }, 'N2: reading the operator configuration failed'),
      );
    return refreshing;
  }

  /** Each association reaching `endpoint` (undefined: the first endpoint) gets its handler. */
  const acceptFrom =
    (endpoint?: OfferedEndpoint): AcceptAssociation =>
    (association, up) => {
      const peer = up.peerAddresses.length > 0 ? up.peerAddresses : [association.remote];
      if (!admitted(peer.map((a) => a.address))) {
        // Refused before any NGAP is read: nothing the peer sends is decoded or recorded.
        association.abort('peer not admitted by the N2 allowlist');
        peerLog.warn(
          'peer_not_allowed',
          peer[0]?.address ?? '',
          { addresses: peer.map((a) => a.address) },
          'N2 association from a peer the allowlist does not admit aborted',
        );
        return IGNORED;
      }
      const handler = new NgapAssociation(association, up, context, endpoint);
      associations.add(handler);
      return {
        message: (message) => handler.message(message),
        event: (event) => {
          handler.event(event);
          if (event.type === 'communication-lost' || event.type === 'shutdown-complete')
            associations.delete(handler);
        },
      };
    };

  return {
    async start(): Promise<void> {
      const loaded = await load();
      network = loaded.network;
      useAllowlist(loaded.allowedPeers);
      unsubscribe = options.configurationEvents.subscribe(({ resource }) => {
        if (resource === 'operator' || resource === 'slice') void refresh();
      });
      announced = JSON.stringify(context.servedGuamis());
      unsubscribeSet = options.amfSet?.subscribe(() => {
        const next = JSON.stringify(context.servedGuamis());
        if (next === announced) return;
        announced = next;
        for (const association of associations) association.configurationChanged();
      });
      try {
        listener = await transport.listen(
          { addresses: options.listen.addresses, port: options.listen.port },
          acceptFrom(),
        );
        for (const wanted of options.furtherEndpoints ?? []) {
          const bound: OfferedEndpoint = { ...wanted };
          const opened = await transport.listen(
            { addresses: [wanted.address], port: wanted.port },
            acceptFrom(bound),
          );
          bound.port = opened.local[0]?.port ?? wanted.port;
          further.push({ listener: opened, endpoint: bound });
        }
      } catch (error) {
        await Promise.all(further.map((f) => f.listener.close()));
        further = [];
        await listener?.close();
        listener = undefined;
        unsubscribe();
        unsubscribe = undefined;
        unsubscribeSet?.();
        unsubscribeSet = undefined;
        throw error;
      }
    },

    /** Shuts every association down gracefully (the radios disappear), then releases the transport. */
    async stop(): Promise<void> {
      unsubscribe?.();
      unsubscribe = undefined;
      unsubscribeSet?.();
      unsubscribeSet = undefined;
      await changingEndpoints;
      for (const retired of retiring) retired.cancel();
      await Promise.all([...further, ...retiring].map((f) => f.listener.close()));
      retiring.clear();
      further = [];
      await listener?.close();
      listener = undefined;
      await transport.close();
      await refreshing;
    },

    /** The bound addresses and SCTP port; empty before start. */
    local(): readonly TransportAddress[] {
      return listener?.local ?? [];
    },

    /**
     * The further endpoints change (`n2_further_endpoints`, docs/n2.md): an endpoint is the same when its
     * address and port are (as bound; port 0 opens a new one). Added ones are listened on before any radio
     * hears of them; every connected radio gets AMF Configuration Update with the AMF TNL Association To
     * Add, To Remove and To Update Lists (TS 38.413 8.7.3.2); a removed endpoint's listener is closed
     * once the radios had the time to answer (the response timeout), which shuts down an association a
     * radio kept on it. The endpoints as bound; a listen that fails changes nothing and throws.
     */
    changeFurtherEndpoints(next: readonly OfferedEndpoint[]): Promise<readonly OfferedEndpoint[]> {
      const change = changingEndpoints.then(async () => {
        if (listener === undefined) throw new Error('N2 service not started');
        const bound = new Map(further.map((f) => [endpointKey(f.endpoint), f]));
        const wanted = new Set(next.filter((e) => e.port !== 0).map(endpointKey));
        const opened: { listener: N2Listener; endpoint: OfferedEndpoint }[] = [];
        const kept: { listener: N2Listener; endpoint: OfferedEndpoint }[] = [];
        try {
          for (const endpoint of next) {
            const same = endpoint.port === 0 ? undefined : bound.get(endpointKey(endpoint));
            if (same !== undefined) {
              kept.push({ listener: same.listener, endpoint: { ...same.endpoint, ...endpoint } });
              continue;
            }
            const fresh: OfferedEndpoint = { ...endpoint };
            const listening = await transport.listen(
              { addresses: [endpoint.address], port: endpoint.port },
              acceptFrom(fresh),
            );
            fresh.port = listening.local[0]?.port ?? endpoint.port;
            const entry = { listener: listening, endpoint: fresh };
            opened.push(entry);
            kept.push(entry);
          }
        } catch (error) {
          await Promise.all(opened.map((f) => f.listener.close()));
          throw error;
        }
        const gone = further.filter((f) => !wanted.has(endpointKey(f.endpoint)));
        further = kept;
        for (const association of associations) association.furtherEndpointsChanged();
        for (const { listener: old } of gone) {
          const retired = {
            listener: old,
            cancel: options.timers.after(context.timing.responseTimeoutMs, () => {
              retiring.delete(retired);
              void old.close();
            }),
          };
          retiring.add(retired);
        }
        return further.map((f) => f.endpoint);
      });
      changingEndpoints = change.catch(() => undefined);
      return change;
    },

    /** Resolves once a configuration change in flight has reached the radios (tests, shutdown). */
    settled: (): Promise<void> => refreshing,

    /**
     * AMF Status Indication (TS 38.413 8.7.6) to every radio that completed NG Setup; the number it
     * went to.
     */
    statusIndication(unavailable: UnavailableGUAMIList): number {
      let sent = 0;
      for (const association of associations) if (association.statusIndication(unavailable)) sent++;
      return sent;
    },

    /**
     * The AMF became overloaded, or no longer is (gmm/overload.ts): Overload Start or Overload Stop
     * (TS 38.413 8.7.7, 8.7.8) to every radio that completed NG Setup, and to each one that completes it
     * while overloaded; the number it went to. A repeated state sends nothing.
     */
    overload(on: boolean): number {
      if (on === overloaded) return 0;
      overloaded = on;
      options.metrics.overloaded(on);
      let sent = 0;
      for (const association of associations) if (association.overloadChanged(on)) sent++;
      return sent;
    },

    /**
     * AMF-initiated NG Reset of a connected radio (TS 38.413 8.7.4.2.1); false when no radio with that
     * id is connected.
     */
    reset(radioId: string, cause: Cause = { choice: 'misc', value: 'unspecified' }): boolean {
      return context.owners.get(radioId)?.reset(cause) ?? false;
    },
  };
}

function sameEntries(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry === b[i]);
}

export type N2Service = ReturnType<typeof createN2Service>;
