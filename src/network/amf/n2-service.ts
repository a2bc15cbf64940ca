import type { Logger } from 'pino';
import type { Timers } from '../../clock.ts';
import type { RecordsIngestion } from '../../records/ingestion.ts';
import type { NgapMetrics } from '../network-metrics.ts';
import type { NetworkState } from '../network-state.ts';
import type { Cause } from '../ngap/generated/types.ts';
import type { ConfigurationEvents } from '../ports/configuration-events.ts';
import type { OperatorConfigurationPort } from '../ports/operator-configuration.ts';
import type { N2Listener, N2Transport, TransportAddress } from '../transport/n2-transport.ts';
import type { AmfIdentity } from './amf-identity.ts';
import { NgapAssociation, type AssociationContext, type AssociationTiming } from './ngap-association.ts';
import { createNgapRecorder } from './ngap-recorder.ts';
import { sameServedNetwork, servedNetworkOf, type ServedNetwork } from './served-network.ts';
import type { UeSignalling } from './ue-signalling.ts';

export const DEFAULT_ASSOCIATION_TIMING: AssociationTiming = {
  ngSetupTimeoutMs: 30_000,
  responseTimeoutMs: 10_000,
};

export interface N2ServiceOptions {
  transport: N2Transport;
  /** Local addresses and SCTP port (38412 by default in the settings; 0 for a free one). */
  listen: { addresses: readonly string[]; port: number };
  identity: AmfIdentity;
  operatorConfiguration: OperatorConfigurationPort;
  configurationEvents: ConfigurationEvents;
  state: Pick<NetworkState, 'radioConnected' | 'radioUpdated' | 'radioDisconnected'>;
  records: Pick<RecordsIngestion, 'recordRadioEvent' | 'recordRadioLog'>;
  metrics: NgapMetrics;
  logger: Logger;
  timers: Timers;
  ue?: UeSignalling;
  timing?: Partial<AssociationTiming>;
}

/**
 * The AMF's N2 side: listens on the transport, runs one `NgapAssociation` per radio, keeps the
 * operator's PLMN, TACs and slices at hand and tells connected radios when they change (AMF
 * Configuration Update, network.md section 2).
 */
export function createN2Service(options: N2ServiceOptions) {
  const { transport, logger } = options;
  const associations = new Set<NgapAssociation>();
  let network: ServedNetwork | undefined;
  let listener: N2Listener | undefined;
  let unsubscribe: (() => void) | undefined;
  let refreshing: Promise<void> = Promise.resolve();

  const context: AssociationContext = {
    identity: options.identity,
    network: () => {
      if (network === undefined) throw new Error('N2 service used before start');
      return network;
    },
    state: options.state,
    recorder: createNgapRecorder({ records: options.records, metrics: options.metrics, logger }),
    timers: options.timers,
    logger,
    owners: new Map(),
    ue: options.ue,
    timing: { ...DEFAULT_ASSOCIATION_TIMING, ...options.timing },
  };

  async function load(): Promise<ServedNetwork> {
    return servedNetworkOf(await options.operatorConfiguration.getOperatorConfiguration());
  }

  /** Reads the configuration again; when the PLMN, TACs or slices changed, every radio hears of it. */
  function refresh(): Promise<void> {
    refreshing = refreshing
      .then(async () => {
        const next = await load();
        if (network !== undefined && sameServedNetwork(network, next)) return;
        network = next;
        for (const association of associations) association.configurationChanged();
      })
      .catch((error: unknown) =>
        logger.error({ err: error }, 'N2: reading the operator configuration failed'),
      );
    return refreshing;
  }

  return {
    async start(): Promise<void> {
      network = await load();
      unsubscribe = options.configurationEvents.subscribe(({ resource }) => {
        if (resource === 'operator' || resource === 'slice') void refresh();
      });
      try {
        listener = await transport.listen(
          { addresses: options.listen.addresses, port: options.listen.port },
          (association, up) => {
            const handler = new NgapAssociation(association, up, context);
            associations.add(handler);
            return {
              message: (message) => handler.message(message),
              event: (event) => {
                handler.event(event);
                if (event.type === 'communication-lost' || event.type === 'shutdown-complete')
                  associations.delete(handler);
              },
            };
          },
        );
      } catch (error) {
        unsubscribe();
        unsubscribe = undefined;
        throw error;
      }
    },

    /** Shuts every association down gracefully (the radios disappear), then releases the transport. */
    async stop(): Promise<void> {
      unsubscribe?.();
      unsubscribe = undefined;
      await listener?.close();
      listener = undefined;
      await transport.close();
      await refreshing;
    },

    /** The bound addresses and SCTP port; empty before start. */
    local(): readonly TransportAddress[] {
      return listener?.local ?? [];
    },

    /** Resolves once a configuration change in flight has reached the radios (tests, shutdown). */
    settled: (): Promise<void> => refreshing,

    /**
     * AMF-initiated NG Reset of a connected radio (TS 38.413 8.7.4.2.1); false when no radio with that
     * id is connected.
     */
    reset(radioId: string, cause: Cause = { choice: 'misc', value: 'unspecified' }): boolean {
      return context.owners.get(radioId)?.reset(cause) ?? false;
    },
  };
}

export type N2Service = ReturnType<typeof createN2Service>;
