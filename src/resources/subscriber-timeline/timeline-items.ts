import type { FlowReport } from '../flow-reports/flow-reports.repository.ts';
import type { RadioEvent } from '../radio-events/radio-events.repository.ts';
import type { SubscriberLog } from '../subscriber-logs/subscriber-logs.repository.ts';
import type { SubscriberEvent } from './subscriber-events.repository.ts';

/** The lane an item belongs to (docs/api.md, "One subscriber's timeline"). */
export type TimelineKind = 'nas' | 'ngap' | 'state' | 'session' | 'upf';

export const TIMELINE_KINDS: readonly TimelineKind[] = ['nas', 'ngap', 'state', 'session', 'upf'];

/** The record an item shows, so a client knows which route opens `record_id`. */
type TimelineSource = 'subscriber_log' | 'radio_event' | 'subscriber_event' | 'flow_report';

/** One step of a device's story: a message, a state change, a session event or a flow report. */
export interface TimelineItem {
  timestamp: number;
  kind: TimelineKind;
  /** A message's direction; `null` for state changes, session events and flow reports. */
  direction: 'inbound' | 'outbound' | null;
  message: string;
  level: string;
  radio: string | null;
  summary: string;
  source: TimelineSource;
  recordId: number;
  /** The radio event that carried the NAS message, or the subscriber log an NGAP message carried. */
  linkedRecordId: number | null;
  explanation: string | null;
  /** What a state change, session or flow report holds; `null` for messages (their record has it). */
  details: Record<string, unknown> | null;
}

export function parseDetails(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Rejects of 5GMM procedures a device sees as "could not attach" (TS 24.501 8.2): the `ue.rejected` kind. */
export const UE_REJECTS: ReadonlySet<string> = new Set([
  'Registration Reject',
  'Service Reject',
  'Authentication Reject',
]);

const STATE_NAMES: Readonly<Record<string, string>> = {
  registered: 'Registered',
  deregistered: 'Deregistered',
  'session.established': 'PDU session established',
  'session.modified': 'PDU session modified',
  'session.released': 'PDU session released',
};

/** A session's summary: its id, data network, slice, addresses, state and AMBR, as far as known. */
function sessionSummary(name: string, details: Record<string, unknown>): string {
  const parts = [name];
  if (typeof details.pdu_session_id === 'number') parts.push(`PDU session ${details.pdu_session_id}`);
  const dnn = textOf(details.data_network);
  if (dnn) parts.push(`DNN ${dnn}`);
  const slice = details.slice as { sst?: unknown; sd?: unknown } | undefined;
  if (typeof slice?.sst === 'number')
    parts.push(
      `S-NSSAI ${slice.sst}${typeof slice.sd === 'string' && slice.sd !== '' ? `/${slice.sd}` : ''}`,
    );
  const ipv4 = textOf(details.ipv4_address);
  const ipv6 = textOf(details.ipv6_prefix);
  if (ipv4) parts.push(`IPv4 ${ipv4}`);
  if (ipv6) parts.push(`IPv6 ${ipv6}`);
  const status = textOf(details.status);
  if (status) parts.push(`user plane ${status}`);
  const up = textOf(details.ambr_uplink);
  const down = textOf(details.ambr_downlink);
  if (up && down) parts.push(`AMBR ${up} up, ${down} down`);
  return parts.join(', ');
}

/** A stored subscriber event: registered or deregistered (`state`), or a session event (`session`). */
export function subscriberEventItem(event: SubscriberEvent): TimelineItem {
  const details = parseDetails(event.details);
  const name = STATE_NAMES[event.event] ?? event.event;
  const session = event.event.startsWith('session.');
  const radio = textOf(details.radio) ?? null;
  return {
    timestamp: event.timestamp,
    kind: session ? 'session' : 'state',
    direction: null,
    message: name,
    level: 'info',
    radio,
    summary: session ? sessionSummary(name, details) : radio === null ? name : `${name} through ${radio}`,
    source: 'subscriber_event',
    recordId: event.id,
    linkedRecordId: null,
    explanation: null,
    details,
  };
}

/** A reject the device got (its subscriber log): the state change it makes, with the cause. */
export function rejectedItem(log: SubscriberLog, details: Record<string, unknown>): TimelineItem {
  const cause = textOf(details.cause);
  return {
    timestamp: log.timestamp,
    kind: 'state',
    direction: null,
    message: 'Rejected',
    level: 'warn',
    radio: textOf(details.radio) ?? null,
    summary: `Rejected: ${log.event}${cause === undefined ? '' : `, cause ${cause}`}`,
    source: 'subscriber_log',
    recordId: log.id,
    linkedRecordId: null,
    explanation: null,
    details: { state: 'rejected', message: log.event, ...(cause === undefined ? {} : { cause }) },
  };
}

/**
 * The N2 connection of the device begins (Initial UE Message, TS 38.413 8.6.1: CM-CONNECTED, TS 23.501
 * 5.3.3.2) or ends (UE Context Release Complete, 8.3.3: CM-IDLE), told by the NGAP message.
 */
export function connectionItem(event: RadioEvent, state: 'connected' | 'idle'): TimelineItem {
  const details = parseDetails(event.details);
  const radio = textOf(details.radio) ?? null;
  const name = state === 'connected' ? 'Connected' : 'Idle';
  return {
    timestamp: event.timestamp,
    kind: 'state',
    direction: null,
    message: name,
    level: 'info',
    radio,
    summary: `${name} (${event.messageType}${radio === null ? '' : ` through ${radio}`})`,
    source: 'radio_event',
    recordId: event.id,
    linkedRecordId: null,
    explanation: null,
    details: { state, message_type: event.messageType },
  };
}

const PROTOCOLS: Readonly<Record<number, string>> = {
  1: 'ICMP',
  6: 'TCP',
  17: 'UDP',
  58: 'ICMPv6',
  132: 'SCTP',
};

const endpoint = (ip: string, port: number): string =>
  port === 0 ? ip : ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;

/** A flow report of the subscriber's traffic: the UPF's side of its story. */
export function flowReportItem(report: FlowReport): TimelineItem {
  const protocol = PROTOCOLS[report.protocol] ?? `protocol ${report.protocol}`;
  const dropped = report.action === 'drop';
  return {
    timestamp: report.endTime,
    kind: 'upf',
    direction: null,
    message: dropped ? 'Flow dropped' : 'Flow',
    level: dropped ? 'warn' : 'info',
    radio: null,
    summary:
      `${report.direction} ${protocol} ${endpoint(report.sourceIp, report.sourcePort)} -> ` +
      `${endpoint(report.destinationIp, report.destinationPort)}, ${report.packets} packets, ` +
      `${report.bytes} bytes${dropped ? ', dropped' : ''}`,
    source: 'flow_report',
    recordId: report.id,
    linkedRecordId: null,
    explanation: null,
    details: {
      direction: report.direction,
      action: report.action,
      protocol: report.protocol,
      source_ip: report.sourceIp,
      source_port: report.sourcePort,
      destination_ip: report.destinationIp,
      destination_port: report.destinationPort,
      packets: report.packets,
      bytes: report.bytes,
      start_time: new Date(report.startTime).toISOString(),
      end_time: new Date(report.endTime).toISOString(),
    },
  };
}
