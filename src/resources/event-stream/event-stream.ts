import type { Logger } from 'pino';
import type { NasMessageEvent, NetworkEventMap, NetworkEvents } from '../../network/events/network-events.ts';
import type { AuditLogEntry } from '../audit-logs/audit-logs.repository.ts';
import type { RadioLog } from '../radio-logs/radio-logs.repository.ts';
import type { SubscriberLog } from '../subscriber-logs/subscriber-logs.repository.ts';
import type { RadioEvent } from '../radio-events/radio-events.repository.ts';
import { UE_REJECTS } from '../subscriber-timeline/timeline-items.ts';
import { createRecordFollower, type FollowedTable, type RecordFollower } from './record-follower.ts';

/** The kinds a client can ask for (`kinds` filter), in the order they are documented (docs/api.md). */
export const STREAM_KINDS = [
  'radio.connected',
  'radio.disconnected',
  'ue.registered',
  'ue.deregistered',
  'ue.rejected',
  'session.established',
  'session.released',
  'nas.message',
  'ngap.message',
  'radio.log',
  'audit',
] as const;

export type StreamKind = (typeof STREAM_KINDS)[number];

/** The kinds that are stored records, streamed once the records writer has stored them. */
const RECORD_KINDS: ReadonlySet<StreamKind> = new Set(['nas.message', 'ngap.message', 'radio.log', 'audit']);

/** One event as streamed: its id (increasing, for `Last-Event-ID`), kind, and whom it is about. */
interface StreamEvent {
  readonly id: number;
  readonly kind: StreamKind;
  /** The radio it is about (its id, when connected now or named by the event), if any. */
  readonly radio: string | undefined;
  /** The radio's name, when the event or record names it. */
  readonly radioName: string | undefined;
  /** The subscriber's IMSI it is about, if any (empty for a device the core cannot map). */
  readonly imsi: string | undefined;
}

/**
 * An event as kept in the window: the network event it came from, serialised only when a client needs
 * it (once, then shared), so that a core with no stream client pays one small object per event.
 */
interface Entry extends StreamEvent {
  readonly at: number;
  readonly source: object;
  frame: string | undefined;
}

/** Which events a client wants: every one when a field is absent. */
export interface StreamFilter {
  radio?: string;
  imsi?: string;
  kinds?: ReadonlySet<StreamKind>;
  /** Whether the client's role may read the audit log (`audit:read`): only then does it get `audit`. */
  audit?: boolean;
}

const matches = (event: StreamEvent, filter: StreamFilter): boolean =>
  (event.kind !== 'audit' || filter.audit === true) &&
  (filter.kinds === undefined || filter.kinds.has(event.kind)) &&
  (filter.radio === undefined || event.radio === filter.radio || event.radioName === filter.radio) &&
  (filter.imsi === undefined || event.imsi === filter.imsi);

/**
 * A connected client: `deliver` gets the frames of the matching events since its last delivery, as bytes
 * shared with the other clients of the same filter (never to be modified), and says whether the client
 * keeps up.
 */
export interface StreamClient {
  readonly filter: StreamFilter;
  deliver(frames: Buffer): boolean;
  /** The client is cut (it fell behind) or the stream closes. */
  end(reason: 'slow' | 'closing'): void;
}

/** What a resumed client gets: the frames of the events after its last one; `gap` when some left the window. */
interface Replay {
  gap: boolean;
  frames: readonly string[];
}

/** The record tables the stream follows (each row an event with its record id), and when to read them. */
interface StreamedRecords {
  radioEvents: FollowedTable<RadioEvent>;
  subscriberLogs: FollowedTable<SubscriberLog>;
  radioLogs: FollowedTable<RadioLog>;
  /** Calls the listener after each batch the records writer stored, with its tables; returns the unsubscribe. */
  onWritten(listener: (tables: readonly string[]) => void): () => void;
}

/** The audit log as the stream follows it: entries after an id, and each write of one. */
interface StreamedAudit extends FollowedTable<AuditLogEntry> {
  /** Calls the listener after each entry is written, maybe before its transaction commits. */
  onRecorded(listener: () => void): () => void;
}

/**
 * An audit entry is written inside its change's transaction, so the read its write prompts may run
 * before the commit (PostgreSQL's pool): the table is read again this often, at most this many times,
 * until every entry told of has come (an entry whose change rolled back never does).
 */
const AUDIT_RETRY_MS = 100;
const AUDIT_RETRIES = 20;

/** Clients whose filters have the same key get the same frames. */
const filterKeys = new WeakMap<StreamFilter, string>();
function filterKey(filter: StreamFilter): string {
  let key = filterKeys.get(filter);
  if (key === undefined) {
    const kinds = filter.kinds === undefined ? null : [...filter.kinds].sort();
    key = JSON.stringify([filter.audit === true, filter.radio ?? null, filter.imsi ?? null, kinds]);
    filterKeys.set(filter, key);
  }
  return key;
}

/**
 * The network's live events for API clients (GET /api/v1/events/stream): one subscription per network
 * event name, and, while a client is connected, a follower of each record table (radio events,
 * subscriber logs, radio logs), read after each batch the records writer stores, that turns each record
 * into an event carrying its id. Each event is numbered and serialised once, fanned out to the clients whose filter it
 * matches (the frames of each write encoded once per filter), and kept in a window of the last `window` events so a client that reconnects with
 * `Last-Event-ID` misses nothing inside it. A client that cannot take an event (its buffer is full) is
 * cut, so a slow client never slows the network functions that emit.
 */
/** The most events one write to a client carries (a few hundred bytes each: well under 1 MiB). */
export const WRITE_BATCH = 256;

export function createEventStream(deps: {
  events: Pick<NetworkEvents, 'on'>;
  /** Milliseconds since the epoch (the core's clock). */
  now: () => number;
  /** The tables whose records the stream carries; without them, only the network's events. */
  records?: StreamedRecords;
  /** The audit log, streamed as `audit` to the clients whose role reads it. */
  audit?: StreamedAudit;
  /** The id of the radio of this name connected now, so a filter by id finds what names it. */
  radioIdOf?: (name: string) => string | undefined;
  logger?: Pick<Logger, 'warn'>;
  window?: number;
  onCut?: () => void;
  /**
   * Told at each write, once an event (not once a client), how long it waited since its time: a record
   * since it was recorded (the records writer's batch, the commit and the read after it), a network
   * event since it was published. What the stream adds to a client's latency, apart from the client's own.
   */
  onDelay?: (source: 'record' | 'event', ms: number) => void;
}) {
  const windowSize = deps.window ?? 1024;
  const radioIdOf = deps.radioIdOf ?? (() => undefined);
  // A ring of the last `windowSize` events: `ring[(id - 1) % windowSize]` holds event `id`.
  const ring: (Entry | undefined)[] = new Array<Entry | undefined>(windowSize);
  const clients = new Set<StreamClient>();
  let nextId = 1;
  /**
   * The events published since the last write to the clients. They are written once the event loop has
   * run what it had ready (setImmediate): the events of a burst (the records of a stored batch, the
   * messages of many devices read at once) leave as one write per client rather than one per event and
   * client (a system call, a chunk and their garbage each), and an event at a quiet time leaves at once.
   * A burst is written every WRITE_BATCH events as it comes, so no one write approaches the 1 MiB a client
   * may leave unread: a large stored batch never cuts a client that reads.
   */
  let unwritten: Entry[] = [];
  /**
   * Since when a client has been connected without a break: a record from before it waited for a client,
   * not for the stream (those written meanwhile are read when one connects), and is not told as a delay.
   */
  let listenedSince = 0;
  let writeScheduled: NodeJS.Immediate | undefined;

  function frameOf(entry: Entry): string {
    if (entry.frame === undefined) {
      const body = JSON.stringify({
        kind: entry.kind,
        timestamp: new Date(entry.at).toISOString(),
        ...fieldsOf(entry.kind, entry.source),
      });
      entry.frame = `id: ${entry.id}\nevent: ${entry.kind}\ndata: ${body}\n\n`;
    }
    return entry.frame;
  }

  function publish(
    kind: StreamKind,
    about: { radio?: string | undefined; radioName?: string | undefined; imsi?: string | undefined },
    source: object,
    at = deps.now(),
  ): void {
    const id = nextId++;
    const { radioName } = about;
    const radio = about.radio ?? (radioName === undefined ? undefined : radioIdOf(radioName));
    const entry: Entry = { id, kind, radio, radioName, imsi: about.imsi, at, source, frame: undefined };
    ring[(id - 1) % windowSize] = entry;
    if (clients.size === 0) return;
    unwritten.push(entry);
    if (unwritten.length >= WRITE_BATCH) write();
    else writeScheduled ??= setImmediate(write);
  }

  /** Writes the events published since the last write to the clients they match, in order. */
  function write(): void {
    clearImmediate(writeScheduled);
    writeScheduled = undefined;
    const entries = unwritten;
    if (entries.length === 0) return;
    unwritten = [];
    if (deps.onDelay !== undefined) {
      const now = deps.now();
      for (const entry of entries)
        if (entry.at >= listenedSince)
          deps.onDelay(RECORD_KINDS.has(entry.kind) ? 'record' : 'event', now - entry.at);
    }
    const bytesByFilter = new Map<string, Buffer | null>();
    for (const client of clients) {
      const key = filterKey(client.filter);
      let bytes = bytesByFilter.get(key);
      if (bytes === undefined) {
        let frames = '';
        for (const entry of entries) if (matches(entry, client.filter)) frames += frameOf(entry);
        bytes = frames === '' ? null : Buffer.from(frames);
        bytesByFilter.set(key, bytes);
      }
      if (bytes === null || client.deliver(bytes)) continue;
      clients.delete(client);
      deps.onCut?.();
      client.end('slow');
    }
  }

  const unsubscribe = [
    // Rare events whose payload objects live on in the network's state: their fields are taken now.
    deps.events.on('radio.connected', (r) =>
      publish(
        'radio.connected',
        { radio: r.id, radioName: r.name },
        { radio: r.id, name: r.name, address: r.address, ran_node_type: r.ranNodeType },
      ),
    ),
    deps.events.on('radio.disconnected', (r) => publish('radio.disconnected', { radio: r.id }, r)),
    deps.events.on('ue.registered', (e) => publish('ue.registered', { radioName: e.radio, imsi: e.supi }, e)),
    deps.events.on('ue.deregistered', (e) => publish('ue.deregistered', { imsi: e.supi }, e)),
    deps.events.on('session.established', ({ supi, session }) =>
      publish(
        'session.established',
        { imsi: supi },
        {
          imsi: supi,
          pdu_session_id: session.id,
          data_network: session.dataNetwork,
          ipv4_address: session.ipv4Address,
          ipv6_prefix: session.ipv6Prefix,
        },
      ),
    ),
    deps.events.on('session.released', (e) => publish('session.released', { imsi: e.supi }, e)),
    // The NAS message itself comes with its record (its subscriber log, below); a reject is told at once.
    deps.events.on('nas.message', (m) => {
      if (m.direction !== 'outbound' || !UE_REJECTS.has(m.event)) return;
      const radioName = typeof m.details.radio === 'string' ? m.details.radio : undefined;
      publish('ue.rejected', { radioName, imsi: m.imsi }, m);
    }),
  ];

  // Each follower under the table it reads, as the records writer names it.
  const followers = new Map<string, RecordFollower>([
    ...(deps.records === undefined ? [] : recordFollowers(deps.records)),
    ...(deps.audit === undefined ? [] : [['audit_logs', auditFollower(deps.audit)] as const]),
  ]);
  /** Audit entries told of and not read yet, and the reads left to find them (`AUDIT_RETRIES`). */
  let auditPending = 0;
  let auditRetries = 0;
  let auditRetry: NodeJS.Timeout | undefined;
  /** The tables written since the last read began. */
  const written = new Set<string>();
  let polling: Promise<void> | undefined;
  let closed = false;

  /** The rows one poll read, published together in the order they were recorded. */
  let read: { at: number; publish: () => void }[] = [];

  function recordFollowers(records: StreamedRecords) {
    // Events skipped while no client listened are numbered all the same, so a client resuming from
    // before them is told of the gap.
    const follow = { maxBehind: windowSize, onSkipped: (count: number) => void (nextId += count) };
    function follower<Row extends { id: number; timestamp: number; details: string }>(
      table: FollowedTable<Row>,
      kind: StreamKind,
      about: (row: Row, details: ReturnType<typeof detailsOf>) => Parameters<typeof publish>[1],
    ) {
      return createRecordFollower(table, {
        ...follow,
        onRow: (row) =>
          read.push({
            at: row.timestamp,
            publish: () => {
              const details = detailsOf(row.details);
              publish(kind, about(row, details), { ...row, details }, row.timestamp);
            },
          }),
      });
    }
    return [
      [
        'radio_events',
        follower(records.radioEvents, 'ngap.message', (_, details) => ({
          radioName: stringField(details, 'radio'),
          imsi: stringField(details, 'imsi'),
        })),
      ],
      [
        'subscriber_logs',
        follower(records.subscriberLogs, 'nas.message', (row, details) => ({
          radioName: stringField(details, 'radio'),
          imsi: row.imsi,
        })),
      ],
      [
        'radio_logs',
        follower(records.radioLogs, 'radio.log', (row, details) => ({
          radio: row.ranId,
          radioName: stringField(details, 'radio'),
        })),
      ],
    ] as const;
  }

  function auditFollower(audit: StreamedAudit) {
    return createRecordFollower(audit, {
      maxBehind: windowSize,
      onSkipped: (count) => void (nextId += count),
      onRow: (row) => {
        auditPending = Math.max(0, auditPending - 1);
        auditRetries = 0;
        // Its details are words, not JSON: sent as written.
        read.push({ at: row.timestamp, publish: () => publish('audit', {}, row, row.timestamp) });
      },
    });
  }

  /** Reads the audit log again while entries told of have not come, a bounded number of times. */
  function awaitAudit(): void {
    if (auditPending === 0 || auditRetry !== undefined || closed || clients.size === 0) return;
    if (++auditRetries > AUDIT_RETRIES) {
      auditPending = 0;
      auditRetries = 0;
      return;
    }
    auditRetry = setTimeout(() => {
      auditRetry = undefined;
      readRecords(['audit_logs']);
    }, AUDIT_RETRY_MS);
  }

  /** Publishes what one poll read, by record time (a stable sort: radio events, NAS, radio logs). */
  function publishRead(): void {
    const rows = read;
    read = [];
    rows.sort((a, b) => a.at - b.at);
    for (const row of rows) row.publish();
  }

  /**
   * Reads the record tables for what was written since the last read: each table after a batch that
   * wrote it stored, while a client is connected, and all of them when one connects. One read at a time;
   * tables written meanwhile are read next.
   */
  function readRecords(tables: Iterable<string>): void {
    if (closed || clients.size === 0 || followers.size === 0) return;
    for (const table of tables) if (followers.has(table)) written.add(table);
    if (polling !== undefined || written.size === 0) return;
    polling = (async () => {
      try {
        for (const follower of followers.values()) await follower.start();
        while (written.size > 0 && clients.size > 0 && !closed) {
          const tables = [...written];
          written.clear();
          for (const table of tables) {
            try {
              await followers.get(table)?.poll();
            } catch (error) {
              // A restore holding the database, a lost PostgreSQL connection: the next batch reads again.
              deps.logger?.warn({ err: error }, 'the event stream could not read new records');
            }
          }
          publishRead();
        }
      } catch (error) {
        deps.logger?.warn({ err: error }, 'the event stream could not start following the records');
      } finally {
        written.clear();
        polling = undefined;
        awaitAudit();
      }
    })();
  }
  const stopReading = deps.records?.onWritten(readRecords);
  const stopAudit = deps.audit?.onRecorded(() => {
    if (clients.size === 0) return;
    auditPending += 1;
    readRecords(['audit_logs']);
  });

  return {
    add(client: StreamClient): void {
      // What is unwritten was published before the client came (its replay has it): to the others first.
      write();
      if (clients.size === 0) listenedSince = deps.now();
      clients.add(client);
      readRecords(followers.keys());
    },
    remove(client: StreamClient): void {
      clients.delete(client);
    },
    clientCount: (): number => clients.size,

    /** The frames of the events after `lastId` that match `filter`; `gap` when some after it left the window. */
    replay(lastId: number, filter: StreamFilter): Replay {
      const oldest = Math.max(1, nextId - windowSize);
      const frames: string[] = [];
      for (let id = Math.max(lastId + 1, oldest); id < nextId; id++) {
        const entry = ring[(id - 1) % windowSize];
        if (entry !== undefined && entry.id === id && matches(entry, filter)) frames.push(frameOf(entry));
      }
      return { gap: lastId + 1 < oldest, frames };
    },

    /** The id the next event gets, so a client knows where the stream stands. */
    nextId: (): number => nextId,

    /** Ends every client and stops listening (the service stops); resolves once no read is running. */
    async close(): Promise<void> {
      closed = true;
      for (const stop of unsubscribe) stop();
      stopReading?.();
      stopAudit?.();
      clearTimeout(auditRetry);
      write();
      for (const client of clients) client.end('closing');
      clients.clear();
      await polling;
    },
  };
}

/** A record's details (a JSON object text) as an object; text that is not one is kept as text. */
function detailsOf(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : text;
  } catch {
    return text;
  }
}

function stringField(details: Record<string, unknown> | string, key: string): string | undefined {
  const value = typeof details === 'string' ? undefined : details[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

type Streamed<R> = Omit<R, 'details'> & { details: Record<string, unknown> | string };

/** The JSON fields of each kind (docs/api.md, "The live event stream"), from the network event or as taken. */
function fieldsOf(kind: StreamKind, source: object): Record<string, unknown> {
  switch (kind) {
    case 'radio.connected':
    case 'session.established':
      return source as Record<string, unknown>;
    case 'radio.disconnected':
      return { radio: (source as NetworkEventMap['radio.disconnected']).id };
    case 'ue.registered': {
      const e = source as NetworkEventMap['ue.registered'];
      return { imsi: e.supi, radio: e.radio };
    }
    case 'ue.deregistered':
      return { imsi: (source as NetworkEventMap['ue.deregistered']).supi };
    case 'session.released': {
      const e = source as NetworkEventMap['session.released'];
      return { imsi: e.supi, pdu_session_id: e.pduSessionId };
    }
    case 'ue.rejected': {
      const m = source as NasMessageEvent;
      return { imsi: m.imsi, message: m.event, details: m.details };
    }
    case 'nas.message': {
      const log = source as Streamed<SubscriberLog>;
      return {
        record_id: log.id,
        imsi: log.imsi,
        direction: log.direction,
        message: log.event,
        level: log.level,
        details: log.details,
      };
    }
    case 'ngap.message': {
      const event = source as Streamed<RadioEvent>;
      return {
        record_id: event.id,
        radio: stringField(event.details, 'radio') ?? null,
        imsi: stringField(event.details, 'imsi') ?? null,
        direction: event.direction,
        message_type: event.messageType,
        details: event.details,
      };
    }
    case 'radio.log': {
      const log = source as Streamed<RadioLog>;
      return {
        record_id: log.id,
        ran_id: log.ranId,
        event: log.event,
        level: log.level,
        direction: log.direction,
        details: log.details,
      };
    }
    case 'audit': {
      const entry = source as AuditLogEntry;
      return {
        record_id: entry.id,
        level: entry.level,
        actor: entry.actor,
        action: entry.action,
        ip: entry.ip,
        details: entry.details,
      };
    }
  }
}

export type EventStream = ReturnType<typeof createEventStream>;
