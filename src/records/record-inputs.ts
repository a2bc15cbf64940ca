import { RADIO_ID_PATTERN } from '../network/radio-id.ts';
import { DAY_MS } from '../validation/calendar-date.ts';
import { canonicalIp } from '../validation/ip-address.ts';
import type { Insertable } from 'kysely';
import type {
  NewFlowReport,
  RadioEventsTable,
  RadioLogsTable,
  SubscriberEventsTable,
  SubscriberLogsTable,
} from '../storage/tables/records.ts';

/**
 * What the network functions hand to the records pipeline, and the checks that turn it into rows.
 * A record that breaks these rules is a bug in its caller, so it is refused with a TypeError at once,
 * before it is queued, rather than failing a whole batch later. Times are Unix ms and default to now.
 */

export type LogDirection = 'inbound' | 'outbound';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type RadioLogLevel = LogLevel;

export interface RadioEventInput {
  /** Protocol of the message, `NGAP`; selects the decoder on read. */
  protocol: string;
  /** The message's name, `NGSetupRequest`. */
  messageType: string;
  direction: LogDirection;
  /** The message as it went over the wire. */
  raw: Uint8Array;
  /** Summary fields, stored as JSON. */
  details?: Record<string, unknown>;
  timestamp?: number;
}

export interface SubscriberLogInput {
  /** `info` when omitted; `warn` for rejects and failures (network.md section 4). */
  level?: LogLevel;
  /**
   * The subscriber's IMSI; empty for a device the core cannot map to a subscriber whose SUCI does not
   * show a 15-digit IMSI in clear (network.md section 4).
   */
  imsi: string;
  /** What happened, `Registration accept`. */
  event: string;
  direction: LogDirection;
  raw: Uint8Array;
  details?: Record<string, unknown>;
  timestamp?: number;
}

/** What the network tells of a subscriber beyond its NAS messages, for its timeline (migration 0021). */
const SUBSCRIBER_EVENTS = [
  'registered',
  'deregistered',
  'session.established',
  'session.modified',
  'session.released',
] as const;

type SubscriberEventName = (typeof SUBSCRIBER_EVENTS)[number];

export interface SubscriberEventInput {
  imsi: string;
  event: SubscriberEventName;
  /** The radio, or the session's data network, slice, addresses and state; stored as JSON. */
  details?: Record<string, unknown>;
  timestamp?: number;
}

export interface RadioLogInput {
  /** `info` when omitted. */
  level?: RadioLogLevel;
  /** The radio's id (see network/radio-id.ts). */
  ranId: string;
  event: string;
  direction: LogDirection;
  raw: Uint8Array;
  details?: Record<string, unknown>;
  timestamp?: number;
}

export interface FlowReportInput {
  /** The subscriber's IMSI. */
  subscriberId: string;
  sourceIp: string;
  destinationIp: string;
  sourcePort: number;
  destinationPort: number;
  /** IP protocol number, 1..255 (6 TCP, 17 UDP, ...). */
  protocol: number;
  packets: number;
  bytes: number;
  startTime: number;
  endTime: number;
  direction: 'uplink' | 'downlink';
  action: 'allow' | 'drop';
}

export interface UsageInput {
  imsi: string;
  uplinkBytes: number;
  downlinkBytes: number;
  /** When the bytes were counted; they go to that UTC day. */
  at?: number;
}

/** A usage row before the writer adds it to the day's counters. */
export interface UsageIncrement {
  imsi: string;
  day: number;
  uplink_bytes: number;
  downlink_bytes: number;
}

const IMSI = /^\d{15}$/;
// A radio's id (ng-eNB ids with their prefix), or its address before NG Setup names it (network.md 2, 4).
const RAN_ID = new RegExp(RADIO_ID_PATTERN);
const NAME_MAX = 128;

function fail(what: string): never {
  throw new TypeError(`invalid record: ${what}`);
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > NAME_MAX) {
    fail(`${field} must be a string of 1 to ${NAME_MAX} characters`);
  }
  return value;
}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(`${field} must be an integer in ${min}..${max}`);
  }
  return value;
}

/**
 * Whole milliseconds, as given ones must be: a clock with fractions (a manual one moved by jittered
 * timers) would be refused by PostgreSQL's bigint and fail the whole batch.
 */
function time(value: unknown, field: string, now: number): number {
  return value === undefined ? Math.trunc(now) : integer(value, field, 0, Number.MAX_SAFE_INTEGER);
}

function direction(value: unknown): LogDirection {
  if (value !== 'inbound' && value !== 'outbound') fail('direction must be inbound or outbound');
  return value;
}

function imsi(value: unknown, field: string): string {
  if (typeof value !== 'string' || !IMSI.test(value)) fail(`${field} must be 15 digits`);
  return value;
}

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

function logLevel(value: LogLevel | undefined): LogLevel {
  const level = value ?? 'info';
  if (!LEVELS.includes(level)) fail(`level must be one of ${LEVELS.join(', ')}`);
  return level;
}

function bytes(value: unknown): Buffer {
  if (!(value instanceof Uint8Array)) fail('raw must be a Uint8Array');
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

function details(value: unknown): string {
  if (value === undefined) return '{}';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('details must be an object');
  return JSON.stringify(value);
}

function ip(value: unknown, field: string): string {
  const canonical = typeof value === 'string' ? canonicalIp(value) : undefined;
  return canonical ?? fail(`${field} must be an IPv4 or IPv6 address`);
}

export function radioEventRow(input: RadioEventInput, now: number): Insertable<RadioEventsTable> {
  return {
    timestamp: time(input.timestamp, 'timestamp', now),
    protocol: text(input.protocol, 'protocol'),
    message_type: text(input.messageType, 'messageType'),
    direction: direction(input.direction),
    raw: bytes(input.raw),
    details: details(input.details),
    imsi: detailsImsi(input.details),
    radio: detailsRadio(input.details),
  };
}

/** The subscriber a radio event's details name (network.md section 3), when it is an IMSI. */
function detailsImsi(value: Record<string, unknown> | undefined): string | null {
  const named = value?.['imsi'];
  return typeof named === 'string' && IMSI.test(named) ? named : null;
}

/** The radio a radio event's details name (network.md section 3). */
function detailsRadio(value: Record<string, unknown> | undefined): string | null {
  const named = value?.['radio'];
  return typeof named === 'string' ? named : null;
}

export function subscriberLogRow(input: SubscriberLogInput, now: number): Insertable<SubscriberLogsTable> {
  return {
    timestamp: time(input.timestamp, 'timestamp', now),
    level: logLevel(input.level),
    imsi: input.imsi === '' ? '' : imsi(input.imsi, 'imsi'),
    event: text(input.event, 'event'),
    direction: direction(input.direction),
    raw: bytes(input.raw),
    details: details(input.details),
  };
}

export function subscriberEventRow(
  input: SubscriberEventInput,
  now: number,
): Insertable<SubscriberEventsTable> {
  if (!SUBSCRIBER_EVENTS.includes(input.event)) fail(`event must be one of ${SUBSCRIBER_EVENTS.join(', ')}`);
  return {
    timestamp: time(input.timestamp, 'timestamp', now),
    imsi: imsi(input.imsi, 'imsi'),
    event: input.event,
    details: details(input.details),
  };
}

export function radioLogRow(input: RadioLogInput, now: number): Insertable<RadioLogsTable> {
  const level = logLevel(input.level);
  if (typeof input.ranId !== 'string' || !RAN_ID.test(input.ranId)) {
    fail('ranId must be <mcc>:<mnc>:<node id in lower-case hex>');
  }
  return {
    timestamp: time(input.timestamp, 'timestamp', now),
    level,
    ran_id: input.ranId,
    event: text(input.event, 'event'),
    direction: direction(input.direction),
    raw: bytes(input.raw),
    details: details(input.details),
  };
}

export function flowReportRow(input: FlowReportInput): NewFlowReport {
  const startTime = integer(input.startTime, 'startTime', 0, Number.MAX_SAFE_INTEGER);
  const endTime = integer(input.endTime, 'endTime', startTime, Number.MAX_SAFE_INTEGER);
  if (input.direction !== 'uplink' && input.direction !== 'downlink') {
    fail('direction must be uplink or downlink');
  }
  if (input.action !== 'allow' && input.action !== 'drop') fail('action must be allow or drop');
  return {
    subscriber_id: imsi(input.subscriberId, 'subscriberId'),
    source_ip: ip(input.sourceIp, 'sourceIp'),
    destination_ip: ip(input.destinationIp, 'destinationIp'),
    source_port: integer(input.sourcePort, 'sourcePort', 0, 65535),
    destination_port: integer(input.destinationPort, 'destinationPort', 0, 65535),
    protocol: integer(input.protocol, 'protocol', 1, 255),
    packets: integer(input.packets, 'packets', 0, Number.MAX_SAFE_INTEGER),
    bytes: integer(input.bytes, 'bytes', 0, Number.MAX_SAFE_INTEGER),
    start_time: startTime,
    end_time: endTime,
    direction: input.direction,
    action: input.action,
  };
}

export function usageIncrement(input: UsageInput, now: number): UsageIncrement {
  const at = time(input.at, 'at', now);
  return {
    imsi: imsi(input.imsi, 'imsi'),
    day: Math.floor(at / DAY_MS) * DAY_MS,
    uplink_bytes: integer(input.uplinkBytes, 'uplinkBytes', 0, Number.MAX_SAFE_INTEGER),
    downlink_bytes: integer(input.downlinkBytes, 'downlinkBytes', 0, Number.MAX_SAFE_INTEGER),
  };
}
