// SMS over NAS against issue 35's goals, with the service as operators run it (dist/main.js, spawnService,
// fresh SQLite database, N2 on udp) and the simulated devices in a process of their own (this file with
// --role sim: the simulator's gNBs and UEs, src/simulator/, driven over stdin). Service CPU from /proc.
// 1. MO -> MT between connected devices: --pairs senders each send to their own receiver, at stepped total
//    rates (--rates) for --seconds each; per step the rate reached, service CPU per message (and its main
//    thread's), and the delivery latency (the sender's submit to the receiver's inbox, both in the
//    simulator's process) at p50 and p99.
//    A step is steady when it reaches 95 % of its rate, every acknowledged message arrives and p99 stays
//    under 1 s (a backlog shows as latency growing with the step's length). --rates none skips them.
// 2. --queued messages through POST /api/v1/sms to --queued-devices subscribers not attached; the service's
//    RSS before and after queueing and after delivery, and the time from the devices' registration (start)
//    until the last message is in their inboxes. 0 skips it. --queue-with db stores them instead through
//    the SMSF's store (storage/network-ports/sms-store.ts) on a connection of the bench's own to the
//    service's database file, as an operator's message is stored: the delivery is what is measured, and
//    100,000 API calls take minutes on a loaded machine.
// Beside them, the service CPU per registration of the same run's devices (bench/registration.ts measures it
// on its own). Run: npx tsx bench/sms.ts [--pairs 1000] [--rates 250,500,750,1000] [--seconds 10]
// [--queued 100000] [--queued-devices 10000] [--queue-with api|db] [--cpu-prof DIR]: the service under
// node --cpu-prof.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { encodeUserData, TYPE_OF_NUMBER } from '../src/network/sms/index.ts';
import { SERVICE_NODE_FLAGS } from '../src/node-flags.ts';
import { openClientTransport } from '../src/simulator/client-transport.ts';
import { bringUp, createFleet } from '../src/simulator/gnb-fleet.ts';
import { GnbUes } from '../src/simulator/ue/gnb-ues.ts';
import type { SimulatedUe } from '../src/simulator/ue/simulated-ue.ts';
import { ALL_ALGORITHMS } from '../src/simulator/ue/ue-config.ts';
import { createUes, withConcurrency } from '../src/simulator/ue/ue-fleet.ts';
import { openSqliteDatabase } from '../src/storage/database.ts';
import { createSmsStore } from '../src/storage/network-ports/sms-store.ts';
import { spawnService } from '../test/helpers/service-process.ts';
import { initialisedApi } from './service-api.ts';

const { values } = parseArgs({
  options: {
    role: { type: 'string', default: 'bench' },
    'udp-port': { type: 'string' },
    pairs: { type: 'string', default: '1000' },
    rates: { type: 'string', default: '250,500,750,1000' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2000' },
    queued: { type: 'string', default: '100000' },
    'queued-devices': { type: 'string', default: '10000' },
    'queue-with': { type: 'string', default: 'api' },
    'cpu-prof': { type: 'string' },
  },
});
const K = '465b5ce8b199b49faa5f0a2ee238a6bc';
const OPC = 'e8ed289deba952e4283b54e88e6183ca';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PLMN = { mcc: '001', mnc: '01' };
const imsiOf = (n: number): string => `00101${String(n).padStart(10, '0')}`;
const msisdnOf = (n: number): string => `1555${String(n).padStart(7, '0')}`;

/** Commands the bench sends the simulator (one JSON line each) and what it answers. */
type Command =
  | { cmd: 'register'; first: number; count: number; expectSms?: number }
  | { cmd: 'traffic'; senders: number; receivers: number; to: string[]; rate: number; seconds: number };
type Report =
  | { type: 'ready' }
  | { type: 'registered'; registered: number; ms: number; failures: Record<string, number> }
  | { type: 'delivered'; received: number; ms: number }
  | { type: 'traffic-done'; result: TrafficResult };
interface TrafficResult {
  issued: number;
  acked: number;
  failed: number;
  received: number;
  sendMs: number;
  p50: number;
  p99: number;
  max: number;
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** The simulator's side: gNBs, then UEs registered and sending on the bench's commands. */
async function simulator(udpPort: number): Promise<void> {
  const emit = (report: Report): void => void process.stdout.write(`${JSON.stringify(report)}\n`);
  const transport = await openClientTransport('udp', {
    localAddress: '127.0.0.1',
    peerUdpPort: udpPort,
    params: { maxInitRetransmits: 3 },
  });
  const gnbs = createFleet({
    template: {
      plmn: PLMN,
      node: { kind: 'gNB', value: 1, bitLength: 22 },
      name: 'gnb',
      supportedTas: [{ tac: 1, plmns: [{ plmn: PLMN, slices: [{ sst: 1 }] }] }],
    },
    count: 10,
    transport,
    amf: [{ address: '127.0.0.1', port: 38412 }],
    namePrefix: 'gnb',
    local: { addresses: ['127.0.0.1'] },
    responseTimeoutMs: 5000,
    keepLog: false,
  });
  const radios = gnbs.map(
    (gnb) => new GnbUes(gnb, { plmn: PLMN, nrCellIdentity: gnb.config.node.value * 2 ** 14 + 1, tac: 1 }),
  );
  const setups = await Promise.all(gnbs.map(bringUp));
  if (setups.some((s) => s.outcome !== 'accepted')) throw new Error('a gNB did not complete NG Setup');
  emit({ type: 'ready' });
  /** Registered UEs by the number of their IMSI. */
  const ues = new Map<number, SimulatedUe>();
  /** Submit time of each bench message in flight, by its id (the text is `b<id>`). */
  const submitted = new Map<number, number>();
  const latencies: number[] = [];
  const register = async (command: Extract<Command, { cmd: 'register' }>): Promise<void> => {
    const group = createUes({
      template: {
        imsi: imsiOf(command.first),
        plmn: PLMN,
        key: Buffer.from(K, 'hex'),
        opc: Buffer.from(OPC, 'hex'),
        sqn: Buffer.alloc(6),
        suci: { scheme: 'null' },
        imeisv: '3569380356438091',
        securityCapability: ALL_ALGORITHMS,
        requestedNssai: [{ sst: 1 }],
        sms: true,
      },
      count: command.count,
      radios,
      keepLog: false,
    });
    const started = performance.now();
    let received = 0;
    let lastAt = started;
    let done = false;
    const expected = command.expectSms;
    group.forEach((ue, i) => {
      ues.set(command.first + i, ue);
      ue.sms.onReceived((entry) => {
        if (entry.kind !== 'message') return;
        const id = /^b(\d+)$/.exec(entry.text)?.[1];
        const at = id === undefined ? undefined : submitted.get(Number(id));
        if (at !== undefined) {
          latencies.push(performance.now() - at);
          submitted.delete(Number(id));
        }
        lastAt = performance.now();
        if (expected !== undefined && ++received === expected && !done) {
          done = true;
          emit({ type: 'delivered', received, ms: lastAt - started });
        }
      });
    });
    const outcomes = await withConcurrency(group, 500, (ue) => ue.register('suci'));
    // A device counts once it registered with "SMS over NAS allowed".
    const registered = outcomes.filter((o, i) => o.outcome === 'accepted' && group[i]!.smsAllowed).length;
    const failures: Record<string, number> = {};
    for (const o of outcomes)
      if (o.outcome !== 'accepted') {
        const what = o.outcome === 'failed' ? o.reason : o.outcome;
        failures[what] = (failures[what] ?? 0) + 1;
      }
    emit({ type: 'registered', registered, ms: performance.now() - started, failures });
    // Devices that did not come back leave their messages queued: once nothing arrived for 10 s, what did.
    while (expected !== undefined && !done) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (!done && performance.now() - lastAt > 10_000) {
        done = true;
        emit({ type: 'delivered', received, ms: lastAt - started });
      }
    }
  };
  let nextId = 0;
  const traffic = async (command: Extract<Command, { cmd: 'traffic' }>): Promise<void> => {
    latencies.length = 0;
    submitted.clear();
    const free = Array.from({ length: command.senders }, (_, i) => i);
    let issued = 0;
    let acked = 0;
    let failed = 0;
    const started = performance.now();
    const total = command.rate * command.seconds;
    const sends: Promise<void>[] = [];
    // Paced from one timer: each tick issues what the rate owes so far to the senders not busy with a send
    // (one transfer at a time per device); a rate the senders cannot keep shows as the rate reached.
    while (issued < total) {
      const elapsed = (performance.now() - started) / 1000;
      if (elapsed > command.seconds + 1) break;
      const due = Math.min(total, Math.floor(command.rate * elapsed));
      while (issued < due && free.length > 0) {
        const sender = free.shift()!;
        const ue = ues.get(1 + sender)!;
        const id = nextId++;
        issued++;
        submitted.set(id, performance.now());
        sends.push(
          ue.sms.sendText(command.to[sender % command.to.length]!, `b${id}`).then((outcome) => {
            if (outcome.outcome === 'sent') acked++;
            else {
              failed++;
              submitted.delete(id);
            }
            free.push(sender);
          }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const sendMs = performance.now() - started;
    await Promise.all(sends);
    // What was acknowledged but not yet received: 10 s to arrive, else counted missing.
    const drainUntil = performance.now() + 10_000;
    while (submitted.size > 0 && performance.now() < drainUntil)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const sorted = [...latencies].sort((a, b) => a - b);
    emit({
      type: 'traffic-done',
      result: {
        issued,
        acked,
        failed,
        received: latencies.length,
        sendMs,
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        max: sorted.at(-1) ?? NaN,
      },
    });
  };
  for await (const line of createInterface({ input: process.stdin })) {
    const command = JSON.parse(line) as Command;
    if (command.cmd === 'register') await register(command);
    else await traffic(command);
  }
  await Promise.all(gnbs.map((gnb) => gnb.shutdown()));
  await transport.close();
}

if (values.role === 'sim') {
  await simulator(Number(values['udp-port']));
  process.exit(0);
}

const PAIRS = Number(values.pairs);
const RATES = values.rates === 'none' ? [] : values.rates.split(',').map(Number);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const QUEUED = Number(values.queued);
const QUEUED_DEVICES = Number(values['queued-devices']);
const QUEUE_WITH = values['queue-with'];
if (QUEUE_WITH !== 'api' && QUEUE_WITH !== 'db') throw new Error('--queue-with is api or db');

/** The service and simulator this run started: killed when it ends, however it ends. */
const children = new Set<ChildProcess>();
function started<C extends ChildProcess>(child: C): C {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

/** utime + stime in seconds from a /proc stat file (a process's, all threads, or one thread's). */
async function cpuSecondsOf(path: string): Promise<number> {
  const stat = (await readFile(path, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) / 100;
}

/**
 * CPU of a process, all threads and its main thread (the event loop; the rest is the records writer
 * thread, V8's garbage collection helpers and libuv's pool), in seconds, and its RSS in MB, from /proc.
 */
async function usage(pid: number): Promise<{ cpuSeconds: number; mainCpuSeconds: number; rssMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return {
    cpuSeconds: await cpuSecondsOf(`/proc/${pid}/stat`),
    mainCpuSeconds: await cpuSecondsOf(`/proc/${pid}/task/${pid}/stat`),
    rssMb: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024,
  };
}

const dir = await mkdtemp(join(tmpdir(), 'pmn-sms-bench-'));
const serviceArgs = [
  ...['--listen', '127.0.0.1:0', '--db', join(dir, 'pmn.db')],
  ...['--n2-transport', 'udp', '--n2-addresses', '127.0.0.1', '--n2-port', '38412', '--n2-udp-port', '0'],
];
const cpuProfileDir = values['cpu-prof'];
if (cpuProfileDir !== undefined)
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
const service = started(
  cpuProfileDir === undefined
    ? spawnService(serviceArgs)
    : spawn(
        process.execPath,
        [
          '--cpu-prof',
          '--cpu-prof-dir',
          cpuProfileDir,
          ...SERVICE_NODE_FLAGS,
          `${ROOT}dist/main.js`,
          ...serviceArgs,
        ],
        { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
      ),
);
service.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
let base: string | undefined;
let udpPort: number | undefined;
await new Promise<void>((resolve, reject) => {
  createInterface({ input: service.stdout }).on('line', (line) => {
    let message = '';
    try {
      message = (JSON.parse(line) as { msg?: string }).msg ?? '';
    } catch {
      return;
    }
    base ??= /^PMN Core listening on (\S+)$/.exec(message)?.[1];
    const port = /^N2 \(NGAP\) listening on .*, UDP port (\d+)$/.exec(message)?.[1];
    if (port !== undefined) udpPort = Number(port);
    if (message.startsWith('database ready at')) resolve();
  });
  service.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
});
if (base === undefined || udpPort === undefined) throw new Error('the service did not say where it listens');
const call = await initialisedApi(base);

/** Subscribers first .. first+count-1, each with its MSISDN, SMS allowed by the default profile. */
async function provision(first: number, count: number): Promise<void> {
  for (let start = 0; start < count; start += 10_000) {
    const rows = Array.from({ length: Math.min(10_000, count - start) }, (_, i) => ({
      imsi: imsiOf(first + start + i),
      key: K,
      opc: OPC,
      sequenceNumber: '000000000000',
      profile_name: 'default',
      msisdn: `+${msisdnOf(first + start + i)}`,
    }));
    await call('POST', '/api/v1/subscribers/import', rows);
  }
}

const sim = started(
  spawn(
    process.execPath,
    [
      '--max-old-space-size=4096',
      ...['--import', 'tsx', fileURLToPath(import.meta.url), '--role', 'sim', '--udp-port', String(udpPort)],
    ],
    { stdio: ['pipe', 'pipe', 'inherit'], cwd: ROOT },
  ),
);
const reports = createInterface({ input: sim.stdout })[Symbol.asyncIterator]();
async function next<T extends Report['type']>(type: T): Promise<Extract<Report, { type: T }>> {
  for (;;) {
    const line = await reports.next();
    if (line.done === true) throw new Error(`the simulator ended while ${type} was awaited`);
    const report = JSON.parse(line.value) as Report;
    if (report.type === type) return report as Extract<Report, { type: T }>;
  }
}
const command = (c: Command): void => void sim.stdin.write(`${JSON.stringify(c)}\n`);
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** The operator's messages through the API, 16 in flight; resolves with how many were stored. */
async function queueThroughApi(first: number): Promise<number> {
  let sent = 0;
  await withConcurrency(
    Array.from({ length: QUEUED }, (_, i) => i),
    16,
    async (i) => {
      await call('POST', '/api/v1/sms', { msisdn: msisdnOf(first + (i % QUEUED_DEVICES)), text: `q${i}` });
      sent++;
    },
  );
  return sent;
}

/** The same messages stored by the SMSF's store on a connection of the bench's own, 1,000 a turn. */
async function queueInStore(first: number): Promise<number> {
  const db = openSqliteDatabase(join(dir, 'pmn.db'));
  try {
    const store = createSmsStore({ db });
    const now = Date.now();
    let sent = 0;
    for (let start = 0; start < QUEUED; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, QUEUED - start) }, (_, k) => start + k);
      await Promise.all(
        batch.map(async (i) => {
          const userData = encodeUserData({ text: `q${i}` }, 'gsm7');
          if (!userData.ok) throw new Error(userData.error);
          await store.save({
            createdAt: now,
            originator: { typeOfNumber: TYPE_OF_NUMBER.alphanumeric, value: 'PMN Core' },
            destinationImsi: imsiOf(first + (i % QUEUED_DEVICES)),
            destinationMsisdn: msisdnOf(first + (i % QUEUED_DEVICES)),
            messageReference: 0,
            protocolIdentifier: 0,
            dataCodingScheme: 0,
            userData: userData.value,
            statusReportRequested: false,
            validUntil: now + 7 * 86_400_000,
          });
          sent++;
        }),
      );
    }
    return sent;
  } finally {
    await db.destroy();
  }
}

try {
  // IMSIs: 1 .. 2*PAIRS the senders then receivers, then the warm-up devices, then the queued case's.
  const warmFirst = 1 + 2 * PAIRS;
  const queuedFirst = warmFirst + WARMUP;
  await provision(1, 2 * PAIRS + WARMUP);
  await next('ready');
  say(`SMS over NAS, service and simulator in separate processes, 10 gNBs over udp; load ${load()}`);
  if (WARMUP > 0) {
    command({ cmd: 'register', first: warmFirst, count: WARMUP });
    const warm = await next('registered');
    say(`warm-up: ${warm.registered} of ${WARMUP} registered (not measured)`);
  }
  let before = await usage(service.pid!);
  command({ cmd: 'register', first: 1, count: 2 * PAIRS });
  const registered = await next('registered');
  let after = await usage(service.pid!);
  const registrationCpuMs = ((after.cpuSeconds - before.cpuSeconds) * 1000) / registered.registered;
  say(
    `registration: ${registered.registered} of ${2 * PAIRS} devices (SMS over NAS asked) in ${(registered.ms / 1000).toFixed(1)} s, ` +
      `service CPU ${registrationCpuMs.toFixed(3)} ms per device`,
  );
  if (registered.registered !== 2 * PAIRS) throw new Error('not every device registered');
  if (RATES.length > 0)
    say(
      'MO -> MT   rate  reached  acked  failed  received  svc CPU/SMS  (main thread)  ratio to reg  sim CPU/SMS   p50 ms   p99 ms   max ms  load',
    );
  let steadiest = 0;
  const receivers = Array.from({ length: PAIRS }, (_, i) => msisdnOf(1 + PAIRS + i));
  for (const rate of RATES) {
    before = await usage(service.pid!);
    const simBefore = await usage(sim.pid!);
    command({ cmd: 'traffic', senders: PAIRS, receivers: PAIRS, to: receivers, rate, seconds: SECONDS });
    const { result: r } = await next('traffic-done');
    after = await usage(service.pid!);
    const simCpuMs =
      (((await usage(sim.pid!)).cpuSeconds - simBefore.cpuSeconds) * 1000) / Math.max(1, r.received);
    const cpuMs = ((after.cpuSeconds - before.cpuSeconds) * 1000) / Math.max(1, r.received);
    const mainMs = ((after.mainCpuSeconds - before.mainCpuSeconds) * 1000) / Math.max(1, r.received);
    const reached = r.acked / (r.sendMs / 1000);
    const steady = reached >= 0.95 * rate && r.failed === 0 && r.received === r.acked && r.p99 < 1000;
    if (steady) steadiest = rate;
    say(
      `${String(rate).padStart(15)} ${reached.toFixed(0).padStart(8)} ${String(r.acked).padStart(6)} ${String(r.failed).padStart(7)} ` +
        `${String(r.received).padStart(9)} ${cpuMs.toFixed(3).padStart(9)} ms ${mainMs.toFixed(3).padStart(11)} ms ${(cpuMs / registrationCpuMs).toFixed(2).padStart(12)} ${simCpuMs.toFixed(3).padStart(8)} ms ` +
        `${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${r.max.toFixed(1).padStart(8)}  ${load()}${steady ? '' : '  (not steady)'}`,
    );
  }
  if (RATES.length > 0) say(`highest steady rate: ${steadiest} SMS/s (goal 1,000 with p99 under 200 ms)`);
  if (QUEUED > 0) {
    await provision(queuedFirst, QUEUED_DEVICES);
    const empty = await usage(service.pid!);
    const queueing = performance.now();
    const sent = QUEUE_WITH === 'api' ? await queueThroughApi(queuedFirst) : await queueInStore(queuedFirst);
    const queuedMs = performance.now() - queueing;
    const full = await usage(service.pid!);
    const through = QUEUE_WITH === 'api' ? 'POST /api/v1/sms' : "the SMSF's store";
    say(
      `queued: ${sent} messages through ${through} for ${QUEUED_DEVICES} devices not attached in ${(queuedMs / 1000).toFixed(1)} s; ` +
        `service RSS ${empty.rssMb.toFixed(0)} MB before, ${full.rssMb.toFixed(0)} MB after; load ${load()}`,
    );
    before = full;
    const simBefore = await usage(sim.pid!);
    command({ cmd: 'register', first: queuedFirst, count: QUEUED_DEVICES, expectSms: QUEUED });
    const back = await next('registered');
    say(
      `  ${back.registered} of ${QUEUED_DEVICES} devices back (registered) in ${(back.ms / 1000).toFixed(1)} s` +
        Object.entries(back.failures)
          .map(([what, count]) => `; ${count} x ${what}`)
          .join(''),
    );
    const delivered = await Promise.race([
      next('delivered'),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 600_000).unref()),
    ]);
    after = await usage(service.pid!);
    const simSeconds = (await usage(sim.pid!)).cpuSeconds - simBefore.cpuSeconds;
    say(
      delivered === undefined
        ? `  not all ${QUEUED} delivered within 600 s`
        : `  ${delivered.received} of ${QUEUED} delivered, the last ${(delivered.ms / 1000).toFixed(1)} s after the devices began to register (goal 60 s); ` +
            `service CPU ${(((after.cpuSeconds - before.cpuSeconds) * 1000) / Math.max(1, delivered.received)).toFixed(3)} ms per message with the registrations ` +
            `(main thread ${(((after.mainCpuSeconds - before.mainCpuSeconds) * 1000) / Math.max(1, delivered.received)).toFixed(3)} ms), ` +
            `RSS ${after.rssMb.toFixed(0)} MB; CPU in all, service ${(after.cpuSeconds - before.cpuSeconds).toFixed(1)} s and ` +
            `simulator ${simSeconds.toFixed(1)} s; load ${load()}`,
    );
  }
} finally {
  sim.stdin.end();
  await Promise.race([once(sim, 'exit'), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  sim.kill('SIGKILL');
  const exited = once(service, 'exit');
  service.kill('SIGTERM');
  await exited;
  await rm(dir, { recursive: true, force: true });
}
