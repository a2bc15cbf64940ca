import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { createNetworkEvents } from '../network/events/network-events.ts';
import { installNetworkEventMetrics, installNetworkMetrics } from '../network/network-metrics.ts';
import { createNetworkState } from '../network/network-state.ts';
import type { ConfigurationEvents } from '../network/ports/configuration-events.ts';
import { createRadiosService } from '../resources/radios/radios.service.ts';
import type { CoreWiring } from './wiring.ts';

/**
 * The network's events (the network functions emit them) and the live picture of the network built from
 * them: the API's read model, written only from those events. A subscriber deleted from the
 * configuration leaves it at once.
 */
export function wireNetworkState(
  core: CoreWiring,
  deps: { clock: Clock; logger: Logger; configuration: ConfigurationEvents },
) {
  const events = createNetworkEvents({ logger: deps.logger });
  const state = createNetworkState({ clock: deps.clock, events });
  installNetworkMetrics(core.metrics, state);
  installNetworkEventMetrics(core.metrics, events);
  deps.configuration.subscribe(({ resource, change, name }) => {
    if (resource === 'subscriber' && change === 'deleted') state.subscriberRemoved(name);
  });
  return { events, state, radios: createRadiosService({ state }) };
}
