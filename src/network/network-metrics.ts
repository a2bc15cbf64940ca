import type { Metrics } from '../metrics/metrics.ts';
import type { NetworkState } from './network-state.ts';
import type { PeerProblemKind } from './peer-log-limiter.ts';

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

/**
 * What the N2 side counts as it works: every NGAP PDU by message type and direction, what it drops, and
 * the AMF's refusals for want of room.
 */
export interface NgapMetrics {
  message(messageType: string, direction: 'inbound' | 'outbound'): void;
  /** A radio event or radio log the records queue could not take (back-pressure), by record kind. */
  recordDropped(kind: 'radio_event' | 'radio_log'): void;
  /** A Registration Request rejected with #22 (congestion): the AMF held its limit of UE contexts. */
  ueContextLimitReject(): void;
  /** Something an N2 peer sent or did that the AMF refused or ignored (peer-log-limiter.ts), by kind. */
  peerProblem(kind: PeerProblemKind): void;
}

/**
 * NGAP counters, registered once per core (the N2 service may start and stop more than once).
 * Message types are the ASN.1 names (about 120, plus `Unknown`), so the label set stays bounded.
 */
export function createNgapMetrics(metrics: Metrics): NgapMetrics {
  const messages = metrics.counter<'message_type' | 'direction'>({
    name: 'pmn_ngap_messages_total',
    help: 'NGAP PDUs received (inbound) and sent (outbound), by message type',
    labelNames: ['message_type', 'direction'],
  });
  const dropped = metrics.counter<'kind'>({
    name: 'pmn_ngap_records_dropped_total',
    help: 'Radio events and radio logs dropped because the records queue was full',
    labelNames: ['kind'],
  });
  const ueContextLimitRejects = metrics.counter({
    name: 'pmn_ue_context_limit_rejects_total',
    help: 'Registration Requests rejected with 5GMM cause #22 (congestion): the AMF held its limit of UE contexts',
  });
  const peerProblems = metrics.counter<'kind'>({
    name: 'pmn_n2_peer_problems_total',
    help: 'What N2 peers sent or did that the AMF refused or ignored, by kind (logged once per peer and kind a minute)',
    labelNames: ['kind'],
  });
  return {
    message: (messageType, direction) => messages.inc({ message_type: messageType, direction }),
    recordDropped: (kind) => dropped.inc({ kind }),
    ueContextLimitReject: () => ueContextLimitRejects.inc({}),
    peerProblem: (kind) => peerProblems.inc({ kind }),
  };
}
