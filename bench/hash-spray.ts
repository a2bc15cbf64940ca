/**
 * Issue 12, finding 5: a real login's latency while 64 connections spray credential checks that cost a
 * memory-hard hash each, beside the same login on the idle service (the baseline, same run).
 *
 *   node --import tsx bench/hash-spray.ts [--seconds 10]
 *
 * The service runs as `npm start` does, with its default settings (login_rate_limit 10), on a fresh
 * database. Sprays, each for `--seconds`:
 *   - logins with a new e-mail per attempt, 64 connections from 127.0.0.1;
 *   - lookup-token with a wrong secret for a real API token id, 64 connections from 127.0.0.1;
 *   - logins with a new e-mail per attempt, 64 connections from 64 addresses (127.0.1.1-64), one each.
 * Meanwhile a real login (the admin) is sent every 250 ms from addresses of its own (127.0.2.1-32 in turn,
 * so the per-e-mail limit never answers it; each has logged in once before the baseline, as an operator's
 * workstation has), and its latency and status are kept. The run takes about 4 x `--seconds`; each address
 * logs in fewer than 10 times a minute while `--seconds` is at most 20.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SERVICE_NODE_FLAGS } from '../src/node-flags.ts';
import { freePort, ROOT } from './harness.ts';

const SPRAY_CONNECTIONS = 64;
const REAL_LOGIN_INTERVAL_MS = 250;
const ADMIN = { email: 'admin@example.com', password: 'bench-password-1' };

const seconds = Number(parseArgs({ options: { seconds: { type: 'string', default: '10' } } }).values.seconds);

interface Answer {
  status: number;
  ms: number;
  body: string;
}

function send(
  port: number,
  agent: Agent,
  path: string,
  options: { body?: unknown; authorization?: string },
): Promise<Answer> {
  const started = process.hrtime.bigint();
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.authorization ? { authorization: options.authorization } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - started) / 1e6, body }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const agentFrom = (localAddress: string, maxSockets = 1) =>
  new Agent({ keepAlive: true, maxSockets, localAddress });

/** CPU time (user + system, all threads) the process has used, in ms, from Linux's /proc (100 ticks a second). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function startService(): Promise<{ port: number; pid: number; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-hash-spray-'));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...SERVICE_NODE_FLAGS,
      '--import',
      'tsx',
      'src/main.ts',
      '--listen',
      `127.0.0.1:${port}`,
      '--db',
      join(dir, 'core.db'),
      '--log-level',
      'warn',
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => child.kill('SIGTERM'));
  for (let i = 0; i < 300; i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/status`);
      if (response.ok) return { port, pid: child.pid ?? 0, stop };
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  await stop();
  throw new Error('the service did not start');
}

/** The real login's addresses: it logs in from these in turn, few enough times a minute for each. */
const REAL_ADDRESSES = 32;
let realAddress = 0;

/** Real logins, one every REAL_LOGIN_INTERVAL_MS, at least one and until `until`; each from the next 127.0.2.x address. */
async function realLogins(port: number, until: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  do {
    realAddress = (realAddress % REAL_ADDRESSES) + 1;
    const agent = agentFrom(`127.0.2.${realAddress}`);
    answers.push(await send(port, agent, '/api/v1/auth/login', { body: ADMIN }));
    agent.destroy();
    await new Promise((done) => setTimeout(done, REAL_LOGIN_INTERVAL_MS));
  } while (Date.now() < until);
  return answers;
}

/** 64 connections, each sending its next request when the previous one is answered, until `until`. */
async function spray(
  port: number,
  agents: Agent[],
  next: (i: number) => { path: string; body?: unknown; authorization?: string },
  until: number,
): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let sequence = 0;
  await Promise.all(
    Array.from({ length: SPRAY_CONNECTIONS }, async (_, connection) => {
      const agent = agents[connection % agents.length] as Agent;
      while (Date.now() < until) {
        const { path, ...options } = next(sequence++);
        const { status } = await send(port, agent, path, options);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function row(name: string, answers: Answer[], cpuMs: number, sprayStatuses?: Map<number, number>): string {
  const ok = answers.filter((a) => a.status === 200).map((a) => a.ms);
  const others = answers.filter((a) => a.status !== 200).map((a) => a.status);
  const spray = sprayStatuses
    ? [...sprayStatuses]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${n} x ${status}`)
        .join(', ')
    : '';
  const total = sprayStatuses ? [...sprayStatuses.values()].reduce((a, b) => a + b, 0) : 0;
  return (
    `| ${name} | ${ok.length}/${answers.length}${others.length ? ` (${[...new Set(others)].join(', ')})` : ''} | ` +
    `${percentile(ok, 50).toFixed(0)} ms | ${Math.max(...ok).toFixed(0)} ms | ` +
    `${sprayStatuses ? `${(total / seconds).toFixed(0)}/s: ${spray}` : ''} | ` +
    `${((100 * cpuMs) / (seconds * 1000)).toFixed(0)}% |`
  );
}

const service = await startService();
try {
  const { port } = service;
  const setup = agentFrom('127.0.0.1');
  const init = await send(port, setup, '/api/v1/init', { body: ADMIN });
  const bearer = (JSON.parse(init.body) as { result: { token: string } }).result.token;
  const created = await send(port, setup, '/api/v1/users/me/api-tokens', {
    body: { name: 'bench' },
    authorization: `Bearer ${bearer}`,
  });
  const apiToken = (JSON.parse(created.body) as { result: { token: string } }).result.token;
  const tokenId = apiToken.split('_')[1] ?? '';

  const rows: string[] = [];
  // Warm-up, not measured: each of the real login's addresses logs in once, as a workstation has before.
  for (let i = 0; i < REAL_ADDRESSES; i++) await realLogins(port, 0);
  const idleCpuBefore = cpuMsOf(service.pid);
  const idle = await realLogins(port, Date.now() + seconds * 1000);
  rows.push(row('unloaded (baseline)', idle, cpuMsOf(service.pid) - idleCpuBefore));

  const oneAddress = [agentFrom('127.0.0.1', SPRAY_CONNECTIONS)];
  const manyAddresses = Array.from({ length: SPRAY_CONNECTIONS }, (_, i) => agentFrom(`127.0.1.${i + 1}`));
  const scenarios: [
    string,
    Agent[],
    (i: number) => { path: string; body?: unknown; authorization?: string },
  ][] = [
    [
      'login spray, new e-mail each, 1 address',
      oneAddress,
      (i) => ({ path: '/api/v1/auth/login', body: { email: `spray-${i}@example.com`, password: 'guess' } }),
    ],
    [
      'lookup-token spray, wrong secret of a real id, 1 address',
      oneAddress,
      (i) => ({
        path: '/api/v1/auth/lookup-token',
        authorization: `Bearer core_${tokenId}_${i.toString(16).padStart(64, '0')}`,
      }),
    ],
    [
      'login spray, new e-mail each, 64 addresses',
      manyAddresses,
      (i) => ({ path: '/api/v1/auth/login', body: { email: `wide-${i}@example.com`, password: 'guess' } }),
    ],
  ];
  for (const [name, agents, next] of scenarios) {
    const until = Date.now() + seconds * 1000;
    const cpuBefore = cpuMsOf(service.pid);
    const [statuses, answers] = await Promise.all([
      spray(port, agents, next, until),
      realLogins(port, until),
    ]);
    rows.push(row(name, answers, cpuMsOf(service.pid) - cpuBefore, statuses));
    for (const agent of agents) agent.destroy();
  }
  setup.destroy();

  process.stdout.write(
    [
      `Login under a hashing spray: ${seconds} s per scenario, ${SPRAY_CONNECTIONS} spraying connections, a real login every ${REAL_LOGIN_INTERVAL_MS} ms`,
      '',
      `Load average at the end: ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')} on ${availableParallelism()} cores`,
      '',
      '| scenario | real logins 200 | real p50 | real max | spray answers | service CPU (one core = 100%) |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows,
      '',
    ].join('\n'),
  );
} finally {
  await service.stop();
}
