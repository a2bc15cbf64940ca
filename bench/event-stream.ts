// The live event stream's latency and cost (issue 32's goal: an event reaches a stream client within
// 100 ms of the message, median, with 100 clients connected). The service runs in this process on the
// test app over a database file (so records go through the records writer thread, as in production);
// the clients run in a child process, each an HTTP request reading GET /api/v1/events/stream. At a steady
// rate, the bench records subscriber logs through the records ingestion (as the AMF logs a NAS message;
// streamed as `nas.message` once written) and emits `ue.deregistered` network events (streamed at once).
// Latency is from the record or the emit to the client's parse of the frame: a record carries its send
// time in its details, an event its `timestamp`; both clocks are the wall clock, so the figures are in
// milliseconds. CPU is the service process's (its threads included) over each phase, divided by the
// frames delivered; phases with 0, 1 and `--clients` clients run in turn, so the rate's own cost
// (records written, events emitted) shows in the first.
//
//   npx tsx bench/event-stream.ts [--clients 100] [--rate 200] [--seconds 10]
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: {
    clients: { type: 'string', default: '100' },
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
    // The child's part: `--serve-clients <port> <token> <count>`.
    'serve-clients': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
const wallMs = () => performance.timeOrigin + performance.now();

interface Latencies {
  count: number;
  p50: number;
  p99: number;
}

function summarise(latencies: number[]): Latencies {
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { count: latencies.length, p50: at(0.5), p99: at(0.99) };
}

/**
 * The NAS messages of a deregistration: under real registrations (bench/registration.ts) the simulator
 * switches every device off in one burst after all registered, so their latencies are kept apart from the
 * steady registrations' (`nas.message deregistration`).
 */
const DEREGISTRATION = /^Deregistration /;

/** The child: opens `count` streams, says `ready`, and on `stop` prints the latencies it measured. */
async function serveClients(port: number, token: string, count: number): Promise<void> {
  const byKind: Record<string, number[]> = {
    'nas.message': [],
    'nas.message deregistration': [],
    'ue.deregistered': [],
  };
  let measuring = false;
  const opened = Array.from(
    { length: count },
    () =>
      new Promise<() => void>((resolve, reject) => {
        const req = request(
          {
            port,
            path: '/api/v1/events/stream?kinds=nas.message,ue.deregistered',
            headers: { authorization: `Bearer ${token}` },
          },
          (res) => {
            if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
            let buffer = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              buffer += chunk;
              // Every whole frame of the chunk, then what is left of the last one.
              let start = 0;
              let end;
              while ((end = buffer.indexOf('\n\n', start)) >= 0) {
                const dataAt = buffer.lastIndexOf('\ndata: ', end);
                const data = dataAt < start ? undefined : buffer.slice(dataAt + 7, end);
                start = end + 2;
                if (!measuring || data === undefined) continue;
                const now = wallMs();
                const event = JSON.parse(data) as {
                  kind: string;
                  timestamp: string;
                  message?: string;
                  details?: { sent?: number };
                };
                const sent = event.details?.sent ?? Date.parse(event.timestamp);
                const bucket =
                  event.kind === 'nas.message' && DEREGISTRATION.test(event.message ?? '')
                    ? 'nas.message deregistration'
                    : event.kind;
                byKind[bucket]?.push(now - sent);
              }
              buffer = buffer.slice(start);
            });
            resolve(() => req.destroy());
          },
        );
        req.on('error', reject);
        req.end();
      }),
  );
  const closers = await Promise.all(opened);
  measuring = true;
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line !== 'stop') continue;
    for (const close of closers) close();
    process.stdout.write(
      `${JSON.stringify(Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, summarise(v)])))}\n`,
    );
    process.exit(0);
  }
}

if (values['serve-clients']) {
  const [port, token, count] = positionals;
  await serveClients(Number(port), String(token), Number(count));
} else {
  await main();
}

async function main(): Promise<void> {
  const { createTestApp, initialize } = await import('../test/helpers/test-app.ts');
  const clients = Number(values.clients);
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  const print = (line: string) => process.stdout.write(`${line}\n`);

  const dir = await mkdtemp(join(tmpdir(), 'pmn-event-stream-'));
  const t = await createTestApp({
    database: join(dir, 'core.db'),
    eventStreamLimits: { maxClients: Math.max(256, clients + 1) },
  });
  const token = await initialize(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;

  /** Records and events at `rate` a second each, in ticks of 10 ms, for `duration` seconds. */
  async function generate(duration = seconds): Promise<number> {
    const perTick = rate / 100;
    const start = performance.now();
    let sent = 0;
    for (let tick = 1; tick <= duration * 100; tick++) {
      const due = Math.floor(tick * perTick) - Math.floor((tick - 1) * perTick);
      for (let i = 0; i < due; i++) {
        t.records.recordSubscriberLog({
          imsi: '001010000000001',
          event: 'Service Request',
          direction: 'inbound',
          raw: Buffer.from('7e004c', 'hex'),
          details: { radio: 'gnb-1', sent: wallMs() },
        });
        t.core.networkEvents.emit('ue.deregistered', { supi: '001010000000002' });
        sent += 1;
      }
      const wait = start + tick * 10 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await t.records.flush();
    // The last records' read (every 20 ms) and delivery.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return sent;
  }

  /** The service's CPU milliseconds of the phase without clients: what the rate itself costs. */
  let baselineCpuMs: number | undefined;

  async function phase(count: number): Promise<void> {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        new URL(import.meta.url).pathname,
        '--serve-clients',
        String(port),
        token,
        String(count),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    if ((await lines.next()).value !== 'ready') throw new Error('the clients did not start');
    const cpu = process.cpuUsage();
    const wall = performance.now();
    const sent = await generate();
    const used = process.cpuUsage(cpu);
    const elapsed = performance.now() - wall;
    child.stdin.write('stop\n');
    const result = JSON.parse(String((await lines.next()).value)) as Record<string, Latencies>;
    const nas = result['nas.message'] as Latencies;
    const events = result['ue.deregistered'] as Latencies;
    const cpuMs = (used.user + used.system) / 1000;
    const delivered = nas.count + events.count;
    const fmt = (l: Latencies) => (l.count === 0 ? '-' : `${l.p50.toFixed(1)} / ${l.p99.toFixed(1)}`);
    baselineCpuMs ??= cpuMs;
    const perFrame = (ms: number) => (delivered === 0 ? '-' : ((ms * 1000) / delivered).toFixed(1));
    print(
      `| ${count} | ${sent * 2} | ${delivered} | ${fmt(nas)} | ${fmt(events)} | ` +
        `${((cpuMs / elapsed) * 100).toFixed(1)} % | ${perFrame(cpuMs)} | ${perFrame(cpuMs - baselineCpuMs)} |`,
    );
    await new Promise((resolve) => child.once('exit', resolve));
  }

  // Warm-up, not measured: the writer thread starts, the code paths compile.
  await generate(1);
  print(`${rate} records and ${rate} network events a second, ${seconds} s a phase`);
  print(
    '| clients | events sent | frames delivered | nas.message p50 / p99 (ms) | ue.deregistered p50 / p99 (ms) | ' +
      'service CPU | CPU µs per frame | above no client, per frame |',
  );
  print('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const count of [0, 1, clients]) await phase(count);
  await t.close();
  await rm(dir, { recursive: true, force: true });
}
