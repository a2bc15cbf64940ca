// The per-request floor measured from outside with wrk (issue 12 item 9): wrk saturates a bare node:http
// server on this machine where autocannon, itself JavaScript, cannot, so these ratios are the honest ones.
// In one run, the service (src/main.ts, started as `npm start` starts it) and a bare node:http server
// answering a body of the same byte size (bench/bare-server.ts) each get the same wrk load, turn about:
// the authenticated read (GET /api/v1/users/me with an API token), a page of 100 subscribers and a single
// subscriber read (a random IMSI per request), with 100,000 subscribers in the database.
//
//   npx tsx bench/http-wrk.ts [--seconds N] [--connections N] [--profile] [--only me|page|single] [--pin]
//
// --pin runs each server on the first core and wrk on the second (taskset), both servers alike, so that
// wrk's own CPU is never taken from the server it loads; without it the kernel places them. Each row
// also gives the share of the measured time the server's main thread waited runnable for a core
// (/proc/<pid>/task/<pid>/schedstat): a server waiting for a core is measured short of its ceiling.
//
// Needs wrk (Debian: apt-get install wrk). --profile starts the service with --cpu-prof; the profile is
// written to .bench/profiles/ when the service stops.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { withBareServer, withService, type Service } from './harness.ts';

const run = promisify(execFile);

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    profile: { type: 'boolean', default: false },
    only: { type: 'string' },
    pin: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
if (!Number.isInteger(SECONDS) || SECONDS < 2) throw new RangeError('--seconds is a whole number >= 2');
if (!Number.isInteger(CONNECTIONS) || CONNECTIONS < 1) throw new RangeError('--connections >= 1');
if (values.only !== undefined && !['me', 'page', 'single'].includes(values.only))
  throw new RangeError('--only is me, page or single');

if (values.pin && availableParallelism() < 2) throw new RangeError('--pin needs two cores');
const PIN = values.pin;

const SUBSCRIBERS = 100_000;
const IMPORT_BATCH = 10_000;
const WARMUP_SECONDS = 2;
/** Turns of the service and the bare server, each of half the measurement. */
const ROUNDS = 2;
const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const imsiOf = (n: number): string => `00101${String(n).padStart(10, '0')}`;

async function wrkVersion(): Promise<string> {
  try {
    // wrk has no --version that exits 0; its usage text names it.
    const { stdout, stderr } = await run('wrk', ['-v']).catch(
      (error: { stdout?: string; stderr?: string; code?: string }) => {
        if (error.code === 'ENOENT') throw error;
        return { stdout: error.stdout ?? '', stderr: error.stderr ?? '' };
      },
    );
    return /wrk \S+/.exec(`${stdout}${stderr}`)?.[0] ?? 'wrk';
  } catch {
    process.stderr.write('wrk is not installed: apt-get install wrk (Debian), then run this again\n');
    process.exit(2);
  }
}

// Linux reports process CPU time in /proc in clock ticks of 1/100 s (USER_HZ, fixed for user space).
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Nanoseconds the main thread of `pid` has waited runnable for a core (the second schedstat field). */
function runQueueWaitNs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ');
  return Number(fields[1]);
}

/** Pins every thread of a server process to the first core (see --pin). */
async function pinServer(pid: number): Promise<void> {
  if (PIN) await run('taskset', ['--all-tasks', '--cpu-list', '-p', '0', String(pid)]);
}

interface Endpoint {
  /** What `--only` names it by. */
  key: 'me' | 'page' | 'single';
  name: string;
  path: string;
  /** A Lua `request` function for wrk when each request varies (a random IMSI). */
  lua?: string;
  goal: number;
}

interface Sample {
  requests: number;
  seconds: number;
  cpuSeconds: number;
  p50Ms: number;
  p99Ms: number;
  /** Seconds the server's main thread waited runnable for a core. */
  waitSeconds: number;
}

function latencyMs(output: string, percentile: string): number {
  const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

/** One wrk run against a server; fails on any non-2xx answer or socket error. */
async function sample(
  server: { baseUrl: string; pid: number },
  endpoint: Endpoint,
  headers: Record<string, string>,
  seconds: number,
  script: string | undefined,
): Promise<Sample> {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  if (script) args.push('-s', script);
  args.push(`${server.baseUrl}${endpoint.path}`);
  const before = cpuSeconds(server.pid);
  const waitBefore = runQueueWaitNs(server.pid);
  const { stdout } = PIN ? await run('taskset', ['--cpu-list', '1', 'wrk', ...args]) : await run('wrk', args);
  const cpu = cpuSeconds(server.pid) - before;
  const waitSeconds = (runQueueWaitNs(server.pid) - waitBefore) / 1e9;
  if (/Non-2xx or 3xx responses/.test(stdout) || /Socket errors/.test(stdout)) {
    throw new Error(`${endpoint.name}: wrk saw errors:\n${stdout}`);
  }
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  const duration = /requests in ([\d.]+)(ms|s|m)/.exec(stdout);
  const durationSeconds =
    Number(duration?.[1]) * (duration?.[2] === 'ms' ? 0.001 : duration?.[2] === 'm' ? 60 : 1);
  return {
    requests,
    seconds: durationSeconds,
    cpuSeconds: cpu,
    p50Ms: latencyMs(stdout, '50'),
    p99Ms: latencyMs(stdout, '99'),
    waitSeconds,
  };
}

function combine(samples: Sample[]) {
  const requests = samples.reduce((sum, one) => sum + one.requests, 0);
  const seconds = samples.reduce((sum, one) => sum + one.seconds, 0);
  const cpu = samples.reduce((sum, one) => sum + one.cpuSeconds, 0);
  return {
    requestsPerSecond: requests / seconds,
    cpuUsPerRequest: (cpu * 1e6) / requests,
    // The worst turn's percentiles: wrk reports them per run.
    p50Ms: Math.max(...samples.map((one) => one.p50Ms)),
    p99Ms: Math.max(...samples.map((one) => one.p99Ms)),
    waitShare: samples.reduce((sum, one) => sum + one.waitSeconds, 0) / seconds,
  };
}

async function measure(service: Service, endpoint: Endpoint, headers: Record<string, string>, dir: string) {
  const first = await fetch(`${service.baseUrl}${endpoint.path}`, { headers });
  const text = await first.text();
  if (!first.ok) throw new Error(`${endpoint.name} answered ${first.status}: ${text}`);
  const bytes = Buffer.byteLength(text);
  let script: string | undefined;
  if (endpoint.lua) {
    script = join(dir, `${endpoint.name.replace(/\W+/g, '-')}.lua`);
    writeFileSync(script, endpoint.lua);
  }
  process.stderr.write(`${endpoint.name}: ${bytes} bytes; ${SECONDS} s on each server\n`);
  return withBareServer(bytes, async (bare) => {
    await pinServer(bare.pid);
    await sample(service, endpoint, headers, WARMUP_SECONDS, script);
    await sample(bare, endpoint, headers, WARMUP_SECONDS, script);
    const serviceSamples: Sample[] = [];
    const bareSamples: Sample[] = [];
    for (let turn = 0; turn < ROUNDS; turn++) {
      serviceSamples.push(await sample(service, endpoint, headers, SECONDS / ROUNDS, script));
      bareSamples.push(await sample(bare, endpoint, headers, SECONDS / ROUNDS, script));
    }
    return { endpoint, bytes, service: combine(serviceSamples), bare: combine(bareSamples) };
  });
}

const version = await wrkVersion();
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const startLoad = load();
const dir = mkdtempSync(join(tmpdir(), 'pmn-wrk-'));
const nodeArgs = values.profile ? ['--cpu-prof', '--cpu-prof-dir', '.bench/profiles'] : [];
const log = (line: string) => void process.stderr.write(`${line}\n`);
try {
  const rows = await withService({ nodeArgs, log }, async (service) => {
    await pinServer(service.pid);
    const init = await service.call<{ result: { token: string } }>({
      method: 'POST',
      path: '/api/v1/init',
      body: ADMIN,
    });
    const created = await service.call<{ result: { token: string } }>({
      method: 'POST',
      path: '/api/v1/users/me/api-tokens',
      headers: { authorization: `Bearer ${init.result.token}` },
      body: { name: 'bench' },
    });
    const headers = { authorization: `Bearer ${created.result.token}` };
    for (let start = 0; start < SUBSCRIBERS; start += IMPORT_BATCH) {
      const body = Array.from({ length: IMPORT_BATCH }, (_, i) => ({
        imsi: imsiOf(start + i),
        key: '465b5ce8b199b49faa5f0a2ee238a6bc',
        sequenceNumber: '000000000001',
        profile_name: 'default',
      }));
      await service.call({ method: 'POST', path: '/api/v1/subscribers/import', headers, body });
    }
    const endpoints: Endpoint[] = [
      { key: 'me', name: 'GET /api/v1/users/me (API token)', path: '/api/v1/users/me', goal: 0.6 },
      {
        key: 'page',
        name: 'GET /api/v1/subscribers?per_page=100&page=500',
        path: '/api/v1/subscribers?per_page=100&page=500',
        goal: 0.25,
      },
      {
        key: 'single',
        name: 'GET /api/v1/subscribers/{imsi} (random IMSI)',
        path: `/api/v1/subscribers/${imsiOf(0)}`,
        goal: 0.5,
        lua: `request = function()
  return wrk.format(nil, string.format("/api/v1/subscribers/00101%010d", math.random(0, ${SUBSCRIBERS - 1})))
end
`,
      },
    ];
    const measured = [];
    for (const endpoint of endpoints) {
      if (values.only === undefined || values.only === endpoint.key)
        measured.push(await measure(service, endpoint, headers, dir));
    }
    return measured;
  });

  const us = (value: number) => `${value.toFixed(0)} µs`;
  const share = (value: number) => `${(100 * value).toFixed(0)}%`;
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const number = (value: number) => Math.round(value).toLocaleString('en-US');
  const lines = [
    `wrk: ${version}; 1 thread, ${CONNECTIONS} connections, ${SECONDS} s per server per endpoint in ${ROUNDS} turns; ${PIN ? 'servers pinned to core 0, wrk to core 1' : 'not pinned'}; load average ${startLoad} at start, ${load()} at end`,
    '',
    '| Endpoint | bytes | req/s | p50 | p99 | CPU/req | wait | bare req/s | bare p50 | bare p99 | bare CPU/req | bare wait | ratio (goal) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.endpoint.name} | ${row.bytes} | ${number(row.service.requestsPerSecond)} | ${ms(row.service.p50Ms)} | ${ms(row.service.p99Ms)} | ${us(row.service.cpuUsPerRequest)} | ${share(row.service.waitShare)} | ${number(row.bare.requestsPerSecond)} | ${ms(row.bare.p50Ms)} | ${ms(row.bare.p99Ms)} | ${us(row.bare.cpuUsPerRequest)} | ${share(row.bare.waitShare)} | ${((100 * row.service.requestsPerSecond) / row.bare.requestsPerSecond).toFixed(0)}% (${(row.endpoint.goal * 100).toFixed(0)}%) |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
