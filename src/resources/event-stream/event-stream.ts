import type { NetworkEvents } from '../../network/events/network-events.ts';

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

/** One event as streamed: its id (increasing, for `Last-Event-ID`), kind, time, whom it is about, and its frame. */
export interface StreamEvent {
  readonly id: number;
  readonly kind: StreamKind;
  /** The radio it is about (radio id, or the radio name a NAS message's details give), if any. */
  readonly radio: string | undefined;
  /** The subscriber's IMSI it is about, if any (empty for a device the core cannot map). */
  readonly imsi: string | undefined;
  /** The Server-Sent Events frame, serialised once for every client. */
  readonly frame: string;
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

/** What a resumed client gets: the events after its last one, or `gap` when they left the window. */
export type Replay =
  { gap: false; events: readonly StreamEvent[] } | { gap: true; events: readonly StreamEvent[] };

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
  now: () => Date;
  window?: number;
  onCut?: () => void;
}) {
  const windowSize = deps.window ?? 1024;
  const recent: StreamEvent[] = [];
  const clients = new Set<StreamClient>();
  let nextId = 1;

  function publish(kind: StreamKind, about: { radio?: string; imsi?: string }, data: object): void {
    const id = nextId++;
    const body = JSON.stringify({ kind, timestamp: deps.now().toISOString(), ...data });
    const event: StreamEvent = {
      id,
      kind,
      radio: about.radio,
      imsi: about.imsi,
      frame: `id: ${id}\nevent: ${kind}\ndata: ${body}\n\n`,
    };
    recent.push(event);
    if (recent.length > windowSize) recent.shift();
    for (const client of clients) {
      if (!matches(event, client.filter)) continue;
      if (!client.deliver(event.frame)) {
        clients.delete(client);
        deps.onCut?.();
        client.end('slow');
      }
    }
  }

  const unsubscribe = [
    deps.events.on('radio.connected', (r) =>
      publish(
        'radio.connected',
        { radio: r.id },
        { radio: r.id, name: r.name, address: r.address, ran_node_type: r.ranNodeType },
      ),
    ),
    deps.events.on('radio.disconnected', (r) =>
      publish('radio.disconnected', { radio: r.id }, { radio: r.id }),
    ),
    deps.events.on('ue.registered', (e) =>
      publish('ue.registered', { radio: e.radio, imsi: e.supi }, { imsi: e.supi, radio: e.radio }),
    ),
    deps.events.on('ue.deregistered', (e) => publish('ue.deregistered', { imsi: e.supi }, { imsi: e.supi })),
    deps.events.on('session.established', (e) =>
      publish(
        'session.established',
        { imsi: e.supi },
        {
          imsi: e.supi,
          pdu_session_id: e.session.id,
          data_network: e.session.dataNetwork,
          ipv4_address: e.session.ipv4Address,
          ipv6_prefix: e.session.ipv6Prefix,
        },
      ),
    ),
    deps.events.on('session.released', (e) =>
      publish('session.released', { imsi: e.supi }, { imsi: e.supi, pdu_session_id: e.pduSessionId }),
    ),
    deps.events.on('nas.message', (m) => {
      const radio = typeof m.details.radio === 'string' ? m.details.radio : undefined;
      const about = { imsi: m.imsi, ...(radio === undefined ? {} : { radio }) };
      const data = {
        imsi: m.imsi,
        direction: m.direction,
        message: m.event,
        level: m.level,
        details: m.details,
      };
      publish('nas.message', about, data);
      if (m.direction === 'outbound' && REJECTS.has(m.event))
        publish('ue.rejected', about, { imsi: m.imsi, message: m.event, details: m.details });
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

    /** The events after `lastId` that match `filter`; `gap` when some after it have left the window. */
    replay(lastId: number, filter: StreamFilter): Replay {
      const oldest = recent[0]?.id ?? nextId;
      const events = recent.filter((e) => e.id > lastId && matches(e, filter));
      return { gap: lastId + 1 < oldest, events };
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

export type EventStream = ReturnType<typeof createEventStream>;
