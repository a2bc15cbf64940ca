/**
 * Where a page of 100 subscribers spends its CPU, SQLite beside PostgreSQL in one run (issue 30): the
 * service in this process (bench/postgres-service.ts) over `--subscribers` (100,000), `--pages` requests
 * of GET /api/v1/subscribers?per_page=100 at random pages, 10 in flight, as bench/postgres-goals.ts asks
 * them. Prints per page, in µs of CPU: the service's main thread and its other threads (V8's garbage
 * collector helpers, the records writer), then on PostgreSQL the server's processes (every backend, all
 * of the throwaway cluster) and, from pg_stat_statements, each statement's calls a page, the share of its
 * runs the planner ran for (a statement whose generic plan PostgreSQL keeps is planned a few times a
 * connection, then never), its mean planning and execution times (wall times inside the backend: inflated
 * on a loaded machine, where the CPU figures are the ones to read). The storage call alone (the
 * repository's page with its count, 10 in flight, no HTTP) is timed the same way beside it.
 *
 *   npx tsx bench/postgres-page-profile.ts [--pages N] [--subscribers N] [--warm N]
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createSubscribersRepository } from '../src/resources/subscribers/subscribers.repository.ts';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';
import { seedSubscribers, startService, type Dialect } from './postgres-service.ts';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '4000' },
    subscribers: { type: 'string', default: '100000' },
    warm: { type: 'string', default: '5000' },
  },
});
const PAGES = Number(values.pages);
/**
 * Pages asked before measuring. Besides opening the pool's connections and building the list's positions,
 * the warm-up lets PostgreSQL settle on each page statement's plan: each page size and skip is its own
 * statement (a literal LIMIT and OFFSET), planned for its first 5 runs on each connection before the plan
 * kept for any start IMSI is used; the pages asked here start at 64 skips, on 10 connections.
 */
const WARM = Number(values.warm);
const SUBSCRIBERS = Number(values.subscribers);
const IN_FLIGHT = 10;
/** Clock ticks a second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICK_US = 10_000;

/** utime + stime (ticks) of a process or thread from its /proc stat line; 0 once it is gone. */
function ticksOf(statPath: string): number {
  try {
    const fields = readFileSync(statPath, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** This process's threads: the main thread (its pid) and the sum of the others. */
function threadTicks(): { main: number; others: number } {
  let others = 0;
  for (const id of readdirSync('/proc/self/task'))
    if (Number(id) !== process.pid) others += ticksOf(`/proc/self/task/${id}/stat`);
  return { main: ticksOf(`/proc/self/task/${process.pid}/stat`), others };
}

/** Every process of the cluster: the postmaster's children (backends, writers) and itself. */
function serverTicks(dataDirectory: string | undefined): number {
  if (dataDirectory === undefined) return 0;
  const postmaster = Number(readFileSync(join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = ticksOf(`/proc/${postmaster}/stat`);
  for (const id of readdirSync('/proc')) {
    if (!/^\d+$/.test(id)) continue;
    const stat = (() => {
      try {
        return readFileSync(`/proc/${id}/stat`, 'utf8');
      } catch {
        return '';
      }
    })();
    const parent = Number(stat.split(') ')[1]?.split(' ')[1]);
    if (parent === postmaster) total += ticksOf(`/proc/${id}/stat`);
  }
  return total;
}

/** `count` calls of `call`, IN_FLIGHT at a time. */
async function drive(count: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await call(next++);
    }),
  );
}

/** A page's start IMSI, spread over the table as the benchmark's random pages are. */
const pageStart = (i: number) =>
  `00101${String(((i * 7919) % (SUBSCRIBERS / 100 - 1)) * 100).padStart(10, '0')}`;

async function profile(dialect: Dialect, path: string, dataDirectory: string | undefined): Promise<string[]> {
  const service = await startService(path);
  const lines: string[] = [];
  try {
    await seedSubscribers(service, dialect, SUBSCRIBERS);
    if (dialect === 'postgres') {
      await sql`create extension pg_stat_statements`.execute(service.core.db);
      await sql`vacuum analyze`.execute(service.core.db);
    }
    const pages = SUBSCRIBERS / 100;
    const page = (i: number) =>
      service.call('GET', `/api/v1/subscribers?per_page=100&page=${1 + ((i * 7919) % pages)}`, service.token);
    await drive(WARM, page);
    if (dialect === 'postgres') await sql`select pg_stat_statements_reset()`.execute(service.core.db);
    const threads = threadTicks();
    const server = serverTicks(dataDirectory);
    const started = performance.now();
    await drive(PAGES, page);
    const seconds = (performance.now() - started) / 1000;
    const after = threadTicks();
    const perPage = (ticks: number) => ((ticks * TICK_US) / PAGES).toFixed(0).padStart(5);
    lines.push(
      `${dialect}: ${(PAGES / seconds).toFixed(0)} pages/s; CPU a page: main thread ${perPage(after.main - threads.main)} µs, ` +
        `other threads ${perPage(after.others - threads.others)} µs, server ${perPage(serverTicks(dataDirectory) - server)} µs`,
    );
    if (dialect === 'postgres') {
      // pg_stat_statements counts a statement's texts that differ only in constants (a page's literal
      // LIMIT and OFFSET) as one; `plans` counts the planner's runs, which a kept generic plan skips.
      const { rows } = await sql<{ calls: number; plans: number; plan: number; exec: number; query: string }>`
        select calls, plans, total_plan_time / greatest(plans, 1) * 1000 as plan,
          total_exec_time / calls * 1000 as exec, query
        from pg_stat_statements where calls >= ${PAGES / 10} order by calls desc`.execute(service.core.db);
      for (const row of rows)
        lines.push(
          `  ${(row.calls / PAGES).toFixed(2)} a page, planned ${((100 * row.plans) / row.calls).toFixed(0)} % of runs ` +
            `(${row.plan.toFixed(0)} µs a planning), execution ${row.exec.toFixed(0)} µs: ${row.query.slice(0, 90)}...`,
        );
    }
    const repository = createSubscribersRepository(service.core.db);
    const read = (i: number) => repository.pageWithCount(pageStart(i), 100, 0);
    await drive(500, read);
    const before = threadTicks();
    await drive(PAGES, read);
    const done = threadTicks();
    lines.push(
      `  the storage call alone (page and count, no HTTP): main thread ${perPage(done.main - before.main)} µs`,
    );
  } finally {
    await service.stop();
  }
  return lines;
}

async function main(): Promise<void> {
  const cluster = await startPostgresCluster();
  const directory = mkdtempSync(join(tmpdir(), 'pmn-page-profile-'));
  const lines = [
    `load average at the start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  ];
  try {
    // pg_stat_statements is loaded at the server's start; its planning times are off by default.
    cluster.psql(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    cluster.stopServer();
    cluster.startServer();
    cluster.psql(`ALTER SYSTEM SET pg_stat_statements.track_planning = on`);
    cluster.psql(`SELECT pg_reload_conf()`);
    cluster.psql(`CREATE DATABASE profile TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'`);
    const dataDirectory = cluster.psql('SHOW data_directory').trim();
    lines.push(...(await profile('sqlite', join(directory, 'profile.db'), undefined)));
    lines.push(...(await profile('postgres', cluster.url('profile'), dataDirectory)));
  } finally {
    cluster.stop();
    rmSync(directory, { recursive: true, force: true });
  }
  lines.push(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
