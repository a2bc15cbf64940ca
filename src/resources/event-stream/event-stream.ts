import type { NasMessageEvent, NetworkEventMap, NetworkEvents } from '../../network/events/network-events.ts';

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
] as const;

export type StreamKind = (typeof STREAM_KINDS)[number];

/** One event as streamed: its id (increasing, for `Last-Event-ID`), kind, and whom it is about. */
export interface StreamEvent {
  readonly id: number;
  readonly kind: StreamKind;
  /** The radio it is about (radio id, or the radio name a NAS message's details give), if any. */
  readonly radio: string | undefined;
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
}

export const matches = (event: StreamEvent, filter: StreamFilter): boolean =>
  (filter.kinds === undefined || filter.kinds.has(event.kind)) &&
  (filter.radio === undefined || event.radio === filter.radio) &&
  (filter.imsi === undefined || event.imsi === filter.imsi);

/** A connected client: `deliver` gets each matching event's frame and says whether the client keeps up. */
export interface StreamClient {
  readonly filter: StreamFilter;
  deliver(frame: string): boolean;
  /** The client is cut (it fell behind) or the stream closes. */
  end(reason: 'slow' | 'closing'): void;
}

/** What a resumed client gets: the frames of the events after its last one; `gap` when some left the window. */
export interface Replay {
  gap: boolean;
  frames: readonly string[];
}

/** Rejects of 5GMM procedures a device sees as "could not attach" (TS 24.501 8.2). */
const REJECTS = new Set(['Registration Reject', 'Service Reject', 'Authentication Reject']);

/**
 * The network's live events for API clients (GET /api/v1/events/stream): one subscription per network
 * event name, each event numbered and serialised once, fanned out to the clients whose filter it
 * matches, and kept in a window of the last `window` events so a client that reconnects with
 * `Last-Event-ID` misses nothing inside it. A client that cannot take an event (its buffer is full) is
 * cut, so a slow client never slows the network functions that emit.
 */
export function createEventStream(deps: {
  events: Pick<NetworkEvents, 'on'>;
  /** Milliseconds since the epoch (the core's clock). */
  now: () => number;
  window?: number;
  onCut?: () => void;
}) {
  const windowSize = deps.window ?? 1024;
  // A ring of the last `windowSize` events: `ring[(id - 1) % windowSize]` holds event `id`.
  const ring: (Entry | undefined)[] = new Array<Entry | undefined>(windowSize);
  const clients = new Set<StreamClient>();
  let nextId = 1;

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
    radio: string | undefined,
    imsi: string | undefined,
    source: object,
  ): void {
    const id = nextId++;
    const entry: Entry = { id, kind, radio, imsi, at: deps.now(), source, frame: undefined };
    ring[(id - 1) % windowSize] = entry;
    if (clients.size === 0) return;
    for (const client of clients) {
      if (!matches(entry, client.filter)) continue;
      if (!client.deliver(frameOf(entry))) {
        clients.delete(client);
        deps.onCut?.();
        client.end('slow');
      }
    }
  }

  const unsubscribe = [
    // Rare events whose payload objects live on in the network's state: their fields are taken now.
    deps.events.on('radio.connected', (r) =>
      publish('radio.connected', r.id, undefined, {
        radio: r.id,
        name: r.name,
        address: r.address,
        ran_node_type: r.ranNodeType,
      }),
    ),
    deps.events.on('radio.disconnected', (r) => publish('radio.disconnected', r.id, undefined, r)),
    deps.events.on('ue.registered', (e) => publish('ue.registered', e.radio, e.supi, e)),
    deps.events.on('ue.deregistered', (e) => publish('ue.deregistered', undefined, e.supi, e)),
    deps.events.on('session.established', ({ supi, session }) =>
      publish('session.established', undefined, supi, {
        imsi: supi,
        pdu_session_id: session.id,
        data_network: session.dataNetwork,
        ipv4_address: session.ipv4Address,
        ipv6_prefix: session.ipv6Prefix,
      }),
    ),
    deps.events.on('session.released', (e) => publish('session.released', undefined, e.supi, e)),
    deps.events.on('nas.message', (m) => {
      const radio = typeof m.details.radio === 'string' ? m.details.radio : undefined;
      publish('nas.message', radio, m.imsi, m);
      if (m.direction === 'outbound' && REJECTS.has(m.event)) publish('ue.rejected', radio, m.imsi, m);
    }),
  ];

  return {
    add(client: StreamClient): void {
      clients.add(client);
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

    /** Ends every client and stops listening (the service stops). */
    close(): void {
      for (const stop of unsubscribe) stop();
      for (const client of clients) client.end('closing');
      clients.clear();
    },
  };
}

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
    case 'nas.message': {
      const m = source as NasMessageEvent;
      return { imsi: m.imsi, direction: m.direction, message: m.event, level: m.level, details: m.details };
    }
    case 'ue.rejected': {
      const m = source as NasMessageEvent;
      return { imsi: m.imsi, message: m.event, details: m.details };
    }
  }
}

export type EventStream = ReturnType<typeof createEventStream>;
