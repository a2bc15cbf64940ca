// Time from process start to the first answer (issue 12 item 8: within 1 s), for the production start
// (`npm start`: node on the bundle dist/main.js) and the development start (tsx on the sources), beside a
// bare node:http server started the same way in the same run. Each start is on a fresh database (a first
// start: migrations and the default network included) and then on the existing one; wall time and the
// process's CPU time (user + system, from /proc) at the first 200 of GET /api/v1/status.
// Run: npx tsx bench/start.ts [--seconds N] (N: repetitions per row, default 5).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SERVICE_NODE_FLAGS } from '../src/node-flags.ts';
import { ROOT } from './harness.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' } } });
const REPETITIONS = Math.max(1, Math.round(Number(values.seconds)));
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

async function firstAnswer(args: (port: number) => string[]): Promise<{ wallMs: number; cpuMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args(port), { cwd: ROOT, stdio: 'ignore' });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/v1/status`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      if (child.exitCode !== null) throw new Error(`${args(port).join(' ')} exited with ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { wallMs: performance.now() - started, cpuMs: cpuSeconds(child.pid as number) * 1000 };
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const median = (numbers: number[]): number =>
  [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] ?? NaN;

const BARE = `require('node:http').createServer((q, s) => s.end('{}')).listen(+process.argv[1], '127.0.0.1')`;

execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
const dir = mkdtempSync(join(tmpdir(), 'pmn-start-'));
const rows: { name: string; wallMs: number; cpuMs: number }[] = [];
async function row(name: string, args: (port: number) => string[], fresh?: string) {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < REPETITIONS; i++) {
    if (fresh) rmSync(join(dir, fresh), { recursive: true, force: true });
    const { wallMs, cpuMs } = await firstAnswer(args);
    walls.push(wallMs);
    cpus.push(cpuMs);
  }
  rows.push({ name, wallMs: median(walls), cpuMs: median(cpus) });
}

try {
  const service = (entry: string[], db: string) => (port: number) => [
    ...SERVICE_NODE_FLAGS,
    ...entry,
    '--listen',
    `127.0.0.1:${port}`,
    '--db',
    join(dir, db, 'core.db'),
    '--log-level',
    'warn',
  ];
  await row('bare node:http', (port) => ['-e', BARE, String(port)]);
  await row('npm start (bundle), first start', service(['dist/main.js'], 'bundle-fresh'), 'bundle-fresh');
  await row('npm start (bundle), existing database', service(['dist/main.js'], 'bundle'));
  await row(
    'tsx sources, first start',
    service(['--import', 'tsx', 'src/main.ts'], 'tsx-fresh'),
    'tsx-fresh',
  );
  await row('tsx sources, existing database', service(['--import', 'tsx', 'src/main.ts'], 'tsx'));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const bare = rows[0] as (typeof rows)[number];
const lines = [
  `\nStart to first answer (median of ${REPETITIONS}; load average ${loadavg()[0]?.toFixed(2)})\n`,
  '| start | wall ms | CPU ms | wall vs bare |',
  '| --- | ---: | ---: | ---: |',
  ...rows.map(
    ({ name, wallMs, cpuMs }) =>
      `| ${name} | ${wallMs.toFixed(0)} | ${cpuMs.toFixed(0)} | ${(wallMs / bare.wallMs).toFixed(1)}x |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
