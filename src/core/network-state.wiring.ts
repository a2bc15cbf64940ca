import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { createNetworkEvents } from '../network/events/network-events.ts';
import { installNetworkEventMetrics, installNetworkMetrics } from '../network/network-metrics.ts';
import { createNetworkState } from '../network/network-state.ts';
import type { ConfigurationEvents } from '../network/ports/configuration-events.ts';
import { createRadiosService, type PeerRadios } from '../resources/radios/radios.service.ts';
import type { CoreWiring } from './wiring.ts';

/**
 * The network's events (the network functions emit them) and the live picture of the network built from
 * them: the API's read model, written only from those events. A subscriber deleted from the
 * configuration leaves it at once.
 */
export function wireNetworkState(
  core: CoreWiring,
  deps: {
    clock: Clock;
    logger: Logger;
    configuration: ConfigurationEvents;
    /** The AMF set this process is a member of: the API lists the radios of its other members too. */
    amfSet: { self(): string | undefined; peerRadios(): Promise<PeerRadios[]> };
  },
) {
  const events = createNetworkEvents({ logger: deps.logger });
  const state = createNetworkState({ clock: deps.clock, events });
  installNetworkMetrics(core.metrics, state);
  installNetworkEventMetrics(core.metrics, events);
  deps.configuration.subscribe(({ resource, change, name }) => {
    if (resource === 'subscriber' && change === 'deleted') state.subscriberRemoved(name);
  });
  const { amfSet } = deps;
  const set = { self: () => amfSet.self(), peers: () => amfSet.peerRadios() };
  return { events, state, radios: createRadiosService({ state, set }) };
}
