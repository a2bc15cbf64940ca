import { InvalidError } from '../../errors.ts';
import type { DecoderRegistry } from '../../records/decoders.ts';
import type { TimestampWindow } from '../../records/record-windows.ts';
import type { NetworkSecurityService } from '../operator/network-security.service.ts';
import type { PoliciesService } from '../policies/policies.service.ts';
import type { RadioEvent } from '../radio-events/radio-events.repository.ts';
import type { RadioEventsService } from '../radio-events/radio-events.service.ts';
import type { SubscriberLog } from '../subscriber-logs/subscriber-logs.repository.ts';
import type { SubscriberLogsService } from '../subscriber-logs/subscriber-logs.service.ts';
import type { SubscribersService } from '../subscribers/subscribers.service.ts';
import type { FlowReportsRepository } from '../flow-reports/flow-reports.repository.ts';
import { explain, type ExplanationContext } from './explanations.ts';
import { CARRIER_WINDOW_MS, firstAtOrAfter, linkCarriers, type CarrierEvent } from './nas-carriers.ts';
import type { SubscriberEventsRepository } from './subscriber-events.repository.ts';
import {
  connectionItem,
  flowReportItem,
  parseDetails,
  rejectedItem,
  subscriberEventItem,
  textOf,
  UE_REJECTS,
  type TimelineItem,
  type TimelineKind,
} from './timeline-items.ts';

export type { TimelineItem } from './timeline-items.ts';

/**
 * The most records of one kind one timeline reads (NAS messages, subscriber events, connection ends,
 * flow reports): past it, a 400 asks for a narrower window.
 */
const TIMELINE_MAX_LOGS = 10_000;
/** Radio events read per query while looking for carriers. */
const EVENT_PAGE = 1_000;

/** The NAS-PDU and PDU Session NAS-PDU IEs of a decoded NGAP view (network.md section 3: `{hex, ...}`). */
function nasPdusOf(view: unknown, into: Uint8Array[] = []): Uint8Array[] {
  if (view === null || typeof view !== 'object') return into;
  for (const [key, value] of Object.entries(view)) {
    const hex = (value as { hex?: unknown } | null)?.hex;
    if (key.endsWith('nas_pdu') && typeof hex === 'string') into.push(Buffer.from(hex, 'hex'));
    else nasPdusOf(value, into);
  }
  return into;
}

/** The spans of time, `CARRIER_WINDOW_MS` around each log, merged where they overlap. */
function spansAround(timestamps: readonly number[]): { from: number; to: number }[] {
  const spans: { from: number; to: number }[] = [];
  for (const timestamp of [...timestamps].sort((a, b) => a - b)) {
    const last = spans.at(-1);
    if (last !== undefined && timestamp - CARRIER_WINDOW_MS <= last.to)
      last.to = timestamp + CARRIER_WINDOW_MS;
    else spans.push({ from: timestamp - CARRIER_WINDOW_MS, to: timestamp + CARRIER_WINDOW_MS });
  }
  return spans;
}

interface ParsedLog {
  log: SubscriberLog;
  details: Record<string, unknown>;
  radio: string | undefined;
}

function nasSummary({ log, details }: ParsedLog): string {
  const parts = [log.event];
  const cause = textOf(details.cause);
  if (cause !== undefined) parts.push(`cause ${cause}`);
  if (typeof details.pdu_session_id === 'number') parts.push(`PDU session ${details.pdu_session_id}`);
  const suci = textOf(details.suci);
  const guti = textOf(details.guti);
  if (suci !== undefined) parts.push(`SUCI ${suci}`);
  else if (guti !== undefined) parts.push(`5G-GUTI ${guti}`);
  return parts.join(', ');
}

function ngapSummary(
  event: RadioEvent,
  details: Record<string, unknown>,
  carried: string | undefined,
): string {
  const parts = [carried === undefined ? event.messageType : `${event.messageType} carrying ${carried}`];
  if (typeof details.ran_ue_ngap_id === 'number') parts.push(`RAN UE NGAP ID ${details.ran_ue_ngap_id}`);
  if (typeof details.amf_ue_ngap_id === 'number') parts.push(`AMF UE NGAP ID ${details.amf_ue_ngap_id}`);
  const cause = textOf(details.cause);
  if (cause !== undefined) parts.push(`cause ${cause}`);
  return parts.join(', ');
}

/** Where an item stands among items of the same instant (see `compareOldestFirst`). */
interface Place {
  /**
   * The rank of the NAS message (its own, the one an NGAP message carried, or the one a state change
   * comes from) in recording order; `AFTER_MESSAGES` for what the network told after its messages.
   */
  nas: number;
  /**
   * Beside one NAS message: -2 the connection its Initial UE Message began, -1 an inbound NGAP message
   * (read before its NAS message), 1 an outbound one (sent after it), 2 the reject it tells. After the
   * messages: 0 state changes and sessions, 1 connection ends, 2 flow reports.
   */
  side: number;
  /** Among those of one kind after the messages: their record ids. */
  seq: number;
}

const AFTER_MESSAGES = Number.MAX_SAFE_INTEGER;

/**
 * In time order; at one instant the NAS messages in the order they were recorded (record ids), each
 * inbound NGAP message just before the NAS message read from it, each outbound one just after the NAS
 * message it sends; then what the network told of that instant (a registration, a session) and the
 * flow reports that ended in it.
 */
function compareOldestFirst(a: Place & { timestamp: number }, b: Place & { timestamp: number }): number {
  return a.timestamp - b.timestamp || a.nas - b.nas || a.side - b.side || a.seq - b.seq;
}

/** Refuses a window holding more than `TIMELINE_MAX_LOGS` records of one kind (docs/api.md, "Bounded"). */
function bounded(imsi: string, what: string, total: number): void {
  if (total > TIMELINE_MAX_LOGS)
    throw new InvalidError(
      `the timeline of ${imsi} holds ${total} ${what} in this window, more than ${TIMELINE_MAX_LOGS}: narrow it with timestamp_from and timestamp_to`,
    );
}

/**
 * One subscriber's story (issue 32 item 3, docs/api.md): its subscriber logs, the NGAP radio events that
 * carried them (nas-carriers.ts), its state changes (registered, deregistered, connected, idle, rejected),
 * its sessions (subscriber events) and its flow reports (the UPF's side), merged in time order, with an
 * explanation of each failure.
 */
export function createSubscriberTimelineService(deps: {
  subscribers: Pick<SubscribersService, 'get'>;
  subscriberLogs: Pick<SubscriberLogsService, 'list'>;
  subscriberEvents: Pick<SubscriberEventsRepository, 'list' | 'count'>;
  radioEvents: Pick<RadioEventsService, 'listOldestAfter' | 'list'>;
  flowReports: Pick<FlowReportsRepository, 'list' | 'count'>;
  decoders: DecoderRegistry;
  networkSecurity: Pick<NetworkSecurityService, 'listKeys'>;
  policies: Pick<PoliciesService, 'list'>;
}) {
  const { subscribers, subscriberLogs, radioEvents, decoders, networkSecurity, policies } = deps;

  /** The NGAP events within `CARRIER_WINDOW_MS` of a log that hold one's bytes, with their NAS-PDUs. */
  async function carrierEvents(
    logs: readonly ParsedLog[],
  ): Promise<{ event: RadioEvent; carrier: CarrierEvent }[]> {
    const byTime = logs.map(({ log }) => log).sort((a, b) => a.timestamp - b.timestamp);
    // A message that carries a log holds its bytes: only those events are decoded and kept.
    const holdsALog = (event: RadioEvent): boolean => {
      for (let i = firstAtOrAfter(byTime, event.timestamp - CARRIER_WINDOW_MS); i < byTime.length; i++) {
        const log = byTime[i] as SubscriberLog;
        if (log.timestamp > event.timestamp + CARRIER_WINDOW_MS) return false;
        if (log.direction === event.direction && log.raw.length > 0 && event.raw.indexOf(log.raw) >= 0)
          return true;
      }
      return false;
    };
    const found: { event: RadioEvent; carrier: CarrierEvent }[] = [];
    for (const span of spansAround(byTime.map((log) => log.timestamp))) {
      let after: { timestamp: number; id: number } | undefined;
      for (;;) {
        const page = await radioEvents.listOldestAfter({ protocol: 'NGAP', ...span }, after, EVENT_PAGE);
        for (const event of page) {
          if (!holdsALog(event)) continue;
          found.push({
            event,
            carrier: {
              id: event.id,
              timestamp: event.timestamp,
              direction: event.direction,
              radio: textOf(parseDetails(event.details).radio),
              nasPdus: nasPdusOf(await decoders.decode('NGAP', event.raw)),
            },
          });
        }
        const last = page.at(-1);
        if (page.length < EVENT_PAGE || last === undefined) break;
        after = { timestamp: last.timestamp, id: last.id };
      }
    }
    return found;
  }

  async function explanationContext(profileName: string): Promise<ExplanationContext> {
    const keys = await networkSecurity.listKeys();
    const ofProfile: ExplanationContext['policies'][number][] = [];
    for (let offset = 0; ; offset += 100) {
      const { items, total } = await policies.list(100, offset);
      for (const policy of items)
        if (policy.profileName === profileName)
          ofProfile.push({
            name: policy.name,
            dataNetworkName: policy.dataNetworkName,
            sliceName: policy.sliceName,
          });
      if (offset + 100 >= total || items.length === 0) break;
    }
    return {
      homeNetworkKeys: keys.map(({ id, scheme }) => ({ id, scheme })),
      profileName,
      policies: ofProfile,
    };
  }

  /** The subscriber events (state changes and sessions) of the window. */
  async function eventItems(imsi: string, window: TimestampWindow): Promise<TimelineItem[]> {
    const filter = { imsi, ...window };
    bounded(imsi, 'state changes and session events', await deps.subscriberEvents.count(filter));
    return (await deps.subscriberEvents.list(filter, TIMELINE_MAX_LOGS, 0)).map(subscriberEventItem);
  }

  /** The ends of its N2 connections (UE Context Release Complete, recorded with its IMSI). */
  async function idleItems(imsi: string, window: TimestampWindow): Promise<TimelineItem[]> {
    const read = await radioEvents.list(
      { imsi, protocol: 'NGAP', messageType: 'UEContextReleaseComplete', ...window },
      TIMELINE_MAX_LOGS,
      0,
    );
    bounded(imsi, 'connection releases', read.total);
    return read.items.map((event) => connectionItem(event, 'idle'));
  }

  /** Its flow reports that ended in the window (flow reports select by end time). */
  async function upfItems(imsi: string, window: TimestampWindow): Promise<TimelineItem[]> {
    const filter = {
      subscriberId: imsi,
      from: window.from ?? 0,
      before: window.to === undefined ? Number.MAX_SAFE_INTEGER : window.to + 1,
    };
    bounded(imsi, 'flow reports', await deps.flowReports.count(filter));
    return (await deps.flowReports.list(filter, TIMELINE_MAX_LOGS, 0)).map(flowReportItem);
  }

  return {
    async list(
      imsi: string,
      query: TimestampWindow & { order: 'newest' | 'oldest'; kinds?: ReadonlySet<TimelineKind> },
      limit: number,
      offset: number,
    ): Promise<{ items: TimelineItem[]; total: number }> {
      const subscriber = await subscribers.get(imsi);
      const wanted = (kind: TimelineKind) => query.kinds === undefined || query.kinds.has(kind);
      const window = {
        ...(query.from === undefined ? {} : { from: query.from }),
        ...(query.to === undefined ? {} : { to: query.to }),
      };
      // Logs just outside the window are read too: their carriers may be inside it.
      const widened = {
        imsi,
        ...(query.from === undefined ? {} : { from: query.from - CARRIER_WINDOW_MS }),
        ...(query.to === undefined ? {} : { to: query.to + CARRIER_WINDOW_MS }),
      };
      // NAS messages are read for the NGAP messages and state changes they make too.
      const readLogs = wanted('nas') || wanted('ngap') || wanted('state');
      const read = readLogs
        ? await subscriberLogs.list(widened, TIMELINE_MAX_LOGS, 0)
        : { items: [], total: 0 };
      bounded(imsi, 'NAS messages', read.total);
      const logs = read.items.map((log): ParsedLog => {
        const details = parseDetails(log.details);
        return { log, details, radio: textOf(details.radio) };
      });
      const events = wanted('ngap') || wanted('state') ? await carrierEvents(logs) : [];
      const links = linkCarriers(
        logs.map(({ log, radio }) => ({
          id: log.id,
          timestamp: log.timestamp,
          direction: log.direction,
          radio,
          raw: log.raw,
        })),
        events.map(({ carrier }) => carrier).sort((a, b) => a.timestamp - b.timestamp),
      );
      const eventsById = new Map(events.map(({ event }) => [event.id, event]));
      const items: TimelineItem[] = [];
      const explained = new Map<TimelineItem, ParsedLog>();
      const places = new Map<TimelineItem, Place>();
      const place = (item: TimelineItem, at: Place) => {
        items.push(item);
        places.set(item, at);
      };
      const shown = new Set<number>();
      // The logs came newest first (by timestamp, then id): their recording order is the reverse.
      for (const [rank, parsed] of [...logs].reverse().entries()) {
        const { log, radio } = parsed;
        const carrierId = links.get(log.id);
        const item: TimelineItem = {
          timestamp: log.timestamp,
          kind: 'nas',
          direction: log.direction,
          message: log.event,
          level: log.level,
          radio: radio ?? null,
          summary: nasSummary(parsed),
          source: 'subscriber_log',
          recordId: log.id,
          linkedRecordId: carrierId ?? null,
          explanation: null,
          details: null,
        };
        place(item, { nas: rank, side: 0, seq: 0 });
        explained.set(item, parsed);
        if (log.direction === 'outbound' && UE_REJECTS.has(log.event))
          place(rejectedItem(log, parsed.details), { nas: rank, side: 2, seq: 0 });
        const event = carrierId === undefined ? undefined : eventsById.get(carrierId);
        // One NGAP message may carry two NAS messages (each in its NAS-PDU): it shows once.
        if (event === undefined || shown.has(event.id)) continue;
        shown.add(event.id);
        // The Initial UE Message that carried it began the device's N2 connection.
        if (event.messageType === 'InitialUEMessage')
          place(connectionItem(event, 'connected'), { nas: rank, side: -2, seq: 0 });
        const details = parseDetails(event.details);
        place(
          {
            timestamp: event.timestamp,
            kind: 'ngap',
            direction: event.direction,
            message: event.messageType,
            level: log.level,
            radio: textOf(details.radio) ?? null,
            summary: ngapSummary(event, details, log.event),
            source: 'radio_event',
            recordId: event.id,
            linkedRecordId: log.id,
            explanation: null,
            details: null,
          },
          { nas: rank, side: event.direction === 'inbound' ? -1 : 1, seq: 0 },
        );
      }
      if (wanted('state') || wanted('session'))
        for (const item of await eventItems(imsi, window))
          place(item, { nas: AFTER_MESSAGES, side: 0, seq: item.recordId });
      if (wanted('state'))
        for (const item of await idleItems(imsi, window))
          place(item, { nas: AFTER_MESSAGES, side: 1, seq: item.recordId });
      if (wanted('upf'))
        for (const item of await upfItems(imsi, window))
          place(item, { nas: AFTER_MESSAGES, side: 2, seq: item.recordId });
      const inWindow = items.filter(
        (item) =>
          wanted(item.kind) &&
          (query.from === undefined || item.timestamp >= query.from) &&
          (query.to === undefined || item.timestamp <= query.to),
      );
      const placed = (item: TimelineItem) => ({ timestamp: item.timestamp, ...(places.get(item) as Place) });
      inWindow.sort((a, b) => compareOldestFirst(placed(a), placed(b)));
      if (query.order === 'newest') inWindow.reverse();
      const page = inWindow.slice(offset, offset + limit);
      let context: ExplanationContext | undefined;
      for (const item of page) {
        const parsed = explained.get(item);
        if (parsed === undefined || parsed.log.level !== 'warn') continue;
        context ??= await explanationContext(subscriber.profileName);
        item.explanation =
          explain({ event: parsed.log.event, level: parsed.log.level, details: parsed.details }, context) ??
          null;
      }
      return { items: page, total: inWindow.length };
    },
  };
}
