import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from '../src/node-flags.ts';

/** The repository root: children start from here so `src/main.ts`, `bench/` and `tsx` resolve. */
export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** How hard and how long one measurement loads its target. */
export interface Load {
  durationSeconds: number;
  connections: number;
}

/** What every suite receives from `bench/run.ts`. */
export interface SuiteContext {
  /** Seconds per measurement (`--duration`). */
  durationSeconds: number;
  /** Extra `node` flags for the service, e.g. `--cpu-prof` when `--profile` is given. */
  serviceNodeArgs: string[];
  /** Progress lines; they go to stderr so the table on stdout stays clean. */
  log: (line: string) => void;
}

/** A suite is a module exporting `run`: it starts what it needs and returns one row per endpoint. */
export type Suite = (context: SuiteContext) => Promise<Comparison[]>;

/** One HTTP request as autocannon sends it, repeated for the whole measurement. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** JSON-encoded and sent with `content-type: application/json`. */
  body?: unknown;
  /**
   * When set, each request sent under load takes its path and/or body from this instead (a random IMSI to
   * read, a new IMSI to create); `path` and `body` above are what the single sample request sends.
   */
  vary?: () => { path?: string; body?: unknown };
}

export interface Figures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** CPU time the server process (all its threads) spent per request, in µs; absent where /proc is not. */
  cpuUsPerRequest?: number;
}

/** One measured row: what to send, and the goal for its ratio when it sets one. */
export interface Endpoint {
  name: string;
  request: RequestSpec;
  goal?: number;
}

/** The service and the bare baseline under the same load; the ratio is service req/s over bare req/s. */
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

/** A running service child process. */
export interface Service {
  baseUrl: string;
  pid: number;
  /** Calls the service once and returns the parsed JSON body; throws on a non-2xx status. */
  call: <T = unknown>(request: RequestSpec) => Promise<T>;
}

const WARMUP_SECONDS = 1;
/** Each measurement is split into this many alternating turns of the service and the bare server. */
const ROUNDS = 2;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/**
 * Children still running. They get SIGTERM on any exit path of this process (an uncaught failure,
 * Ctrl-C, `kill`), so a broken run never leaves a server behind.
 */
const liveChildren = new Set<ChildProcess>();
/** Temporary directories still in use, removed on the same paths. */
const liveDirectories = new Set<string>();
process.on('exit', () => {
  for (const child of liveChildren) child.kill('SIGTERM');
  for (const dir of liveDirectories) rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(128 + constants.signals[signal]));
}

/** A child process whose output is kept (the last few kB) for error messages. */
interface Child {
  process: ChildProcess;
  output: () => string;
}

function spawnChild(nodeArgs: string[]): Child {
  const child = spawn(process.execPath, nodeArgs, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  liveChildren.add(child);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { process: child, output: () => output };
}

/** SIGTERM, then SIGKILL if the child has not exited after a while; resolves once it has exited. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
  liveChildren.delete(child);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', done);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

function requestInit(request: RequestSpec): {
  method: string;
  headers: Record<string, string>;
  body?: string;
} {
  const headers: Record<string, string> = { ...request.headers };
  if (request.body === undefined) return { method: request.method, headers };
  headers['content-type'] = 'application/json';
  return { method: request.method, headers, body: JSON.stringify(request.body) };
}

async function fetchOnce(baseUrl: string, request: RequestSpec): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}${request.path}`, requestInit(request));
  return { status: response.status, text: await response.text() };
}

async function waitForStatus(baseUrl: string, child: Child): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) {
      throw new Error(`service exited with ${child.process.exitCode} before answering:\n${child.output()}`);
    }
    try {
      if ((await fetchOnce(baseUrl, { method: 'GET', path: '/api/v1/status' })).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(
    `service did not answer GET /api/v1/status within ${START_TIMEOUT_MS} ms:\n${child.output()}`,
  );
}

/**
 * Starts the real service (`src/main.ts`) on a free port with a fresh database in a temporary directory,
 * runs `work` against it, and stops it with SIGTERM afterwards, also when `work` throws.
 */
export async function withService<T>(
  options: { nodeArgs?: string[]; log?: (line: string) => void },
  work: (service: Service) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-bench-'));
  liveDirectories.add(dir);
  const configPath = join(dir, 'config.yaml');
  // A load test logs in far more often than a person could; the limiter would answer 429 otherwise.
  writeFileSync(configPath, 'login_rate_limit: 100000000\n');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const args = [
    ...SERVICE_NODE_FLAGS,
    ...(options.nodeArgs ?? []),
    '--import',
    'tsx',
    'src/main.ts',
    '--config',
    configPath,
    '--listen',
    `127.0.0.1:${port}`,
    '--db',
    join(dir, 'core.db'),
    '--log-level',
    'warn',
  ];
  options.log?.(`starting service: node ${args.join(' ')}`);
  const child = spawnChild(args);
  try {
    await waitForStatus(baseUrl, child);
    const call = async <R>(request: RequestSpec): Promise<R> => {
      const { status, text } = await fetchOnce(baseUrl, request);
      if (status < 200 || status > 299) {
        throw new Error(`${request.method} ${request.path} answered ${status}: ${text}`);
      }
      return JSON.parse(text) as R;
    };
    return await work({ baseUrl, pid: child.process.pid ?? 0, call });
  } finally {
    await stopChild(child.process);
    if (child.process.exitCode !== 0) {
      options.log?.(
        `service exited with ${child.process.exitCode ?? child.process.signalCode}:\n${child.output()}`,
      );
    }
    rmSync(dir, { recursive: true, force: true });
    liveDirectories.delete(dir);
  }
}

/**
 * Starts `bench/bare-server.ts` (a `node:http` server answering a fixed JSON body of `bytes` bytes) in its
 * own process, like the service, runs `work` against its base URL and stops it.
 */
export async function withBareServer<T>(
  bytes: number,
  work: (server: { baseUrl: string; pid: number }) => Promise<T>,
): Promise<T> {
  const child = spawnChild(['--import', 'tsx', 'bench/bare-server.ts', String(bytes)]);
  try {
    const port = await new Promise<number>((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`bare server did not start:\n${child.output()}`)),
        START_TIMEOUT_MS,
      );
      child.process.stdout?.once('data', (chunk: Buffer) => {
        clearTimeout(timer);
        done(Number(chunk.toString().trim()));
      });
      child.process.once('exit', (code) =>
        fail(new Error(`bare server exited with ${code}:\n${child.output()}`)),
      );
    });
    return await work({ baseUrl: `http://127.0.0.1:${port}`, pid: child.process.pid ?? 0 });
  } finally {
    await stopChild(child.process);
  }
}

/** The value below which `fraction` of the sorted samples lie (nearest rank). */
function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? NaN;
}

// Linux reports process CPU time in /proc in clock ticks of 1/100 s (USER_HZ, fixed for user space).
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds a process (all its threads) has used so far; undefined without /proc. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: utime is the 12th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** What one autocannon run against one server produced. */
interface Sample {
  requests: number;
  seconds: number;
  /** Milliseconds, one per 2xx response. */
  latencies: number[];
  /** CPU seconds the server process used during the run. */
  cpuSeconds: number | undefined;
}

/**
 * Runs autocannon against a server with `request` and fails when any response is not 2xx. Latencies are
 * collected from each response rather than autocannon's histogram, which rounds to whole milliseconds and
 * would show every sub-millisecond read as 0.
 */
async function sample(
  server: { baseUrl: string; pid: number },
  request: RequestSpec,
  options: Load,
): Promise<Sample> {
  const { method, headers, body } = requestInit(request);
  const latencies: number[] = [];
  const cpuBefore = cpuSeconds(server.pid);
  const { vary } = request;
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(
      {
        url: `${server.baseUrl}${request.path}`,
        method: method as autocannon.Request['method'],
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(vary
          ? {
              requests: [
                {
                  setupRequest: (sent: autocannon.Request) => {
                    const next = vary();
                    return {
                      ...sent,
                      ...(next.path !== undefined ? { path: next.path } : {}),
                      ...(next.body !== undefined ? { body: JSON.stringify(next.body) } : {}),
                    };
                  },
                },
              ],
            }
          : {}),
        connections: options.connections,
        duration: options.durationSeconds,
      },
      (error: Error | null, outcome) => (error ? fail(error) : done(outcome)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode <= 299) latencies.push(responseTime);
    });
  });
  const cpuAfter = cpuSeconds(server.pid);
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(
      `${request.method} ${request.path}: ${result.errors} errors, ${result.non2xx} non-2xx responses`,
    );
  }
  return {
    requests: result['2xx'],
    seconds: result.duration,
    latencies,
    cpuSeconds: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
  };
}

function figures(samples: Sample[]): Figures {
  const requests = samples.reduce((sum, one) => sum + one.requests, 0);
  const seconds = samples.reduce((sum, one) => sum + one.seconds, 0);
  const sorted = Float64Array.from(samples.flatMap((one) => one.latencies)).sort();
  const cpu = samples.map((one) => one.cpuSeconds);
  const result: Figures = {
    requestsPerSecond: requests / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    requests,
  };
  if (requests > 0 && cpu.every((value) => value !== undefined)) {
    result.cpuUsPerRequest = (cpu.reduce((sum, value) => sum + value, 0) * 1e6) / requests;
  }
  return result;
}

/**
 * Measures one endpoint of the service and a bare server answering a body of the same byte size under
 * the same load. After a short unmeasured warm-up of each (so the JIT has compiled the hot paths), they
 * take turns in rounds: whatever else runs on the machine then weighs on both alike. They never run at
 * the same time, so they do not compete with each other for the CPU.
 */
export async function compare(
  service: Service,
  endpoint: Endpoint,
  options: Load,
  log: (line: string) => void = () => undefined,
): Promise<Comparison> {
  const { name, request } = endpoint;
  const first = await fetchOnce(service.baseUrl, request);
  if (first.status < 200 || first.status > 299)
    throw new Error(`${name} answered ${first.status}: ${first.text}`);
  const responseBytes = Buffer.byteLength(first.text);
  const warmup = { ...options, durationSeconds: WARMUP_SECONDS };
  const round = { ...options, durationSeconds: options.durationSeconds / ROUNDS };

  log(
    `${name}: ${options.connections} connections, ${options.durationSeconds} s each on the service and on a bare server answering ${responseBytes} bytes`,
  );
  return withBareServer(responseBytes, async (bare) => {
    await sample(service, request, warmup);
    await sample(bare, request, warmup);
    const serviceSamples: Sample[] = [];
    const bareSamples: Sample[] = [];
    for (let turn = 0; turn < ROUNDS; turn += 1) {
      serviceSamples.push(await sample(service, request, round));
      bareSamples.push(await sample(bare, request, round));
    }
    const serviceFigures = figures(serviceSamples);
    const bareFigures = figures(bareSamples);
    return {
      endpoint: name,
      load: options,
      responseBytes,
      service: serviceFigures,
      bare: bareFigures,
      ratio: serviceFigures.requestsPerSecond / bareFigures.requestsPerSecond,
      ...(endpoint.goal !== undefined ? { goal: endpoint.goal } : {}),
    };
  });
}
