import type { Metrics } from '../metrics/metrics.ts';
import type { NetworkState } from './network-state.ts';

/** Gauges over the live network picture, read at each scrape; no subscriber identity becomes a label. */
export function installNetworkMetrics(metrics: Metrics, state: NetworkState): void {
  metrics.gauge({
    name: 'pmn_radios_connected',
    help: 'Radios (RAN nodes) connected now',
    collect: () => state.radioCount(),
  });
  metrics.gauge({
    name: 'pmn_subscribers_registered',
    help: 'Subscribers registered now',
    collect: () => state.totals().registeredSubscribers,
  });
  metrics.gauge({
    name: 'pmn_sessions_active',
    help: 'PDU sessions established now',
    collect: () => state.totals().activeSessions,
  });
}
