/**
 * Issue 30's goals, PostgreSQL beside SQLite in one run (ratios: the machine is shared), the service in
 * this process (core and Fastify app, requests through inject) on an SQLite file in a temporary directory
 * and on a database of a throwaway cluster (test/helpers/postgres-cluster.ts):
 * - the authenticated read (GET /api/v1/users/me with an API token) and a page of 100 subscribers over
 *   `--subscribers` (100,000), requests a second with 10 in flight;
 * - the first page and a deep page (offset 90 %) of `--million` (1,000,000) subscribers: median latency;
 * - flow-report ingestion while the list is queried: `--reports` (300,000) reports through the records
 *   pipeline, as the UPF hands them over, while GET /api/v1/flow-reports runs 4 at a time.
 * - registrations per second (`--only registrations`): bench/registration.ts (the service as operators run
 *   it, the simulator in a process of its own) with `--ues` (3000) devices, SUCI null, 200 in flight,
 *   after `--registration-warmup` (2000), on SQLite and PostgreSQL in turn, `--rounds` (3) times each,
 *   starting with SQLite (S P S P ...), a fresh database each run. Each PostgreSQL run is compared with
 *   the SQLite run before it and the one after it (every adjacent pair, both orders), then the median;
 *   with each run the load average, the service's CPU a registration and, on PostgreSQL, the database's
 *   commits and statements a registration (pg_stat_statements; warm-up and provisioning included);
 *   `--statements` also lists each statement of the last PostgreSQL run with its calls a registration.
 *
 *   npx tsx bench/postgres-goals.ts [--seconds N] [--warmup N] [--subscribers N] [--million N] [--reports N]
 *     [--only api|ingestion|million|registrations] (one part alone; repeat for several)
 *     [--rounds N] [--ues N] [--registration-warmup N] [--statements]
 * `--warmup` requests (5,000) go before each rate is measured: V8 optimises the path, and on PostgreSQL each
 * (page size, skip) statement of the subscriber page is planned on each connection until its generic plan
 * is kept (docs/postgresql.md), a few thousand plannings that are not the steady state.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';
import type { FlowReportInput } from '../src/records/record-inputs.ts';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';
import { seedSubscribers, startService, type Dialect, type Service } from './postgres-service.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '5000' },
    subscribers: { type: 'string', default: '100000' },
    million: { type: 'string', default: '1000000' },
    reports: { type: 'string', default: '300000' },
    only: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '3' },
    ues: { type: 'string', default: '3000' },
    'registration-warmup': { type: 'string', default: '2000' },
    statements: { type: 'boolean', default: false },
  },
});
const PARTS = new Set(values.only ?? ['api', 'ingestion', 'million', 'registrations']);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
/** Requests a second, `inFlight` at a time, for SECONDS. */
async function rate(inFlight: number, request: (i: number) => Promise<unknown>): Promise<number> {
  let warmed = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (warmed < WARMUP) await request(warmed++);
    }),
  );
  let done = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) await request(done++);
    }),
  );
  return done / SECONDS;
}

async function medianMs(times: number, request: () => Promise<unknown>): Promise<number> {
  const spent: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const start = performance.now();
    await request();
    spent.push(performance.now() - start);
  }
  return spent.sort((a, b) => a - b)[Math.floor(times / 2)] ?? 0;
}

async function api(service: Service, dialect: Dialect) {
  const total = Number(values.subscribers);
  await seedSubscribers(service, dialect, total);
  const pages = Math.floor(total / 100);
  return {
    read: await rate(10, () => service.call('GET', '/api/v1/users/me', service.token)),
    page: await rate(10, (i) =>
      service.call('GET', `/api/v1/subscribers?per_page=100&page=${1 + ((i * 7919) % pages)}`, service.token),
    ),
  };
}

async function million(service: Service, dialect: Dialect) {
  const total = Number(values.million);
  await seedSubscribers(service, dialect, total);
  const deep = Math.floor((total / 100) * 0.9);
  // The first deep page after the start builds the list's positions (issue 12); then it is warm.
  const start = performance.now();
  await service.call('GET', `/api/v1/subscribers?per_page=100&page=${deep}`, service.token);
  const firstDeep = performance.now() - start;
  return {
    first: await medianMs(21, () => service.call('GET', '/api/v1/subscribers?per_page=100', service.token)),
    deep: await medianMs(21, () =>
      service.call('GET', `/api/v1/subscribers?per_page=100&page=${deep}`, service.token),
    ),
    firstDeep,
  };
}

async function ingestion(service: Service) {
  const total = Number(values.reports);
  const ingest = service.core.records.ingestion;
  const now = Date.now();
  const batch = (from: number): FlowReportInput[] =>
    Array.from({ length: 1000 }, (_, k) => {
      const i = from + k;
      return {
        subscriberId: `00101${String(i % 10_000).padStart(10, '0')}`,
        sourceIp: `10.45.${(i >> 8) & 255}.${i & 255}`,
        destinationIp: `93.184.${(i * 7) & 255}.${(i * 13) & 255}`,
        sourcePort: 1024 + (i % 50_000),
        destinationPort: i % 3 === 0 ? 53 : 443,
        protocol: i % 3 === 0 ? 17 : 6,
        packets: 1 + (i % 40),
        bytes: 100 + (i % 60_000),
        startTime: now - 1000,
        endTime: now,
        direction: i % 2 === 0 ? 'uplink' : 'downlink',
        action: 'allow',
      };
    });
  // The records writer thread starts with the first batch (compiling its modules under tsx): before the
  // clock, so the rate is the writer's, not its start.
  ingest.recordFlowReports(batch(total));
  await ingest.flush();
  let querying = true;
  let queries = 0;
  const readers = Array.from({ length: 4 }, async () => {
    while (querying) {
      await service.call('GET', '/api/v1/flow-reports?per_page=100', service.token);
      queries += 1;
      // Injected requests on SQLite never leave the microtask queue: the writer's timers need a turn.
      await yieldToEventLoop();
    }
  });
  const start = performance.now();
  for (let from = 0; from < total; from += 1000) {
    const reports = batch(from);
    while (!ingest.recordFlowReports(reports)) await ingest.whenWritable(reports.length);
  }
  await ingest.flush();
  const seconds = (performance.now() - start) / 1000;
  querying = false;
  await Promise.all(readers);
  return { rowsPerSecond: total / seconds, queriesPerSecond: queries / seconds };
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

interface RegistrationRun {
  dialect: Dialect;
  perSecond: number;
  serviceCpuMs: number;
  load: string;
  /** PostgreSQL: commits and statements a registration (the run's, warm-up and provisioning included). */
  commits?: number;
  statements?: number;
}

/** One bench/registration.ts run on `db` (an SQLite run without it): its SUCI null row. */
async function registrationRun(db: string | undefined): Promise<{ perSecond: number; serviceCpuMs: number }> {
  const args = ['tsx', 'bench/registration.ts', '--ues', String(values.ues), '--hold', '0'];
  args.push('--concurrency', '200', '--suci', 'null', '--warmup', String(values['registration-warmup']));
  if (db !== undefined) args.push('--db', db);
  const { stdout } = await promisify(execFile)('npx', args, {
    cwd: new URL('..', import.meta.url),
    maxBuffer: 1 << 24,
  });
  // run, devices, wall, rate, service CPU a registration (bench/registration.ts's row).
  const row = /^SUCI null\s+\d+\s+[\d.]+ s\s+(\d+)\/s\s+([\d.]+) ms/m.exec(stdout);
  if (row === null) throw new Error(`bench/registration.ts gave no SUCI null row:\n${stdout}`);
  return { perSecond: Number(row[1]), serviceCpuMs: Number(row[2]) };
}

/** SQLite and PostgreSQL runs in turn (S P S P ...), each PostgreSQL run against its neighbours. */
async function registrations(
  cluster: Awaited<ReturnType<typeof startPostgresCluster>>,
  lines: string[],
): Promise<void> {
  cluster.psql(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
  cluster.stopServer();
  cluster.startServer();
  cluster.psql('create extension if not exists pg_stat_statements');
  const registered = Number(values.ues) + Number(values['registration-warmup']);
  const runs: RegistrationRun[] = [];
  let statementLines: string[] = [];
  const rounds = Number(values.rounds);
  for (let i = 0; i < 2 * rounds; i += 1) {
    const dialect: Dialect = i % 2 === 0 ? 'sqlite' : 'postgres';
    const before = load();
    if (dialect === 'sqlite') {
      const run = await registrationRun(undefined);
      runs.push({ dialect, ...run, load: `${before} / ${load()}` });
      continue;
    }
    const name = `registrations${i}`;
    cluster.psql(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'`);
    const oid = cluster.psql(`select oid from pg_database where datname = '${name}'`).trim();
    const run = await registrationRun(cluster.url(name));
    const [commits] = cluster
      .psql(`select xact_commit from pg_stat_database where datid = ${oid}`)
      .trim()
      .split('\n');
    const perStatement = cluster
      .psql(
        `select calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 150) from pg_stat_statements
         where dbid = ${oid} order by calls desc`,
      )
      .trim()
      .split('\n')
      .map((line) => line.split('|'));
    const statements = perStatement.reduce((sum, [calls]) => sum + Number(calls), 0);
    statementLines = perStatement
      .filter(([calls]) => Number(calls) >= registered / 100)
      .map(([calls, query]) => `  ${(Number(calls) / registered).toFixed(3).padStart(7)}  ${query}`);
    runs.push({
      dialect,
      ...run,
      load: `${before} / ${load()}`,
      commits: Number(commits) / registered,
      statements: statements / registered,
    });
    cluster.psql(`DROP DATABASE ${name}`);
  }
  lines.push(
    `registrations (bench/registration.ts --ues ${values.ues} --hold 0 --concurrency 200 --suci null --warmup ${values['registration-warmup']}):`,
    `${'run'.padEnd(4)} ${'dialect'.padEnd(10)} ${'reg/s'.padStart(6)} ${'svc CPU/reg'.padStart(11)} ${'commits/reg'.padStart(11)} ${'stmts/reg'.padStart(9)}  load before / after`,
  );
  runs.forEach((run, i) =>
    lines.push(
      `${String(i + 1).padEnd(4)} ${run.dialect.padEnd(10)} ${String(run.perSecond).padStart(6)} ${`${run.serviceCpuMs.toFixed(3)} ms`.padStart(11)} ` +
        `${(run.commits?.toFixed(2) ?? '').padStart(11)} ${(run.statements?.toFixed(2) ?? '').padStart(9)}  ${run.load}`,
    ),
  );
  const ratios: number[] = [];
  for (let i = 1; i < runs.length; i += 1) {
    const [a, b] = [runs[i - 1]!, runs[i]!];
    const postgres = a.dialect === 'postgres' ? a : b;
    const sqlite = a.dialect === 'sqlite' ? a : b;
    const ratio = postgres.perSecond / sqlite.perSecond;
    ratios.push(ratio);
    lines.push(`  runs ${i} and ${i + 1} (${a.dialect} first): PostgreSQL / SQLite ${ratio.toFixed(2)}`);
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  const median =
    sorted.length % 2 === 1
      ? sorted[(sorted.length - 1) / 2]!
      : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  lines.push(`  median PostgreSQL / SQLite: ${median.toFixed(2)} (goal 0.70)`);
  if (values.statements)
    lines.push(
      'statements a registration, last PostgreSQL run (1 in 100 registrations or more):',
      ...statementLines,
    );
}

async function main(): Promise<void> {
  const cluster = await startPostgresCluster();
  const dir = mkdtempSync(join(tmpdir(), 'pmn-postgres-goals-'));
  let database = 0;
  const open = async (dialect: Dialect) => {
    database += 1;
    if (dialect === 'sqlite') return startService(join(dir, `${database}.db`));
    cluster.psql(`CREATE DATABASE goals${database} TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'`);
    return startService(cluster.url(`goals${database}`));
  };
  const lines: string[] = [`load average at the start: ${load()}`];
  const figures: Record<string, Record<Dialect, number>> = {};
  const registrationLines: string[] = [];
  const put = (name: string, dialect: Dialect, value: number) =>
    ((figures[name] ??= { sqlite: 0, postgres: 0 })[dialect] = value);
  try {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      if (!PARTS.has('api') && !PARTS.has('ingestion')) break;
      const service = await open(dialect);
      if (PARTS.has('api')) {
        const a = await api(service, dialect);
        put('authenticated read (req/s)', dialect, a.read);
        put(`page of 100 over ${values.subscribers} subscribers (req/s)`, dialect, a.page);
      }
      if (PARTS.has('ingestion')) {
        const i = await ingestion(service);
        put('flow reports ingested while queried (rows/s)', dialect, i.rowsPerSecond);
        put('flow report pages meanwhile (req/s)', dialect, i.queriesPerSecond);
      }
      await service.stop();
    }
    for (const dialect of ['sqlite', 'postgres'] as const) {
      if (!PARTS.has('million')) break;
      const service = await open(dialect);
      const m = await million(service, dialect);
      put(`first page of ${values.million} (ms, median)`, dialect, m.first);
      put(`deep page of ${values.million} (ms, median)`, dialect, m.deep);
      put(`first deep page after the start (ms)`, dialect, m.firstDeep);
      await service.stop();
    }
    if (PARTS.has('registrations')) await registrations(cluster, registrationLines);
  } finally {
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  lines.push(
    `${'figure'.padEnd(50)} ${'SQLite'.padStart(9)} ${'PostgreSQL'.padStart(10)} ${'PG/SQLite'.padStart(9)}`,
  );
  for (const [name, { sqlite, postgres }] of Object.entries(figures))
    lines.push(
      `${name.padEnd(50)} ${sqlite.toFixed(1).padStart(9)} ${postgres.toFixed(1).padStart(10)} ${(postgres / sqlite).toFixed(2).padStart(9)}`,
    );
  lines.push(...registrationLines, `load average at the end: ${load()}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
