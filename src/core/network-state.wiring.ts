import type { Clock } from '../clock.ts';
import { installNetworkMetrics } from '../network/network-metrics.ts';
import { createNetworkState } from '../network/network-state.ts';
import type { ConfigurationEvents } from '../network/ports/configuration-events.ts';
import { createRadiosService } from '../resources/radios/radios.service.ts';
import type { CoreWiring } from './wiring.ts';

/**
 * The live picture of the network: the API's read model, written by the network functions only. A
 * subscriber deleted from the configuration leaves it at once.
 */
export function wireNetworkState(
  core: CoreWiring,
  deps: { clock: Clock; configuration: ConfigurationEvents },
) {
  const state = createNetworkState({ clock: deps.clock });
  installNetworkMetrics(core.metrics, state);
  deps.configuration.subscribe(({ resource, change, name }) => {
    if (resource === 'subscriber' && change === 'deleted') state.subscriberRemoved(name);
  });
  return { state, radios: createRadiosService({ state }) };
}
