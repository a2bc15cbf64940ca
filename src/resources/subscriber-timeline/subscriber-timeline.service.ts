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
import { explain, type ExplanationContext } from './explanations.ts';
import { CARRIER_WINDOW_MS, firstAtOrAfter, linkCarriers, type CarrierEvent } from './nas-carriers.ts';

/** One step of a device's story: a NAS message it sent or got, or the NGAP message that carried one. */
export interface TimelineItem {
  timestamp: number;
  kind: 'nas' | 'ngap';
  direction: 'inbound' | 'outbound';
  message: string;
  level: string;
  radio: string | null;
  summary: string;
  /** The subscriber log (`nas`) or radio event (`ngap`) the item shows. */
  recordId: number;
  /** The radio event that carried the NAS message, or the subscriber log an NGAP message carried. */
  linkedRecordId: number | null;
  explanation: string | null;
}

/** The most subscriber logs one timeline reads: past it, a 400 asks for a narrower window. */
export const TIMELINE_MAX_LOGS = 10_000;
/** Radio events read per query while looking for carriers. */
const EVENT_PAGE = 1_000;

function parseDetails(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

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
  /** The rank of the NAS message (its own, or the one an NGAP message carried) in recording order. */
  nas: number;
  /** -1: an inbound NGAP message, read before its NAS message; 1: an outbound one, sent after it. */
  side: -1 | 0 | 1;
}

/**
 * In time order; at one instant the NAS messages in the order they were recorded (record ids), each
 * inbound NGAP message just before the NAS message read from it, each outbound one just after the NAS
 * message it sends.
 */
function compareOldestFirst(a: Place & { timestamp: number }, b: Place & { timestamp: number }): number {
  return a.timestamp - b.timestamp || a.nas - b.nas || a.side - b.side;
}

/**
 * One subscriber's signalling story (issue 32 item 3, docs/api.md): its subscriber logs, the NGAP radio
 * events that carried them (nas-carriers.ts), merged in time order, with an explanation of each failure.
 */
export function createSubscriberTimelineService(deps: {
  subscribers: Pick<SubscribersService, 'get'>;
  subscriberLogs: Pick<SubscriberLogsService, 'list'>;
  radioEvents: Pick<RadioEventsService, 'listOldestAfter'>;
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

  return {
    async list(
      imsi: string,
      query: TimestampWindow & { order: 'newest' | 'oldest' },
      limit: number,
      offset: number,
    ): Promise<{ items: TimelineItem[]; total: number }> {
      const subscriber = await subscribers.get(imsi);
      // Logs just outside the window are read too: their carriers may be inside it.
      const widened = {
        imsi,
        ...(query.from === undefined ? {} : { from: query.from - CARRIER_WINDOW_MS }),
        ...(query.to === undefined ? {} : { to: query.to + CARRIER_WINDOW_MS }),
      };
      const read = await subscriberLogs.list(widened, TIMELINE_MAX_LOGS, 0);
      if (read.total > TIMELINE_MAX_LOGS) {
        throw new InvalidError(
          `the timeline of ${imsi} holds ${read.total} NAS messages in this window, more than ${TIMELINE_MAX_LOGS}: narrow it with timestamp_from and timestamp_to`,
        );
      }
      const logs = read.items.map((log): ParsedLog => {
        const details = parseDetails(log.details);
        return { log, details, radio: textOf(details.radio) };
      });
      const events = await carrierEvents(logs);
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
          recordId: log.id,
          linkedRecordId: carrierId ?? null,
          explanation: null,
        };
        items.push(item);
        explained.set(item, parsed);
        places.set(item, { nas: rank, side: 0 });
        const event = carrierId === undefined ? undefined : eventsById.get(carrierId);
        // One NGAP message may carry two NAS messages (each in its NAS-PDU): it shows once.
        if (event === undefined || shown.has(event.id)) continue;
        shown.add(event.id);
        const details = parseDetails(event.details);
        const carrier: TimelineItem = {
          timestamp: event.timestamp,
          kind: 'ngap',
          direction: event.direction,
          message: event.messageType,
          level: log.level,
          radio: textOf(details.radio) ?? null,
          summary: ngapSummary(event, details, log.event),
          recordId: event.id,
          linkedRecordId: log.id,
          explanation: null,
        };
        items.push(carrier);
        places.set(carrier, { nas: rank, side: event.direction === 'inbound' ? -1 : 1 });
      }
      const inWindow = items.filter(
        (item) =>
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

export type SubscriberTimelineService = ReturnType<typeof createSubscriberTimelineService>;
