import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ROOT, type Comparison, type Suite } from './harness.ts';

/**
 * A CPU benchmark that is a script of its own (codecs, crypto, transports): it runs in a child process
 * with `--seconds`, measures its figures beside its own bare baseline and prints its tables, which are
 * passed through.
 */
function standalone(
  script: string,
  args = (seconds: number): string[] => ['--seconds', String(seconds)],
): () => Promise<{ run: Suite }> {
  return async () => ({
    run: async ({ durationSeconds, log }) => {
      log(`running ${script}`);
      const child = spawn(process.execPath, ['--import', 'tsx', script, ...args(durationSeconds)], {
        cwd: ROOT,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`${script} exited with ${code}`);
      return [];
    },
  });
}

/** Every suite, in run order; adding one is one line naming its module, which exports `run`. */
const SUITES: Record<string, () => Promise<{ run: Suite }>> = {
  foundation: () => import('./foundation.ts'),
  'network-configuration': () => import('./network-configuration.ts'),
  // Builds (once, cached in .bench/) and measures the 1M-event, 5M-flow data set of issue 4.
  records: () => import('./records.ts'),
  security: standalone('bench/security.ts'),
  'nas-codec': standalone('bench/nas-codec.ts'),
  // NAS protect + unprotect per algorithm pair, beside AES-CMAC alone.
  'nas-security': standalone('bench/nas-security.ts'),
  'ngap-codec': standalone('bench/ngap-codec.ts'),
  // The generated NGAP message functions and the clause 10.3 checks, with and without the codec.
  'ngap-message-functions': standalone('bench/ngap-message-functions.ts', () => []),
  sctp: standalone('bench/sctp.ts'),
  // Needs root (raw IP sockets).
  'sctp-raw': standalone('bench/sctp-raw.ts'),
  // Process start to first answer: the bundle, the sources and a bare node:http.
  start: standalone('bench/start.ts'),
  // Needs wrk (Debian): the HTTP floor beside a bare node:http server.
  'http-wrk': standalone('bench/http-wrk.ts'),
  'subscribers-1m': standalone('bench/subscribers-1m.ts'),
  // 1,000 gNBs completing NG Setup at once against the service, beside a bare NGAP responder.
  'n2-setup': standalone('bench/n2-setup.ts'),
  // Initial registrations per second and devices held, the simulator in its own process (long: see
  // docs/performance.md, "Registration").
  registration: standalone('bench/registration.ts'),
  // N2 handovers per second between simulated gNB pairs, beside the registration's CPU; with root, the
  // user plane's interruption and loss with direct forwarding (docs/performance.md, "N2 handover").
  handover: standalone('bench/handover.ts', () => []),
  // A real login while 64 connections spray new e-mails and wrong token secrets.
  'hash-spray': standalone('bench/hash-spray.ts'),
  // The OpenAPI fuzzer at benchmark size.
  'openapi-fuzz': standalone('bench/openapi-fuzz.ts'),
  // The UPF: throughput against a plain UDP<->TUN forwarder, 10,000 sessions, 100,000 flows. Needs root
  // (or CAP_NET_ADMIN and CAP_SYS_ADMIN) and cc; says why in one line and skips without.
  upf: standalone('bench/upf.ts'),
  // TCP and 64-octet UDP from a simulated UE's TUN through the core, beside a veth pair and plain
  // TUN-UDP-TUN forwarders in the same run. Needs root.
  'session-traffic': standalone('bench/session-traffic.ts'),
  // PDU session establishments through the SMF with in-memory ports, beside the bare message work (a
  // count, not a duration).
  sessions: standalone('bench/sessions.ts', () => []),
  // 100,000 radio events exported to pcapng, beside the list reading them; tshark reads the capture.
  'radio-events-export': standalone('bench/radio-events-export.ts', () => []),
};

const USAGE = `npm run bench -- [--only SUITE[,SUITE...]] [--duration SECONDS] [--profile]
  --only       run only these suites (${Object.keys(SUITES).join(', ')})
  --duration   seconds of load per endpoint on the service and as many on the bare server (default 10)
  --profile    start the service with --cpu-prof; profiles land in .bench/profiles/
`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function options() {
  let values;
  try {
    values = parseArgs({
      options: {
        only: { type: 'string', multiple: true },
        duration: { type: 'string', default: '10' },
        profile: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const durationSeconds = Number(values.duration);
  if (!Number.isInteger(durationSeconds) || durationSeconds < 1)
    fail('--duration must be a whole number >= 1');
  const names = (values.only ?? Object.keys(SUITES)).flatMap((value) => value.split(',')).filter(Boolean);
  for (const name of names) if (!(name in SUITES)) fail(`unknown suite "${name}"`);
  return { names, durationSeconds, profile: values.profile };
}

const number = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (value: number): string => `${number(value, value < 10 ? 2 : value < 100 ? 1 : 0)} ms`;
const us = (value: number | undefined): string => (value === undefined ? 'n/a' : `${number(value)} µs`);
const percent = (value: number): string => {
  const points = value * 100;
  return `${number(points, points < 1 ? 2 : points < 10 ? 1 : 0)}%`;
};

/** The results as a Markdown table, readable in a terminal and ready for docs/performance.md. */
function table(rows: Comparison[]): string {
  const header = [
    'Endpoint',
    'Connections',
    'req/s',
    'p50',
    'p99',
    'bare req/s',
    'bare p50',
    'bare p99',
    'ratio',
    'CPU/req',
    'bare CPU/req',
  ];
  const lines = rows.map((row) => [
    row.endpoint,
    String(row.load.connections),
    number(row.service.requestsPerSecond),
    ms(row.service.p50Ms),
    ms(row.service.p99Ms),
    number(row.bare.requestsPerSecond),
    ms(row.bare.p50Ms),
    ms(row.bare.p99Ms),
    row.goal === undefined ? percent(row.ratio) : `${percent(row.ratio)} (goal ${percent(row.goal)})`,
    us(row.service.cpuUsPerRequest),
    us(row.bare.cpuUsPerRequest),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)),
  );
  const format = (cells: string[]): string =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [format(header), format(widths.map((width) => '-'.repeat(width))), ...lines.map(format)].join('\n');
}

async function main(): Promise<void> {
  const { names, durationSeconds, profile } = options();
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const serviceNodeArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', '.bench/profiles'] : [];
  const cpu = cpus();
  process.stdout.write(
    `PMN Core benchmark, ${new Date().toISOString()}\n` +
      `Node ${process.version}, ${cpu.length} cores (${cpu[0]?.model ?? 'unknown CPU'}), ` +
      `${durationSeconds} s per measurement; load generator, service and bare server share these cores; ` +
      `load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')} at start\n`,
  );
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) continue;
    const { run } = await suite();
    const rows = await run({ durationSeconds, serviceNodeArgs, log });
    if (rows.length > 0) process.stdout.write(`\n## ${name}\n\n${table(rows)}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${String((error as Error).stack ?? error)}\n`);
  process.exit(1);
});
