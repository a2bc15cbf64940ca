// The pcapng export of radio events (issue 32 item 4; goal: 100,000 events within 5 s and bounded
// memory), beside the list endpoint reading the same rows (pages of 100, one after the other). The
// service runs in this process (core and Fastify app listening on a loopback port, so the export really
// streams) on a SQLite file in a temporary directory, seeded through the records ingestion with real NGAP
// PDUs (NG Setup Request and Initial UE Message with its NAS) from one connected radio. Memory: the
// process's RSS and heap sampled every 5 ms during each export, less what they were just before it;
// an export of a tenth of the rows beside it shows whether the peak grows with the rows. tshark then
// reads the whole capture and the bench counts the frames it marked malformed and those with NGAP.
//
//   npx tsx bench/radio-events-export.ts [--rows 100000] [--no-tshark]
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createCore } from '../src/core/create-core.ts';
import { buildHttpApp } from '../src/http/build-http-app.ts';
import { encodeNgapPdu } from '../src/network/ngap/ngap-codec.ts';
import { initialUeMessage, ngSetupRequest } from '../test/network/amf/messages.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    'no-tshark': { type: 'boolean', default: false },
  },
});
const ROWS = Number(values.rows);
if (!Number.isInteger(ROWS) || ROWS < 1000) throw new RangeError('--rows must be a whole number >= 1000');

const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const PER_PAGE = 100;
const dir = mkdtempSync(join(tmpdir(), 'pmn-export-bench-'));

const core = await createCore({
  storage: { path: join(dir, 'core.db') },
  logger: pino({ level: 'silent' }),
  secretKey: randomBytes(32),
  scryptCost: { N: 1024, r: 8, p: 1 },
  backgroundJobs: false,
});
const { app } = await buildHttpApp(core, {
  exportMaxRows: ROWS,
  network: {
    endpoint: () => ({ transport: 'kernel', local: [{ address: '10.0.0.1', port: 38412 }] }),
    upf: () => undefined,
  },
});
core.lifecycle.add({ name: 'http', stop: () => app.close() });
await core.start();
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as AddressInfo;

const init = await app.inject({ method: 'POST', url: '/api/v1/init', payload: ADMIN });
const token = init.json<{ result: { token: string } }>().result.token;

// One radio, connected now, so the capture carries its address.
core.networkEvents.emit('radio.connected', {
  id: '001:01:000001',
  name: 'gnb-bench',
  address: '192.0.2.7:40000',
  ranNodeType: 'gNB',
  supportedTais: [],
});

const setup = encodeNgapPdu(ngSetupRequest({ name: 'gnb-bench' }));
const initialUe = encodeNgapPdu(initialUeMessage());
const start = Date.parse('2026-12-01T00:00:00Z');
const ingestion = core.records.ingestion;
for (let i = 0; i < ROWS; i++) {
  const ue = i % 2 === 1;
  const event = {
    protocol: 'NGAP',
    messageType: ue ? 'InitialUEMessage' : 'NGSetupRequest',
    direction: i % 4 === 3 ? ('outbound' as const) : ('inbound' as const),
    raw: ue ? initialUe : setup,
    details: ue ? { radio: 'gnb-bench', ran_ue_ngap_id: i } : { radio: 'gnb-bench' },
    timestamp: start + i,
  };
  while (!ingestion.recordRadioEvent(event)) await ingestion.whenWritable();
}
await ingestion.flush();

/** GET on the listening server; the body goes to `to.file`, is kept (`to.keep`), or is counted only. */
function get(
  path: string,
  to: { file?: string; keep?: boolean } = {},
): Promise<{ status: number; bytes: number; body: string }> {
  const sink = to.file;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        let bytes = 0;
        const kept: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (to.keep) kept.push(chunk);
        });
        const done = () =>
          resolve({ status: res.statusCode ?? 0, bytes, body: Buffer.concat(kept).toString() });
        if (sink === undefined) res.on('end', done);
        else pipeline(res, createWriteStream(sink)).then(done, reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Peak RSS and heap above their level at the start, sampled every 5 ms while `run` runs. */
async function measured<T>(run: () => Promise<T>) {
  global.gc?.();
  const base = process.memoryUsage();
  let rss = 0;
  let heap = 0;
  const sample = () => {
    const now = process.memoryUsage();
    rss = Math.max(rss, now.rss - base.rss);
    heap = Math.max(heap, now.heapUsed - base.heapUsed);
  };
  const sampler = setInterval(sample, 5);
  const t0 = performance.now();
  const value = await run();
  const ms = performance.now() - t0;
  clearInterval(sampler);
  sample();
  return { value, ms, rssMiB: rss / 2 ** 20, heapMiB: heap / 2 ** 20 };
}

const file = join(dir, 'export.pcapng');
const small = await measured(() =>
  get(`/api/v1/ran/events/export.pcapng?timestamp_to=${new Date(start + ROWS / 10 - 1).toISOString()}`),
);
const whole = await measured(() => get('/api/v1/ran/events/export.pcapng', { file }));
if (whole.value.status !== 200) throw new Error(`export answered ${whole.value.status}`);

const list = await measured(async () => {
  let read = 0;
  for (let page = 1; read < ROWS; page++) {
    const answer = await get(`/api/v1/ran/events?per_page=${PER_PAGE}&page=${page}`, { keep: true });
    if (answer.status !== 200) throw new Error(`list answered ${answer.status}: ${answer.body}`);
    read += (JSON.parse(answer.body) as { result: { items: unknown[] } }).result.items.length;
  }
  return read;
});

let tshark = 'not run';
if (!values['no-tshark']) {
  const { stdout } = await promisify(execFile)(
    'tshark',
    ['-r', file, '-T', 'fields', '-e', '_ws.malformed', '-e', 'ngap.procedureCode'],
    { maxBuffer: 1 << 30 },
  );
  const lines = stdout.split('\n').filter((line) => line !== '');
  const malformed = lines.filter((line) => line.split('\t')[0] !== '').length;
  const ngap = lines.filter((line) => (line.split('\t')[1] ?? '') !== '').length;
  tshark = `${lines.length} frames, ${ngap} with NGAP, ${malformed} malformed`;
}

const f = (n: number) => n.toFixed(0);
const print = (line: string) => process.stdout.write(`${line}\n`);
print(`radio events: ${ROWS}, load average ${loadavg()[0]?.toFixed(1)}`);
print(
  `export ${ROWS}: ${f(whole.ms)} ms, ${(whole.value.bytes / 2 ** 20).toFixed(1)} MiB, ` +
    `peak RSS +${whole.rssMiB.toFixed(1)} MiB, heap +${whole.heapMiB.toFixed(1)} MiB`,
);
print(
  `export ${ROWS / 10}: ${f(small.ms)} ms, peak RSS +${small.rssMiB.toFixed(1)} MiB, ` +
    `heap +${small.heapMiB.toFixed(1)} MiB`,
);
print(
  `list ${list.value} rows in ${ROWS / PER_PAGE} pages of ${PER_PAGE}: ${f(list.ms)} ms ` +
    `(export / list ${(whole.ms / list.ms).toFixed(2)})`,
);
print(`tshark: ${tshark}`);

await core.stop();
rmSync(dir, { recursive: true, force: true });
