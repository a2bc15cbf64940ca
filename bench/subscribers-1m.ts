// The subscriber list at 1,000,000 subscribers (issue 12 item 9), beside the same list at 100,000 in the
// same run: CPU per page of 100 at the first, the middle and the last page, the first deep page after a
// start and after an import that sorts after every existing IMSI (its wall time and the longest the event
// loop was held meanwhile), and GET /api/v1/users/me as the per-request floor. The service runs in this
// process (core and Fastify app, requests through inject) on a SQLite file in a temporary directory; the
// subscribers are inserted with one SQL statement per row (sealed values are placeholders: lists never open
// them), then the service is restarted on the file so the first deep page meets cold positions.
//
//   npx tsx bench/subscribers-1m.ts [--seconds N] [--sizes 100000,1000000]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
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

/** One request's wall time and the longest the event loop was held while it ran (a 1 ms ticker's view). */
async function stallOf(service: Service, url: string, token: string) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  // The monitor's first interval is not a sample: give it a few ticks before the request starts.
  await new Promise((done) => setTimeout(done, 20));
  const began = performance.now();
  const cpu = process.cpuUsage();
  await call(service, 'GET', url, token);
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - began;
  // Let the ticker fire once more, so a block at the very end of the request is counted.
  await new Promise((done) => setTimeout(done, 5));
  delay.disable();
  return { wallMs, cpuMs: (used.user + used.system) / 1000, maxDelayMs: delay.max / 1e6 };
}

function seed(service: Service, count: number): void {
  const sqlite = sqliteFileOf(service.core.db).connection();
  const profile = sqlite.prepare("SELECT id FROM profiles WHERE name = 'default'").pluck().get() as number;
  const insert = sqlite.prepare(
    'INSERT INTO subscribers (imsi, profile_id, key_sealed, opc_sealed, sequence_number, created_at) ' +
      "VALUES (?, ?, 'placeholder', 'placeholder', '000000000001', 0)",
  );
  sqlite.transaction(() => {
    for (let n = 0; n < count; n++) insert.run(imsiOf(n * 2), profile);
  })();
}

interface Row {
  size: number;
  floorUs: number;
  firstDeep: Awaited<ReturnType<typeof stallOf>>;
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
    const firstDeep = stallOf(service, page(lastPage), token);
    const firstDeepResult = await firstDeep;
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
      firstDeep: firstDeepResult,
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
  '| subscribers | users/me (floor) | page 1 | middle page | last page | first deep page after start: wall / CPU / max loop delay | import of 10,000 after all | first deep page after it: wall / CPU / max loop delay | that page after |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows
    .map((row) =>
      [
        row.size.toLocaleString('en-US'),
        us(row.floorUs),
        us(row.pageUs.first),
        us(row.pageUs.middle),
        us(row.pageUs.last),
        `${ms(row.firstDeep.wallMs)} / ${ms(row.firstDeep.cpuMs)} / ${ms(row.firstDeep.maxDelayMs)}`,
        `${row.importSeconds.toFixed(2)} s`,
        `${ms(row.deepAfterImport.wallMs)} / ${ms(row.deepAfterImport.cpuMs)} / ${ms(row.deepAfterImport.maxDelayMs)}`,
        us(row.pageAfterImportUs),
      ].join(' | '),
    )
    .map((line) => `| ${line} |`),
];
process.stdout.write(
  `${lines.join('\n')}\n\nCPU per request of this process (service and inject); load average ${load()} at end\n`,
);
