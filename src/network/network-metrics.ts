import type { Metrics } from '../metrics/metrics.ts';
import type { NetworkEvents } from './events/network-events.ts';
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
 * Counters of what happens, each a listener on the network's events (one increment, no allocation):
 * registrations, deregistrations, PDU sessions established and released, radios connected, and the
 * NAS rejects, failures and status messages by message and cause.
 */
export function installNetworkEventMetrics(metrics: Metrics, events: Pick<NetworkEvents, 'on'>): void {
  const count = (name: string, help: string) => {
    const counter = metrics.counter({ name, help });
    const labels = {};
    return (): void => counter.inc(labels);
  };
  events.on(
    'ue.registered',
    count('pmn_registrations_total', 'Registrations completed (Registration Complete)'),
  );
  events.on(
    'ue.deregistered',
    count('pmn_deregistrations_total', 'Registered devices deregistered, however'),
  );
  events.on('session.established', count('pmn_pdu_sessions_established_total', 'PDU sessions established'));
  events.on('session.released', count('pmn_pdu_sessions_released_total', 'PDU sessions released'));
  events.on('radio.connected', count('pmn_radio_connections_total', 'Radios that completed NG Setup'));
  // Labelled by RAT type (five values) and direction: no subscriber identity.
  const secondaryRat = metrics.counter<'rat_type' | 'direction'>({
    name: 'pmn_secondary_rat_octets_total',
    help: 'Octets radios reported carried over a secondary RAT (Secondary RAT Data Usage Report, TS 38.413 8.16.1), by RAT type and direction',
    labelNames: ['rat_type', 'direction'],
  });
  events.on('session.secondaryRatUsage', (usage) => {
    secondaryRat.inc({ rat_type: usage.ratType, direction: 'uplink' }, usage.uplinkOctets);
    secondaryRat.inc({ rat_type: usage.ratType, direction: 'downlink' }, usage.downlinkOctets);
  });
  // Labelled by message name and TS 24.501 cause: both bounded sets; no subscriber identity.
  const warnings = metrics.counter<'message' | 'cause'>({
    name: 'pmn_nas_warnings_total',
    help: '5GMM and 5GSM rejects, failures and status messages to or from devices, by message and cause (TS 24.501)',
    labelNames: ['message', 'cause'],
  });
  events.on('nas.message', (message) => {
    if (message.level !== 'warn') return;
    const cause = message.details.cause;
    warnings.inc({ message: message.event, cause: typeof cause === 'string' ? cause : '' });
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
  /** The AMF told its radios it is overloaded (Overload Start), or no longer is (Overload Stop). */
  overloaded(on: boolean): void;
  /** A write to the UE context store that failed or was fenced (amf/ue-context-writes.ts). */
  ueContextWriteFailure(reason: 'error' | 'fenced'): void;
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
  let overloaded = 0;
  metrics.gauge({
    name: 'pmn_amf_overloaded',
    help: 'Whether the AMF has told its radios it is overloaded (Overload Start sent at the UE context limit, 1) or not (0)',
    collect: () => overloaded,
  });
  const ueContextWriteFailures = metrics.counter<'reason'>({
    name: 'pmn_ue_context_write_failures_total',
    help: 'UE context records the AMF could not store: the store failed (error) or a newer owner held the UE (fenced)',
    labelNames: ['reason'],
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
    overloaded: (on) => void (overloaded = on ? 1 : 0),
    ueContextWriteFailure: (reason) => ueContextWriteFailures.inc({ reason }),
    peerProblem: (kind) => peerProblems.inc({ kind }),
  };
}
