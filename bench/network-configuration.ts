// Network configuration benchmark (issue 3, item 9): with 100,000 subscribers in the database, measures
// subscriber pages, single reads and creation through the API, each beside a bare node:http server
// answering a fixed JSON body of the same size under the same load, and times bulk imports.
//
//   npx tsx bench/network-configuration.ts [--duration SECONDS] [--connections N] [--subscribers N]
//
// The service is the real one (src/main.ts on a fresh SQLite file in a temporary directory) in its own
// process; the bare server runs in its own process too; autocannon drives both from this process.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const IMPORT_BATCH = 10_000;
const DEFAULT_CONNECTIONS = 10;
const DEFAULT_SUBSCRIBERS = 100_000;
const WARMUP_SECONDS = 2;

export interface Load {
  durationSeconds: number;
  connections: number;
}

export interface Figures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /**
   * CPU time the server process spent per request, in µs (Linux /proc; absent elsewhere). Unlike req/s it
   * barely depends on what else the machine is doing.
   */
  cpuUsPerRequest?: number;
}

export interface Comparison {
  endpoint: string;
  load: Load;
  responseBytes: number;
  service: Figures;
  bare: Figures;
  ratio: number;
  /** The goal for the ratio, when it sets one. */
  goal?: number;
}

export interface ImportFigures {
  batches: number;
  batchSize: number;
  /** Wall time of each import request, seen from the client, in seconds. */
  seconds: number[];
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

// ---- processes ----

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});

function spawnNode(args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
  children.delete(child);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** A plain node:http server answering every request with the same JSON body of `bytes` bytes. */
const BARE_SERVER = `
const http = require('node:http');
const bytes = Number(process.argv[1]);
const head = '{"result":"';
const body = Buffer.from(head + 'x'.repeat(Math.max(0, bytes - head.length - 2)) + '"}');
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    response.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

interface Server {
  baseUrl: string;
  pid: number;
}

async function withBareServer<T>(bytes: number, work: (server: Server) => Promise<T>): Promise<T> {
  const { child, output } = spawnNode(['-e', BARE_SERVER, String(bytes)]);
  try {
    const port = await new Promise<number>((done, fail) => {
      child.stdout?.once('data', (chunk: Buffer) => done(Number(chunk.toString().trim())));
      child.once('exit', (code) => fail(new Error(`bare server exited with ${code}: ${output()}`)));
    });
    return await work({ baseUrl: `http://127.0.0.1:${port}`, pid: child.pid ?? 0 });
  } finally {
    await stop(child);
  }
}

async function withService<T>(nodeArgs: string[], work: (server: Server) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-bench-network-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const { child, output } = spawnNode([
    ...nodeArgs,
    '--import',
    'tsx',
    'src/main.ts',
    '--db',
    join(dir, 'core.db'),
    '--listen',
    `127.0.0.1:${port}`,
    '--log-level',
    'warn',
  ]);
  try {
    for (let attempt = 0; ; attempt++) {
      if (child.exitCode !== null) throw new Error(`service exited: ${output()}`);
      try {
        if ((await fetch(`${baseUrl}/api/v1/status`)).ok) break;
      } catch {
        if (attempt > 300) throw new Error(`service did not start: ${output()}`);
      }
      await new Promise((done) => setTimeout(done, 100));
    }
    return await work({ baseUrl, pid: child.pid ?? 0 });
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- measuring ----

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? NaN;
}

/**
 * Loads `baseUrl` with `request` (varied per request by `vary`, when given) and fails on any non-2xx.
 * Latencies come from each response: autocannon's own histogram rounds to whole milliseconds.
 */
async function measure(
  baseUrl: string,
  request: Request,
  load: Load,
  vary?: (request: Request) => Request,
): Promise<Figures> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: load.connections,
        duration: load.durationSeconds,
        requests: [
          {
            method: request.method,
            path: request.path,
            headers: request.headers,
            ...(request.body === undefined ? {} : { body: request.body }),
            ...(vary ? { setupRequest: (r: autocannon.Request) => ({ ...r, ...vary(request) }) } : {}),
          },
        ],
      },
      (error: Error | null, outcome) => (error ? fail(error) : done(outcome)),
    );
    instance.on('response', (_client, status, _bytes, responseTime) => {
      if (status >= 200 && status < 300) latencies.push(responseTime);
    });
  });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`${request.method} ${request.path}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  }
  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSecond: result['2xx'] / result.duration,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    requests: result['2xx'],
  };
}

// Linux counts process CPU time in /proc in ticks of 1/100 s (USER_HZ, fixed for user space).
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds the process has used, or undefined without /proc. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // utime and stime are the 14th and 15th fields; the command name before them may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

async function warmMeasure(
  server: Server,
  request: Request,
  load: Load,
  vary?: (request: Request) => Request,
): Promise<Figures> {
  await measure(server.baseUrl, request, { ...load, durationSeconds: WARMUP_SECONDS }, vary);
  const before = cpuSeconds(server.pid);
  const figures = await measure(server.baseUrl, request, load, vary);
  const after = cpuSeconds(server.pid);
  if (before === undefined || after === undefined) return figures;
  return { ...figures, cpuUsPerRequest: ((after - before) * 1e6) / figures.requests };
}

// ---- the scenario ----

const imsiOf = (n: number) => `00101${String(n).padStart(10, '0')}`;
const KEY = '465b5ce8b199b49faa5f0a2ee238a6bc';

function subscriberBody(n: number) {
  return { imsi: imsiOf(n), key: KEY, sequenceNumber: '000000000001', profile_name: 'default' };
}

async function call(
  baseUrl: string,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

export interface RunOptions extends Load {
  subscribers: number;
  /** Extra `node` flags for the service, e.g. `--cpu-prof`. */
  serviceNodeArgs?: string[];
  log?: (line: string) => void;
}

export async function runNetworkConfiguration(
  options: RunOptions,
): Promise<{ rows: Comparison[]; imports: ImportFigures }> {
  const log = options.log ?? (() => undefined);
  const load: Load = { durationSeconds: options.durationSeconds, connections: options.connections };
  return withService(options.serviceNodeArgs ?? [], async (server) => {
    const { baseUrl } = server;
    const init = await call(baseUrl, 'POST', '/api/v1/init', undefined, {
      email: 'bench@example.com',
      password: 'bench-password',
    });
    const session = (JSON.parse(init) as { result: { token: string } }).result.token;
    // An API token does not expire during a long run, as the 15-minute bearer token would.
    const created = await call(baseUrl, 'POST', '/api/v1/users/me/api-tokens', session, { name: 'bench' });
    const token = (JSON.parse(created) as { result: { token: string } }).result.token;
    const headers = { authorization: `Bearer ${token}` };

    log(`seeding ${options.subscribers} subscribers with imports of ${IMPORT_BATCH}`);
    const seconds: number[] = [];
    for (let start = 0; start < options.subscribers; start += IMPORT_BATCH) {
      const count = Math.min(IMPORT_BATCH, options.subscribers - start);
      const body = Array.from({ length: count }, (_, i) => subscriberBody(start + i));
      const began = performance.now();
      await call(baseUrl, 'POST', '/api/v1/subscribers/import', token, body);
      seconds.push((performance.now() - began) / 1000);
    }
    const imports = { batches: seconds.length, batchSize: IMPORT_BATCH, seconds };

    const rows: Comparison[] = [];
    const compare = async (
      endpoint: string,
      request: Request,
      goal: number | undefined,
      vary?: (request: Request) => Request,
    ) => {
      const sample = await call(
        baseUrl,
        request.method,
        request.path,
        token,
        request.body && JSON.parse(request.body),
      );
      const responseBytes = Buffer.byteLength(sample);
      log(`${endpoint}: service (${responseBytes} bytes)`);
      const service = await warmMeasure(server, request, load, vary);
      log(`${endpoint}: bare node:http`);
      const bare = await withBareServer(responseBytes, (bareServer) =>
        warmMeasure(bareServer, request, load, vary),
      );
      const ratio = service.requestsPerSecond / bare.requestsPerSecond;
      rows.push({
        endpoint,
        load,
        responseBytes,
        service,
        bare,
        ratio,
        ...(goal === undefined ? {} : { goal }),
      });
    };

    // Not a network route: any authenticated request costs at least this much (auth, framework, socket).
    await compare(
      'GET /api/v1/users/me (floor: authentication only)',
      { method: 'GET', path: '/api/v1/users/me', headers },
      undefined,
    );
    const total = options.subscribers;
    const lastPage = Math.ceil(total / 100);
    for (const page of [1, Math.ceil(lastPage / 2), lastPage]) {
      await compare(
        `GET /api/v1/subscribers?per_page=100&page=${page}`,
        { method: 'GET', path: `/api/v1/subscribers?per_page=100&page=${page}`, headers },
        0.25,
      );
    }
    await compare(
      'GET /api/v1/subscribers/{imsi} (random IMSI)',
      { method: 'GET', path: `/api/v1/subscribers/${imsiOf(Math.floor(total / 2))}`, headers },
      0.5,
      (request) => ({ ...request, path: `/api/v1/subscribers/${imsiOf(Math.floor(Math.random() * total))}` }),
    );
    // Each request creates a new subscriber: IMSIs continue after the seeded ones (and after the sample).
    let next = total + 1;
    await compare(
      'POST /api/v1/subscribers (subscribers/s)',
      {
        method: 'POST',
        path: '/api/v1/subscribers',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(subscriberBody(total)),
      },
      undefined,
      (request) => ({ ...request, body: JSON.stringify(subscriberBody(next++)) }),
    );
    return { rows, imports };
  });
}

// ---- reporting ----

const fixed = (value: number, digits: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (value: number) => `${fixed(value, value < 10 ? 2 : 1)} ms`;
const us = (value: number | undefined) => (value === undefined ? 'n/a' : `${fixed(value, 0)} µs`);

export function importSummary(imports: ImportFigures): string {
  const slowest = Math.max(...imports.seconds);
  return (
    `Bulk import, ${imports.batches} imports of ${imports.batchSize} subscribers (JSON), seconds each as the ` +
    `client sees it: ${imports.seconds.map((s) => fixed(s, 2)).join(', ')}; slowest ${fixed(slowest, 2)} s ` +
    `(${fixed(imports.batchSize / slowest, 0)} subscribers/s; goal: under 3 s).`
  );
}

export function report(result: { rows: Comparison[]; imports: ImportFigures }, load: Load): string {
  const lines = [
    `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ` +
      `${loadavg()
        .map((value) => fixed(value, 1))
        .join(' ')} at the end; ${load.connections} connections, ` +
      `${load.durationSeconds} s per measurement after a ${WARMUP_SECONDS} s warm-up. ratio = req/s over ` +
      'bare req/s; CPU ratio = bare CPU per request over service CPU per request.',
    '',
    '| Endpoint | Body | req/s | p50 | p99 | bare req/s | bare p50 | bare p99 | ratio | goal | CPU/req | bare CPU/req | CPU ratio |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...result.rows.map((row) =>
      [
        '',
        row.endpoint,
        `${row.responseBytes} B`,
        fixed(row.service.requestsPerSecond, 0),
        ms(row.service.p50Ms),
        ms(row.service.p99Ms),
        fixed(row.bare.requestsPerSecond, 0),
        ms(row.bare.p50Ms),
        ms(row.bare.p99Ms),
        `${fixed(row.ratio * 100, 0)}%`,
        row.goal === undefined ? '' : `≥ ${fixed(row.goal * 100, 0)}%`,
        us(row.service.cpuUsPerRequest),
        us(row.bare.cpuUsPerRequest),
        row.service.cpuUsPerRequest && row.bare.cpuUsPerRequest
          ? `${fixed((row.bare.cpuUsPerRequest / row.service.cpuUsPerRequest) * 100, 0)}%`
          : 'n/a',
        '',
      ]
        .join(' | ')
        .trim(),
    ),
    '',
    importSummary(result.imports),
  ];
  return lines.join('\n');
}

/**
 * The suite entry for `npm run bench` (bench/run.ts): the same measurements with the default sizes; the
 * rows are returned, the import timings go to the log.
 */
export async function run(context: {
  durationSeconds: number;
  serviceNodeArgs?: string[];
  log: (line: string) => void;
}): Promise<Comparison[]> {
  const result = await runNetworkConfiguration({
    durationSeconds: context.durationSeconds,
    connections: DEFAULT_CONNECTIONS,
    subscribers: DEFAULT_SUBSCRIBERS,
    serviceNodeArgs: context.serviceNodeArgs,
    log: context.log,
  });
  context.log(importSummary(result.imports));
  return result.rows;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: String(DEFAULT_CONNECTIONS) },
      subscribers: { type: 'string', default: String(DEFAULT_SUBSCRIBERS) },
    },
    strict: true,
  });
  const options: RunOptions = {
    durationSeconds: Number(values.duration),
    connections: Number(values.connections),
    subscribers: Number(values.subscribers),
    log: (line) => process.stderr.write(`${line}\n`),
  };
  for (const [name, value] of Object.entries(options)) {
    if (typeof value === 'number' && (!Number.isInteger(value) || value < 1)) {
      throw new Error(`--${name} must be a positive integer`);
    }
  }
  const result = await runNetworkConfiguration(options);
  const text = report(result, options);
  // The raw figures, for comparing runs; .bench/ is not versioned.
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  writeFileSync(join(ROOT, '.bench', 'network-configuration.json'), JSON.stringify(result, null, 2));
  process.stdout.write(`${text}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
    process.exit(1);
  });
}
