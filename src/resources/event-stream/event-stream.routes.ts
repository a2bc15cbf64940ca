import type { App } from '../../http/app-types.ts';
import { ErrorBody, TextResponse } from '../../http/schemas.ts';
import { ForbiddenError, InvalidError, OverloadedError } from '../../errors.ts';
import { principalOf } from '../../http/authentication.ts';
import { PERMISSIONS } from '../../http/permissions.ts';
import {
  STREAM_KINDS,
  type EventStream,
  type StreamClient,
  type StreamFilter,
  type StreamKind,
} from './event-stream.ts';
import { EventStreamQuery } from './event-stream.schema.ts';

export interface EventStreamLimits {
  /** Clients streaming at once; one more is answered 503. */
  maxClients: number;
  /** Bytes a client may leave unread before it is cut. */
  maxBufferedBytes: number;
  /** A comment line this often keeps proxies and idle timers from closing a quiet stream. */
  heartbeatMs: number;
}

const DEFAULT_EVENT_STREAM_LIMITS: EventStreamLimits = {
  maxClients: 256,
  maxBufferedBytes: 1 << 20,
  heartbeatMs: 15_000,
};

const KNOWN = new Set<string>(STREAM_KINDS);

function kindsOf(text: string | undefined): ReadonlySet<StreamKind> | undefined {
  if (text === undefined) return undefined;
  const kinds = text.split(',').map((k) => k.trim());
  const unknown = kinds.filter((k) => !KNOWN.has(k));
  if (unknown.length > 0 || kinds.length === 0)
    throw new InvalidError(
      `kinds: unknown kind ${JSON.stringify(unknown[0] ?? '')}; known: ${STREAM_KINDS.join(', ')}`,
    );
  return new Set(kinds as StreamKind[]);
}

function lastEventIdOf(header: string | string[] | undefined, query: string | undefined): number | undefined {
  const text = query ?? (Array.isArray(header) ? header[0] : header);
  if (text === undefined || text === '') return undefined;
  if (!/^[0-9]{1,15}$/.test(text)) throw new InvalidError('Last-Event-ID must be an event id (digits)');
  return Number(text);
}

export function eventStreamRoutes(deps: { stream: EventStream; limits?: Partial<EventStreamLimits> }) {
  const limits = { ...DEFAULT_EVENT_STREAM_LIMITS, ...deps.limits };
  const { stream } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/events/stream',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: ['radios'],
          summary: "The network's events as they happen (Server-Sent Events)",
          description:
            'Each event is `id`, `event` (its kind) and `data` (JSON with `kind`, `timestamp` and the fields ' +
            'of its kind). NAS and NGAP messages and radio logs come as they are recorded, with the ' +
            '`record_id` that opens them; audit log entries come as `audit` to the roles that read the audit log. Resume with the Last-Event-ID header (or `last_event_id`): events still in the ' +
            'window of the last 1,024 follow; when some left it, a `gap` event comes first. A comment line ' +
            'every 15 s keeps a quiet stream open; a client that leaves 1 MiB unread is cut.',
          querystring: EventStreamQuery,
          response: {
            200: TextResponse('Server-Sent Events', 'text/event-stream'),
            400: ErrorBody,
            503: ErrorBody,
          },
        },
      },
      async (request, reply) => {
        const { radio, imsi, kinds, last_event_id: lastEventIdQuery } = request.query;
        // The audit log's entries go only to the roles that may read it (GET /api/v1/logs/audit).
        const audit = PERMISSIONS['audit:read'].includes(principalOf(request).roleId);
        const wanted = kindsOf(kinds);
        if (wanted?.has('audit') && !audit)
          throw new ForbiddenError('the audit kind needs audit:read (the admin role)');
        const filter: StreamFilter = {
          ...(radio === undefined ? {} : { radio }),
          ...(imsi === undefined ? {} : { imsi }),
          ...(wanted === undefined ? {} : { kinds: wanted }),
          audit,
        };
        const lastId = lastEventIdOf(request.headers['last-event-id'], lastEventIdQuery);
        if (stream.clientCount() >= limits.maxClients)
          throw new OverloadedError('too many event stream clients; try again later', 5);

        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          'x-accel-buffering': 'no',
        });
        raw.write(`retry: 2000\n\n`);
        if (lastId !== undefined) {
          const replay = stream.replay(lastId, filter);
          if (replay.gap)
            raw.write(`event: gap\ndata: ${JSON.stringify({ after: lastId, next: stream.nextId() })}\n\n`);
          for (const frame of replay.frames) raw.write(frame);
        }
        const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), limits.heartbeatMs);
        heartbeat.unref();
        const client: StreamClient = {
          filter,
          // The stream hands over the frames of many events at once (event-stream.ts, `unwritten`).
          deliver(frames) {
            if (raw.writableLength + frames.length > limits.maxBufferedBytes) return false;
            if (!raw.destroyed) raw.write(frames);
            return true;
          },
          end(reason) {
            clearInterval(heartbeat);
            // A slow client is cut at once; on stop the stream ends cleanly so clients reconnect later.
            if (reason === 'slow') raw.destroy();
            else raw.end();
          },
        };
        stream.add(client);
        raw.on('close', () => {
          clearInterval(heartbeat);
          stream.remove(client);
        });
      },
    );
  };
}
