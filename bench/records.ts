import { personActor } from '../src/identity/actor.ts';
import { randomBytes } from 'node:crypto';
/**
 * Records benchmark (issue 4): `npx tsx bench/records.ts [--duration SECONDS] [--scale FACTOR]`.
 *
 * On a database holding 1,000,000 radio events and 5,000,000 flow reports over the last 7 days, 365 days
 * of usage for 10,000 subscribers, 100,000 subscriber logs and 10,000 radio logs, it measures:
 * - flow report ingestion through the ingestion interface, alone and while the API is queried;
 * - p50/p99 of a filtered page of each record list, with autocannon against the running service, next to
 *   a bare `node:http` server on the same machine (ratios, since other work may share the CPU);
 * - flow `stats` and `group_by=day` over 7 days, usage by day over 30 days;
 * - API latency while retention deletes more than a million flow reports;
 * - the service's peak RSS throughout.
 * It writes the figures into the "Records" section of docs/performance.md.
 *
 * The data set is generated once through the ingestion interface (bulk-sized transactions) and cached
 * in .bench/ (git-ignored); each run works on a copy. The service runs in a child process with a clock
 * set to the moment the data set was generated, so the cached data stays "the last 7 days".
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import { sql } from 'kysely';
import pino from 'pino';
import {
  createRandom,
  flowPair,
  seedFlows,
  seedLogs,
  seedRadioEvents,
  seedUsage,
} from '../scripts/record-generator.ts';
import { createCore } from '../src/core/create-core.ts';
import { buildHttpApp } from '../src/http/build-http-app.ts';
import { SERVICE_NODE_FLAGS } from '../src/node-flags.ts';
import { systemClock } from '../src/clock.ts';
import type { FlowReportInput } from '../src/records/record-inputs.ts';
import { createRecordsPipeline } from '../src/records/records-pipeline.ts';
import { BUCKET_REPORTS } from '../src/resources/flow-reports/flow-reports.repository.ts';
import { migrateToLatest, openSqliteDatabase } from '../src/storage/database.ts';
import { DAY_MS } from '../src/validation/calendar-date.ts';
import type { Suite } from './harness.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH_DIR = `${ROOT}.bench`;
const SELF = fileURLToPath(import.meta.url);

interface Dataset {
  radioEvents: number;
  flows: number;
  subscribers: number;
  usageDays: number;
  subscriberLogs: number;
  radioLogs: number;
  /** Days the events, logs and flows span, ending at `generatedAt`. */
  recordDays: number;
}

function datasetOf(scale: number): Dataset {
  const n = (count: number) => Math.max(1, Math.round(count * scale));
  return {
    radioEvents: n(1_000_000),
    flows: n(5_000_000),
    subscribers: n(10_000),
    usageDays: 365,
    subscriberLogs: n(100_000),
    radioLogs: n(10_000),
    recordDays: 7,
  };
}

interface Marker {
  dataset: Dataset;
  /** Fingerprint of the schema the data set was written with: a changed schema regenerates it. */
  schema: string;
  generatedAt: number;
  generationSeconds: number;
}

// ---------------------------------------------------------------------------------------------------
// Child process roles: the service under test and the bare baseline.

type Command =
  | { type: 'ingest'; seconds: number }
  | { type: 'retention'; days: number }
  | { type: 'rss' }
  | { type: 'cpu' }
  | { type: 'stop' };

/** CPU time this process has used, in microseconds (user + system). */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Pairs of flow reports (uplink and downlink) in the pool the ingestion measure draws from. */
const INGEST_POOL_PAIRS = 5_000;

async function serveRecords(path: string, generatedAt: number, subscribers: number): Promise<void> {
  const shift = generatedAt - Date.now();
  const clock = { now: () => Date.now() + shift };
  const core = await createCore({
    storage: { path },
    logger: pino({ level: 'silent' }),
    clock,
    secretKey: randomBytes(32),
    backgroundJobs: false,
  });
  const { app } = await buildHttpApp(core);
  core.lifecycle.add({ name: 'http', stop: () => app.close() });
  await core.start();
  const records = core.records.ingestion;
  const { retention } = core;
  await app.listen({ host: '127.0.0.1', port: 0 });
  let peakRss = process.memoryUsage().rss;
  setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 100).unref();
  const send = (message: object) => process.send?.(message);
  // The reports offered are drawn from a pool generated once (times relative to 0), each offered as a
  // fresh object ending now, as a user plane would build it: what is measured is the pipeline, not the
  // random generator, which cost about 6 µs a report, a third of the service's thread.
  const random = createRandom(7);
  const pool = Array.from({ length: INGEST_POOL_PAIRS }, () => flowPair(random, subscribers, 0)).flat();
  let next = 0;

  /** Offers flow reports as fast as the pipeline accepts them, as a busy user plane would. */
  async function ingest(seconds: number): Promise<void> {
    const started = performance.now();
    const cpuStarted = cpuMicros();
    const until = started + seconds * 1000;
    let accepted = 0;
    let refusals = 0;
    while (performance.now() < until) {
      const batch: FlowReportInput[] = [];
      const end = clock.now();
      while (batch.length < 1000) {
        const report = pool[next++ % pool.length] as FlowReportInput;
        batch.push({ ...report, startTime: end + report.startTime, endTime: end });
      }
      while (!records.recordFlowReports(batch)) {
        refusals += 1;
        await records.whenWritable(batch.length);
      }
      accepted += batch.length;
      await yieldToEventLoop();
    }
    await records.flush();
    const elapsed = (performance.now() - started) / 1000;
    send({
      type: 'ingested',
      accepted,
      seconds: elapsed,
      refusals,
      cpuSeconds: (cpuMicros() - cpuStarted) / 1e6,
    });
  }

  process.on('message', (command: Command) => {
    void (async () => {
      if (command.type === 'ingest') await ingest(command.seconds);
      if (command.type === 'retention') {
        await retention.setDays('flow_reports', command.days, personActor('bench@example.com', '127.0.0.1'));
        const started = performance.now();
        const deleted = await retention.enforce();
        send({
          type: 'retained',
          deleted: deleted.flow_reports ?? 0,
          seconds: (performance.now() - started) / 1000,
        });
      }
      if (command.type === 'rss') send({ type: 'rss', peakRss, rss: process.memoryUsage().rss });
      if (command.type === 'cpu') send({ type: 'cpu', micros: cpuMicros() });
      if (command.type === 'stop') {
        await core.stop();
        process.exit(0);
      }
    })();
  });
  send({ type: 'ready', port: (app.server.address() as AddressInfo).port });
}

function serveBaseline(): void {
  const body = JSON.stringify({ result: { items: [], page: 1, per_page: 25, total_count: 0 } });
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
    });
    response.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
  });
  process.on('message', (command: Command) => {
    if (command.type === 'cpu') process.send?.({ type: 'cpu', micros: cpuMicros() });
    if (command.type === 'stop') process.exit(0);
  });
}

// ---------------------------------------------------------------------------------------------------
// The driver.

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function schemaFingerprint(): Promise<string> {
  const db = openSqliteDatabase(':memory:');
  await migrateToLatest(db);
  const { rows } = await sql<{
    sql: string;
  }>`select sql from sqlite_master where sql is not null order by name`.execute(db);
  await db.destroy();
  // The layout of the rows counts too: reports are bucketed as they are inserted.
  return createHash('sha256')
    .update(rows.map((row) => row.sql).join('\n'))
    .update(`\nflow report bucket: ${BUCKET_REPORTS}`)
    .digest('hex')
    .slice(0, 16);
}

async function ensureDataset(scale: number): Promise<{ path: string; marker: Marker }> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const name = scale === 1 ? 'records-dataset' : `records-dataset-x${scale}`;
  const path = `${BENCH_DIR}/${name}.db`;
  const markerPath = `${BENCH_DIR}/${name}.json`;
  const dataset = datasetOf(scale);
  const schema = await schemaFingerprint();
  if (existsSync(path) && existsSync(markerPath)) {
    const marker = JSON.parse(readFileSync(markerPath, 'utf8')) as Marker;
    if (marker.schema === schema && JSON.stringify(marker.dataset) === JSON.stringify(dataset)) {
      log(`data set: reusing ${path} (generated in ${marker.generationSeconds.toFixed(0)} s)`);
      return { path, marker };
    }
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  log(`data set: generating ${JSON.stringify(dataset)} into ${path}`);
  const started = performance.now();
  const generatedAt = systemClock.now();
  const db = openSqliteDatabase(path);
  await migrateToLatest(db);
  const { ingestion } = createRecordsPipeline({
    db,
    clock: systemClock,
    logger: pino({ level: 'warn' }),
    writerOptions: { capacity: 200_000, batchSize: 20_000 },
  });
  const random = createRandom(1);
  const span = { start: generatedAt - dataset.recordDays * DAY_MS, end: generatedAt };
  const step = async (label: string, work: () => Promise<void>) => {
    const t0 = performance.now();
    await work();
    await ingestion.flush();
    log(`  ${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  await step(`${dataset.radioEvents} radio events`, () =>
    seedRadioEvents(ingestion, random, dataset.radioEvents, span),
  );
  await step(`${dataset.flows} flow reports`, () =>
    seedFlows(ingestion, random, dataset.flows, dataset.subscribers, span),
  );
  await step(`${dataset.subscriberLogs} subscriber logs, ${dataset.radioLogs} radio logs`, () =>
    seedLogs(ingestion, random, dataset, span),
  );
  await step(`${dataset.usageDays} days of usage for ${dataset.subscribers} subscribers`, () =>
    seedUsage(ingestion, random, dataset.subscribers, dataset.usageDays, generatedAt),
  );
  await ingestion.close();
  await db.destroy();
  const marker: Marker = {
    dataset,
    schema,
    generatedAt,
    generationSeconds: (performance.now() - started) / 1000,
  };
  writeFileSync(markerPath, JSON.stringify(marker, null, 2));
  log(`data set: generated in ${marker.generationSeconds.toFixed(0)} s`);
  return { path, marker };
}

function start(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  // The service child runs with the service's own heap flags: its RSS is one of the measures.
  const child = fork(SELF, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, ...SERVICE_NODE_FLAGS],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
    child.once('message', (message: { type: string; port: number }) =>
      resolve({ child, port: message.port }),
    );
  });
}

function request(child: ChildProcess, command: Command, reply: string): Promise<Record<string, number>> {
  return new Promise((resolve) => {
    const listener = (message: { type: string } & Record<string, number>) => {
      if (message.type !== reply) return;
      child.off('message', listener);
      resolve(message);
    };
    child.on('message', listener);
    child.send(command);
  });
}

interface Measure {
  /** CPU time the server spent per request, in ms: unlike latency, not inflated by other work. */
  cpuMs?: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

/**
 * The load generator and Prettier are loaded by the driver only, so the service's child process holds
 * what the service holds and its RSS is the service's.
 */
let loadTest: typeof autocannon | undefined;

function cannon(options: autocannon.Options): { done: Promise<Measure>; stop: () => void } {
  let resolveDone: (measure: Measure) => void = () => undefined;
  let rejectDone: (error: unknown) => void = () => undefined;
  const done = new Promise<Measure>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  if (!loadTest) throw new Error('the load generator is loaded by main()');
  const instance = loadTest(options, (error, result) => {
    if (error) {
      rejectDone(error);
      return;
    }
    resolveDone({
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      requests: result.requests.total,
      errors: result.errors + result.non2xx,
    });
  });
  return { done, stop: () => instance.stop() };
}

/** Runs autocannon against a server process and adds the server's CPU time per request. */
async function measure(server: ChildProcess, options: autocannon.Options): Promise<Measure> {
  const before = await request(server, { type: 'cpu' }, 'cpu');
  const result = await cannon(options).done;
  const after = await request(server, { type: 'cpu' }, 'cpu');
  return {
    ...result,
    cpuMs: ((after.micros ?? 0) - (before.micros ?? 0)) / 1000 / Math.max(result.requests, 1),
  };
}

async function logRss(server: ChildProcess, phase: string): Promise<void> {
  const { rss = 0, peakRss = 0 } = await request(server, { type: 'rss' }, 'rss');
  log(
    `  [service RSS after ${phase}: ${(rss / 2 ** 20).toFixed(0)} MiB, peak so far ${(peakRss / 2 ** 20).toFixed(0)} MiB]`,
  );
}

async function main(duration: number, scale: number): Promise<void> {
  loadTest = (await import('autocannon')).default;
  const { path: datasetPath, marker } = await ensureDataset(scale);
  const runPath = `${BENCH_DIR}/records-run.db`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${runPath}${suffix}`, { force: true });
  copyFileSync(datasetPath, runPath);

  const baseline = await start(['--serve-baseline']);
  const service = await start([
    '--serve-records',
    runPath,
    String(marker.generatedAt),
    String(marker.dataset.subscribers),
  ]);
  const base = `http://127.0.0.1:${service.port}`;
  const init = await fetch(`${base}/api/v1/init`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password' }),
  });
  const jwt = ((await init.json()) as { result: { token: string } }).result.token;
  const created = await fetch(`${base}/api/v1/users/me/api-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
    body: JSON.stringify({ name: 'bench' }),
  });
  const token = ((await created.json()) as { result: { token: string } }).result.token;
  const headers = { authorization: `Bearer ${token}` };
  await logRss(service.child, 'start');

  const day = (offset: number) => new Date(marker.generatedAt - offset * DAY_MS).toISOString().slice(0, 10);
  const imsi = '001010000000042';
  const lists: [string, string][] = [
    ['radio events, message_type', '/api/v1/ran/events?message_type=InitialUEMessage'],
    [
      'radio events, time window (1 h)',
      `/api/v1/ran/events?timestamp_from=${day(1)}T10:00:00Z&timestamp_to=${day(1)}T11:00:00Z`,
    ],
    ['subscriber logs, imsi', `/api/v1/logs/subscribers?imsi=${imsi}`],
    ['radio logs, ran_id', '/api/v1/logs/radio?ran_id=001:01:000001'],
    ['flow reports, subscriber_id', `/api/v1/flow-reports?subscriber_id=${imsi}`],
    ['flow reports, destination IP:port', '/api/v1/flow-reports?destination=8.8.8.8:53'],
    ['flow reports, subscriber_id + protocol', `/api/v1/flow-reports?subscriber_id=${imsi}&protocol=17`],
    ['flow reports, protocol (40% of rows)', '/api/v1/flow-reports?protocol=17'],
    ['flow reports, no filter (default 7 days)', '/api/v1/flow-reports'],
  ];
  const heavy: [string, string][] = [
    ['flow stats, 7 days', '/api/v1/flow-reports/stats'],
    ['flow group_by=day, 7 days', '/api/v1/flow-reports?group_by=day'],
    ['flow stats, 1 subscriber, 7 days', `/api/v1/flow-reports/stats?subscriber_id=${imsi}`],
    ['usage group_by=day, 30 days', `/api/v1/subscriber-usage?start=${day(29)}&end=${day(0)}`],
    [
      'usage group_by=subscriber, 30 days',
      `/api/v1/subscriber-usage?group_by=subscriber&start=${day(29)}&end=${day(0)}`,
    ],
  ];

  const connections = 4;
  log(`\nbaseline: bare node:http, ${connections} connections, ${duration} s`);
  const bare = await measure(baseline.child, {
    url: `http://127.0.0.1:${baseline.port}/`,
    connections,
    duration,
  });
  const bareCpu = bare.cpuMs ?? 0;
  log(
    `  ${bare.rps.toFixed(0)} req/s, p50 ${bare.p50} ms, p99 ${bare.p99} ms, ${bareCpu.toFixed(3)} CPU ms/request`,
  );

  const rows: string[] = [];
  const listP99: { label: string; p99: number }[] = [];
  const ratio = (value: number, reference: number) => (reference > 0 ? value / reference : NaN);
  for (const [label, path] of lists) {
    const m = await measure(service.child, { url: `${base}${path}`, headers, connections, duration });
    const cpu = m.cpuMs ?? 0;
    listP99.push({ label, p99: m.p99 });
    log(
      `${label}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${cpu.toFixed(2)} CPU ms, errors ${m.errors}`,
    );
    rows.push(
      `| ${label} | \`${path}\` | ${m.rps.toFixed(0)} | ${m.p50} | ${m.p99} | ${cpu.toFixed(2)} | ` +
        `${(ratio(m.rps, bare.rps) * 100).toFixed(1)}% | ${ratio(cpu, bareCpu).toFixed(0)}x |`,
    );
  }

  await logRss(service.child, 'lists');
  const heavyRows: string[] = [];
  const heavyP99 = new Map<string, number>();
  for (const [label, path] of heavy) {
    const m = await measure(service.child, { url: `${base}${path}`, headers, connections: 1, duration });
    const cpu = m.cpuMs ?? 0;
    log(
      `${label}: ${m.requests} requests, p50 ${m.p50} ms, p99 ${m.p99} ms, ${cpu.toFixed(1)} CPU ms, errors ${m.errors}`,
    );
    heavyRows.push(`| ${label} | \`${path}\` | ${m.requests} | ${m.p50} | ${m.p99} | ${cpu.toFixed(1)} |`);
    heavyP99.set(label, m.p99);
  }

  await logRss(service.child, 'aggregates');
  // Ingestion alone, then while the API is queried.
  const alone = await request(service.child, { type: 'ingest', seconds: duration }, 'ingested');
  const aloneRate = (alone.accepted ?? 0) / (alone.seconds ?? 1);
  const perCpuSecond = (alone.accepted ?? 0) / (alone.cpuSeconds ?? 1);
  log(`ingestion alone: ${aloneRate.toFixed(0)} flow reports/s, ${perCpuSecond.toFixed(0)} per CPU-second`);
  await logRss(service.child, 'ingestion alone');
  const queryPath = `/api/v1/flow-reports?subscriber_id=${imsi}`;
  const load = cannon({ url: `${base}${queryPath}`, headers, connections, duration: duration + 30 });
  const loaded = await request(service.child, { type: 'ingest', seconds: duration }, 'ingested');
  load.stop();
  const during = await load.done;
  const loadedRate = (loaded.accepted ?? 0) / (loaded.seconds ?? 1);
  log(
    `ingestion while queried: ${loadedRate.toFixed(0)} flow reports/s; API p50 ${during.p50} ms, ` +
      `p99 ${during.p99} ms, ${during.rps.toFixed(0)} req/s`,
  );

  await logRss(service.child, 'ingestion while queried');
  // Retention: 5 days keeps the newest 5 of the 7 days, so more than a million reports expire.
  const retentionLoad = cannon({ url: `${base}${queryPath}`, headers, connections, duration: 3600 });
  const retained = await request(service.child, { type: 'retention', days: 5 }, 'retained');
  retentionLoad.stop();
  const duringRetention = await retentionLoad.done;
  log(
    `retention deleted ${retained.deleted} flow reports in ${(retained.seconds ?? 0).toFixed(1)} s; ` +
      `API p50 ${duringRetention.p50} ms, p99 ${duringRetention.p99} ms meanwhile`,
  );

  const { peakRss = 0 } = await request(service.child, { type: 'rss' }, 'rss');
  log(`service peak RSS: ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
  service.child.send({ type: 'stop' });
  baseline.child.send({ type: 'stop' });

  const d = marker.dataset;
  const worst = listP99.reduce((a, b) => (b.p99 > a.p99 ? b : a));
  const within = listP99.filter((m) => m.p99 < 100).length;
  const met = (ok: boolean) => (ok ? 'met' : 'missed');
  const aggregates = ['flow stats, 7 days', 'flow group_by=day, 7 days'].map(
    (label) => heavyP99.get(label) ?? NaN,
  );
  const usageByDay = heavyP99.get('usage group_by=day, 30 days') ?? NaN;
  const section = `## Records

Measured by \`npm run bench -- --only records\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version},
${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM). Other work
may have shared the two cores during the run, so read the ratios to the bare \`node:http\` server measured
in the same run rather than the absolute figures.

Data set: ${d.radioEvents.toLocaleString('en')} radio events and ${d.flows.toLocaleString('en')} flow reports over the last
${d.recordDays} days, ${d.subscriberLogs.toLocaleString('en')} subscriber logs, ${d.radioLogs.toLocaleString('en')} radio logs,
${d.usageDays} days of usage for ${d.subscribers.toLocaleString('en')} subscribers
(${(d.usageDays * d.subscribers).toLocaleString('en')} day counters), embedded SQLite. Generated once through the
ingestion interface in ${marker.generationSeconds.toFixed(0)} s and cached in \`.bench/\`.

Bare \`node:http\` baseline: ${bare.rps.toFixed(0)} req/s, p50 ${bare.p50} ms, p99 ${bare.p99} ms,
${bareCpu.toFixed(3)} CPU ms per request (${connections} connections, ${duration} s). "CPU ms/request" is the CPU
time the server process spent per answered request: contention from other processes inflates latency
but not this figure, so it and its ratio to the bare server are the most stable columns.

### Against the goals of issue 4

| goal | measured | |
|---|---|---|
| flow report ingestion of 50,000/s or more, sustained, while the API is queried | ${loadedRate.toFixed(0)}/s (${perCpuSecond.toFixed(0)} per CPU-second alone) | ${met(loadedRate >= 50_000)} |
| p99 of a filtered page of each list under 100 ms | ${within} of ${listP99.length} pages; worst: ${worst.label}, ${worst.p99} ms | ${met(within === listP99.length)} |
| flow \`stats\` and \`group_by=day\` over 7 days under 1 s | p99 ${aggregates.join(' ms and ')} ms | ${met(aggregates.every((p) => p < 1000))} |
| usage by day over 30 days | p99 ${usageByDay} ms | |
| API p99 while retention deletes a million rows | ${duringRetention.p99} ms (${(retained.deleted ?? 0).toLocaleString('en')} flow reports) | ${met(duringRetention.p99 < 100)} |
| peak RSS of the service under 300 MB | ${(peakRss / 2 ** 20).toFixed(0)} MiB | ${met(peakRss < 300 * 1e6)} |

### A filtered page of each list (${connections} connections, ${duration} s each; page 1, 25 items, with \`total_count\`)

| list | request | req/s | p50 ms | p99 ms | CPU ms/request | req/s vs bare | CPU/request vs bare |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

### Aggregates (1 connection, ${duration} s each)

| query | request | requests | p50 ms | p99 ms | CPU ms/request |
|---|---|---|---|---|---|
${heavyRows.join('\n')}

### Ingestion, retention, memory

Inside the service's process, a loop offers flow reports in batches of 1,000 as fast as the pipeline
takes them (waiting on back-pressure), as a user plane would. Each report is a fresh object ending
when it is offered, copied from a pool of ${(2 * INGEST_POOL_PAIRS).toLocaleString('en-US')} reports
generated beforehand, so the measure is the pipeline's and not the random generator's (generating
each report cost about 6 µs of the service's thread, a third of it). The service runs with the heap
flags of \`src/node-flags.ts\`, as every launcher does.

| measure | result |
|---|---|
| flow report ingestion, alone (${duration} s) | ${aloneRate.toFixed(0)} reports/s (${perCpuSecond.toFixed(0)} per CPU-second of the service) |
| flow report ingestion while the API is queried (${duration} s) | ${loadedRate.toFixed(0)} reports/s |
| API while ingesting: \`${queryPath}\` | p50 ${during.p50} ms, p99 ${during.p99} ms, ${during.rps.toFixed(0)} req/s |
| retention deleting ${(retained.deleted ?? 0).toLocaleString('en')} flow reports | ${(retained.seconds ?? 0).toFixed(1)} s |
| API while retention deletes: same request | p50 ${duringRetention.p50} ms, p99 ${duringRetention.p99} ms, ${duringRetention.rps.toFixed(0)} req/s |
| service peak RSS during all of the above | ${(peakRss / 2 ** 20).toFixed(0)} MiB |
`;
  await writeSection(section);
  log('\nwrote the Records section of docs/performance.md');
}

/**
 * Replaces the "## Records" section of docs/performance.md (creating the file), leaving the other
 * sections alone, and formats the file as the repository's Prettier settings say.
 */
async function writeSection(section: string): Promise<void> {
  const path = `${ROOT}docs/performance.md`;
  mkdirSync(`${ROOT}docs`, { recursive: true });
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Performance\n';
  const start = current.indexOf('\n## Records\n');
  let next: string;
  if (start === -1) {
    next = `${current.trimEnd()}\n\n${section}`;
  } else {
    const after = current.indexOf('\n## ', start + 1);
    next = `${current.slice(0, start)}\n${section}${after === -1 ? '' : current.slice(after)}`;
  }
  const { format, resolveConfig } = await import('prettier');
  const options = (await resolveConfig(path)) ?? {};
  writeFileSync(path, await format(`${next.trimEnd()}\n`, { ...options, filepath: path }));
}

/** The `records` suite of `npm run bench`: its tables go to docs/performance.md, not to the summary. */
export const run: Suite = async ({ durationSeconds }) => {
  await main(durationSeconds, 1);
  return [];
};

if (process.argv[1] === SELF) {
  const [role, ...rest] = process.argv.slice(2);
  if (role === '--serve-records') {
    await serveRecords(rest[0] ?? '', Number(rest[1]), Number(rest[2]));
  } else if (role === '--serve-baseline') {
    serveBaseline();
  } else {
    const { values } = parseArgs({
      options: { duration: { type: 'string', default: '10' }, scale: { type: 'string', default: '1' } },
      strict: true,
    });
    await main(Number(values.duration), Number(values.scale));
  }
}
