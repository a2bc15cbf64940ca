// The subscriber list at 1,000,000 subscribers (issue 12 item 9), beside the same list at 100,000 in the
// same run: CPU per page of 100 at the first, the middle and the last page, the first deep page after a
// start and after an import that sorts after every existing IMSI (its wall and CPU time and the longest
// the event loop was held meanwhile, beside the same ticker on an idle loop), and GET /api/v1/users/me as
// the per-request floor. The service runs in this process (core and Fastify app, requests through inject)
// on a SQLite file in a temporary directory; the subscribers are inserted by SQL, 500 rows a statement
// (sealed values are placeholders: lists never open them), then the service is restarted on the file so
// the first deep page meets cold positions.
//
//   npx tsx bench/subscribers-1m.ts [--seconds N] [--sizes 100000,1000000]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createCore } from '../src/core/create-core.ts';
import { buildHttpApp } from '../src/http/build-http-app.ts';
import { sqliteFileOf } from '../src/storage/database.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '1' },
    sizes: { type: 'string', default: '100000,1000000' },
  },
});
const SECONDS = Number(values.seconds);
if (!(SECONDS > 0)) throw new RangeError('--seconds must be a positive number');
const SIZES = values.sizes.split(',').map(Number);
if (SIZES.some((size) => !Number.isInteger(size) || size < 20_000)) {
  throw new RangeError('--sizes are whole numbers of subscribers, at least 20000');
}

const PER_PAGE = 100;
const IMPORT = 10_000;
const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const imsiOf = (n: number): string => `00101${String(n).padStart(10, '0')}`;
const secretKey = randomBytes(32);

async function startService(path: string) {
  const core = await createCore({
    storage: { path },
    logger: pino({ level: 'silent' }),
    secretKey,
    scryptCost: { N: 1024, r: 8, p: 1 },
    backgroundJobs: false,
  });
  const { app } = await buildHttpApp(core, {});
  core.lifecycle.add({ name: 'http', stop: () => app.close() });
  await core.start();
  return { core, app };
}

type Service = Awaited<ReturnType<typeof startService>>;

async function call(
  service: Service,
  method: 'GET' | 'POST',
  url: string,
  token?: string,
  payload?: unknown,
) {
  const response = await service.app.inject({
    method,
    url,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (response.statusCode < 200 || response.statusCode > 299) {
    throw new Error(`${method} ${url} answered ${response.statusCode}: ${response.body}`);
  }
  return response.json<{ result: Record<string, unknown> }>().result;
}

/** CPU µs per request (user + system, this process), over `SECONDS` of CPU after a short warm-up. */
async function cpuPerRequest(service: Service, url: string, token: string): Promise<number> {
  for (let i = 0; i < 20; i++) await call(service, 'GET', url, token);
  let requests = 0;
  const start = process.cpuUsage();
  let used = 0;
  while (used < SECONDS * 1e6) {
    for (let i = 0; i < 20; i++) await call(service, 'GET', url, token);
    requests += 20;
    const delta = process.cpuUsage(start);
    used = delta.user + delta.system;
  }
  return used / requests;
}

/**
 * A ticker that runs whenever the event loop is free (every millisecond at most) and keeps the longest
 * stretch the loop was held: in wall time (what a waiting request sees, which on a busy machine includes
 * time the process was not scheduled at all) and in CPU time of this process between two ticks (what our
 * code held it for, whatever else runs on the machine).
 */
function loopHolds() {
  let lastWall = performance.now();
  let lastCpu = process.cpuUsage();
  let maxWallMs = 0;
  let maxCpuMs = 0;
  const ticker = setInterval(() => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    maxWallMs = Math.max(maxWallMs, wall - lastWall);
    maxCpuMs = Math.max(maxCpuMs, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000);
    lastWall = wall;
    lastCpu = cpu;
  }, 1);
  return {
    stop() {
      clearInterval(ticker);
      return { maxWallMs, maxCpuMs };
    },
  };
}

const settle = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** One request's wall time and CPU, and the longest the event loop was held while it ran. */
async function stallOf(service: Service, url: string, token: string) {
  // Whatever an earlier request left queued (an import's follow-up work) runs before the measure.
  await settle(500);
  const holds = loopHolds();
  await settle(5);
  const began = performance.now();
  const cpu = process.cpuUsage();
  await call(service, 'GET', url, token);
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - began;
  // Let the ticker run once more, so a hold at the very end of the request is counted.
  await settle(5);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, ...holds.stop() };
}

/** Rows per INSERT statement of the seed: one statement per row would pay a statement journal each. */
const SEED_CHUNK = 500;

function seed(service: Service, count: number): void {
  const sqlite = sqliteFileOf(service.core.db).connection();
  const profile = sqlite.prepare("SELECT id FROM profiles WHERE name = 'default'").pluck().get() as number;
  const row = "(?, ?, 'placeholder', 'placeholder', '000000000001', 0)";
  const insert = sqlite.prepare(
    'INSERT INTO subscribers (imsi, profile_id, key_sealed, opc_sealed, sequence_number, created_at) VALUES ' +
      Array.from({ length: SEED_CHUNK }, () => row).join(', '),
  );
  sqlite.transaction(() => {
    for (let start = 0; start < count; start += SEED_CHUNK) {
      insert.run(Array.from({ length: SEED_CHUNK }, (_, i) => [imsiOf((start + i) * 2), profile]).flat());
    }
  })();
}

/** The same ticker while nothing of ours runs: the machine's own noise, as a baseline. */
async function idleHolds(ms: number) {
  const holds = loopHolds();
  await settle(ms);
  return holds.stop();
}

interface Row {
  size: number;
  floorUs: number;
  firstDeep: Awaited<ReturnType<typeof stallOf>>;
  idle: Awaited<ReturnType<typeof idleHolds>>;
  pageUs: { first: number; middle: number; last: number };
  importSeconds: number;
  deepAfterImport: Awaited<ReturnType<typeof stallOf>>;
  pageAfterImportUs: number;
}

async function measure(size: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-bench-1m-'));
  const path = join(dir, 'core.db');
  try {
    let service = await startService(path);
    const bearer = (await call(service, 'POST', '/api/v1/init', undefined, ADMIN)).token as string;
    const token = (await call(service, 'POST', '/api/v1/users/me/api-tokens', bearer, { name: 'bench' }))
      .token as string;
    const began = performance.now();
    seed(service, size);
    process.stderr.write(`${size}: seeded in ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
    await service.core.stop();

    // A fresh start on the file: nothing remembered of the list, SQLite's cache empty.
    service = await startService(path);
    const lastPage = Math.ceil(size / PER_PAGE);
    const page = (n: number) => `/api/v1/subscribers?per_page=${PER_PAGE}&page=${n}`;
    await call(service, 'GET', page(1), token);
    const firstDeep = await stallOf(service, page(lastPage), token);
    const idle = await idleHolds(firstDeep.wallMs);
    const floorUs = await cpuPerRequest(service, '/api/v1/users/me', token);
    const pageUs = {
      first: await cpuPerRequest(service, page(1), token),
      middle: await cpuPerRequest(service, page(Math.ceil(lastPage / 2)), token),
      last: await cpuPerRequest(service, page(lastPage), token),
    };

    // An import whose IMSIs sort after every existing one, then the first page among them.
    const body = Array.from({ length: IMPORT }, (_, i) => ({
      imsi: imsiOf(size * 2 + i),
      key: '465b5ce8b199b49faa5f0a2ee238a6bc',
      sequenceNumber: '000000000001',
      profile_name: 'default',
    }));
    const importBegan = performance.now();
    await call(service, 'POST', '/api/v1/subscribers/import', token, body);
    const importSeconds = (performance.now() - importBegan) / 1000;
    const newLast = Math.ceil((size + IMPORT) / PER_PAGE);
    const deepAfterImport = await stallOf(service, page(newLast), token);
    const pageAfterImportUs = await cpuPerRequest(service, page(newLast), token);
    await service.core.stop();
    return {
      size,
      floorUs,
      firstDeep,
      idle,
      pageUs,
      importSeconds,
      deepAfterImport,
      pageAfterImportUs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
process.stdout.write(`subscriber list at scale; load average ${load()} at start\n\n`);
const rows: Row[] = [];
for (const size of SIZES) rows.push(await measure(size));

const us = (value: number) => `${value.toFixed(0)} µs`;
const ms = (value: number) => `${value.toFixed(1)} ms`;
const lines = [
  '| subscribers | users/me (floor) | page 1 | middle page | last page | first deep page after start: wall / CPU / longest loop hold, wall and CPU | idle as long: longest hold, wall and CPU | import of 10,000 after all | first deep page after it: wall / CPU / longest hold, wall and CPU | that page after |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows
    .map((row) =>
      [
        row.size.toLocaleString('en-US'),
        us(row.floorUs),
        us(row.pageUs.first),
        us(row.pageUs.middle),
        us(row.pageUs.last),
        `${ms(row.firstDeep.wallMs)} / ${ms(row.firstDeep.cpuMs)} / ${ms(row.firstDeep.maxWallMs)}, ${ms(row.firstDeep.maxCpuMs)}`,
        `${ms(row.idle.maxWallMs)}, ${ms(row.idle.maxCpuMs)}`,
        `${row.importSeconds.toFixed(2)} s`,
        `${ms(row.deepAfterImport.wallMs)} / ${ms(row.deepAfterImport.cpuMs)} / ${ms(row.deepAfterImport.maxWallMs)}, ${ms(row.deepAfterImport.maxCpuMs)}`,
        us(row.pageAfterImportUs),
      ].join(' | '),
    )
    .map((line) => `| ${line} |`),
];
process.stdout.write(
  `${lines.join('\n')}\n\nCPU per request of this process (service and inject); load average ${load()} at end\n`,
);
