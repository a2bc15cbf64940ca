import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../http/app-types.ts';
import { ErrorBody, FileResponse, TextResponse } from '../http/schemas.ts';
import type { Diagnostics } from './diagnostics.ts';
import { MAX_TRACE_EVENTS, type Profiler } from './profiler.ts';

const BASE = '/api/v1/pprof';

const CpuProfileQuery = Type.Object({
  seconds: Type.Integer({
    minimum: 1,
    maximum: 300,
    default: 30,
    description: 'How long to sample, in seconds',
    'x-error': 'must be an integer from 1 to 300',
  }),
});

const TraceQuery = Type.Object({
  seconds: Type.Integer({
    minimum: 1,
    maximum: 60,
    default: 1,
    description: 'How long to trace, in seconds (a trace holds every event, so it is kept short)',
    'x-error': 'must be an integer from 1 to 60',
  }),
});

const PAGES: { path: string; about: string }[] = [
  { path: 'allocs', about: 'heap sampling profile (in Node.js the same live-object sample as heap)' },
  { path: 'block', about: 'event-loop delay histogram (Node.js has no blocking profile)' },
  { path: 'cmdline', about: 'command line of the program, NUL-separated' },
  { path: 'goroutine', about: 'JavaScript stacks and the handles keeping the event loop alive' },
  { path: 'heap', about: 'sampling of live-object allocations (pprof protobuf)' },
  { path: 'mutex', about: 'event-loop delay histogram (Node.js has no mutex profile)' },
  { path: 'profile?seconds=30', about: 'CPU profile (pprof protobuf); seconds 1..300' },
  { path: 'threadcreate', about: 'native threads and worker threads of the process' },
  {
    path: 'trace?seconds=1',
    about: 'execution trace (Chrome trace-event JSON, opens in Perfetto); seconds 1..60',
  },
  { path: 'symbol', about: 'symbol lookup (profiles are already symbolised)' },
];

const INDEX_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>PMN Core profiling</title></head>
<body>
<h1>PMN Core profiling</h1>
<p>Every path needs an admin's credentials in <code>Authorization: Bearer &lt;token&gt;</code>; fetch them with
curl and an API token, then open them with <code>go tool pprof</code> or Perfetto (see docs/operations.md).</p>
<table>
${PAGES.map(({ path, about }) => `<tr><td><a href="${BASE}/${path}">${path}</a></td><td>${about}</td></tr>`).join('\n')}
</table>
</body>
</html>
`;

/** An AbortSignal that fires when the client goes away before its answer has been sent. */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

function sendProfile(reply: FastifyReply, filename: string, profile: Buffer): FastifyReply {
  return reply
    .type('application/octet-stream')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(profile);
}

/**
 * The pprof-compatible paths (decisions section 13), admin only. Paths answering with pprof protobuf
 * open in `go tool pprof`; the others are text, as Go's `debug=1` pages are.
 */
export function pprofRoutes(deps: { profiler: Profiler; diagnostics: Diagnostics }) {
  const { profiler, diagnostics } = deps;
  const config = { permission: 'profiling' } as const;
  const tags = ['profiling'];

  return async (app: App): Promise<void> => {
    // pprof posts symbol requests as application/octet-stream; these routes read and ignore any body.
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    app.get(
      `${BASE}/`,
      {
        config,
        schema: {
          tags,
          summary: 'HTML page listing the profiles',
          response: { 200: TextResponse('Index', 'text/html') },
        },
      },
      async (_request, reply) => reply.type('text/html; charset=utf-8').send(INDEX_PAGE),
    );

    app.get(
      `${BASE}/profile`,
      {
        config,
        schema: {
          tags,
          summary: 'CPU profile in pprof protobuf (gzip)',
          description:
            'Samples the JavaScript thread for `seconds` (default 30) at 100 Hz; sample types count, wall ' +
            'time and CPU time. One CPU profile or trace runs at a time (409 otherwise); a client that ' +
            'disconnects ends the profile early.',
          querystring: CpuProfileQuery,
          response: {
            200: FileResponse('pprof protobuf, gzip-compressed', 'application/octet-stream'),
            409: ErrorBody,
          },
        },
      },
      async (request, reply) =>
        sendProfile(
          reply,
          'profile.pb.gz',
          await profiler.cpuProfile(request.query.seconds, clientGone(reply)),
        ),
    );

    for (const path of ['heap', 'allocs'] as const) {
      app.get(
        `${BASE}/${path}`,
        {
          config,
          schema: {
            tags,
            summary: 'Heap sampling profile in pprof protobuf (gzip)',
            description:
              'Objects still alive among the allocations sampled (one per 512 KiB) since the service ' +
              'started; sample types inuse_objects and inuse_space. `allocs` and `heap` serve the same ' +
              'profile: V8 keeps no record of freed allocations.',
            response: { 200: FileResponse('pprof protobuf, gzip-compressed', 'application/octet-stream') },
          },
        },
        async (_request, reply) => sendProfile(reply, `${path}.pb.gz`, await profiler.heapProfile()),
      );
    }

    app.get(
      `${BASE}/trace`,
      {
        config,
        schema: {
          tags,
          summary: 'Execution trace in Chrome trace-event JSON (opens in Perfetto)',
          description:
            'V8, Node.js async operations and CPU samples for `seconds` (default 1), or until it holds ' +
            `${MAX_TRACE_EVENTS} events. One CPU profile or trace runs at a time (409 otherwise); a client ` +
            'that disconnects ends the trace early.',
          querystring: TraceQuery,
          response: { 200: FileResponse('Chrome trace-event JSON', 'application/json'), 409: ErrorBody },
        },
      },
      async (request, reply) => {
        const trace = await profiler.trace(request.query.seconds, clientGone(reply));
        return reply
          .type('application/json; charset=utf-8')
          .header('content-disposition', 'attachment; filename="trace.json"')
          .send(trace);
      },
    );

    // pprof asks whether symbols exist before symbolising; ours are in the profiles already.
    const SYMBOLS = 'num_symbols: 1\n';
    const textPages: { method: 'GET' | 'POST'; paths: string[]; summary: string; body: () => string }[] = [
      {
        method: 'GET',
        paths: ['goroutine'],
        summary: 'JavaScript stacks, active resources and libuv handles, as text',
        body: () => diagnostics.stacks(),
      },
      {
        method: 'GET',
        paths: ['block', 'mutex'],
        summary: 'Event-loop delay histogram since the start, as text',
        body: () => diagnostics.eventLoopDelay(),
      },
      {
        method: 'GET',
        paths: ['threadcreate'],
        summary: 'Native threads and worker threads, as text',
        body: () => diagnostics.threads(),
      },
      {
        method: 'GET',
        paths: ['cmdline'],
        summary: 'Command line, NUL-separated',
        body: () => diagnostics.commandLine(),
      },
      {
        method: 'GET',
        paths: ['symbol'],
        summary: 'Symbol table presence (`num_symbols: 1`)',
        body: () => SYMBOLS,
      },
      {
        method: 'POST',
        paths: ['symbol'],
        summary: 'Symbol lookup for program counters: resolves none, profiles are already symbolised',
        body: () => SYMBOLS,
      },
    ];
    for (const { method, paths, summary, body } of textPages) {
      for (const path of paths) {
        app.route({
          method,
          url: `${BASE}/${path}`,
          config,
          schema: { tags, summary, response: { 200: TextResponse(summary) } },
          handler: async (_request, reply) => reply.type('text/plain; charset=utf-8').send(body()),
        });
      }
    }
  };
}
