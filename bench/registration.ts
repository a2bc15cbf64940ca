// Full initial registrations per second (issue 16 item 4): 5G-AKA, security mode, Initial Context Setup and
// Registration Complete, SUCI null and Profile A, against the service as operators run it (dist/main.js,
// spawnService, fresh database, N2 on udp) with the simulator in its own process (`npm run sim -- ue`,
// scripts/sim.ts). Service CPU per registration from the child's /proc stat between "gNBs ready" and the
// simulator's "registered" line; then `--hold` devices registered at once and the service's RSS.
// Baseline in the same run: the network side's bare protocol work per registration in this process
// (5G-AKA vector, KAMF, NAS security of the seven NAS messages, the NGAP codec of the ten PDUs, and ECIES
// de-concealment for Profile A), without storage, records or transport.
// Run: npx tsx bench/registration.ts [--ues N (10000)] [--hold N (100000)] [--gnbs N (10)] [--concurrency N (500)]
// [--warmup N (3000)]: N registrations (SUCI null) before the measured runs, on the same service, in their own
// row: the service's first thousands of registrations run while V8 compiles its hot code, and a core runs warm;
// [--cpu-prof DIR]: the service runs under `node --cpu-prof` (a V8 profile in DIR when it stops);
// [--sim-cpu-prof DIR]: the same for the simulator; [--suci null|A|both (both)]: the runs to make;
// [--heap-prof DIR]: the service runs under `node --inspect`, and over the inspector each run gets an
// allocation profile of the service (V8's sampling heap profiler, every 4 KiB, collected objects included) in
// DIR/<run>.heapprofile, its live heap after a full collection before and after it (per held device with
// --hold), and a heap snapshot after it in DIR/<run>.heapsnapshot (what holds the heap: two snapshots
// compared by bench/heap-snapshot-read.ts); it needs Node 20's WebSocket:
// `node --experimental-websocket --import tsx bench/registration.ts --heap-prof DIR ...`;
// [--db URL]: the service's database is this PostgreSQL database (empty; a key file of the run's own beside),
// instead of an SQLite file in a temporary directory (docs/performance.md, PostgreSQL);
// [--trace-gc]: the service runs under `node --trace-gc-nvp` and each row is followed by the heap bytes it
// allocated per registration (the sum of each collection's `allocated=` in the run), what of it the scavenges
// promoted to the old generation (`promoted=`), and its scavenges and mark-compacts per 1,000 registrations;
// [--stream-clients N]: the SUCI null run again with N clients reading GET /api/v1/events/stream (nas.message and
// ue.deregistered, the clients in a process of their own, bench/event-stream.ts), in its own row: the stream's
// latency from each record's or event's timestamp to the client's parse of its frame (issue 32's goal: median
// under 100 ms with 100 clients and registrations running), the service's part of it (from the message to the
// write, its pmn_event_stream_delay_seconds), and the service's CPU per registration beside the run without clients.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { generateAuthenticationVector, resStarMatches } from '../src/crypto/five-g-aka.ts';
import { deriveKamf, servingNetworkName } from '../src/crypto/key-hierarchy.ts';
import { concealMsin, deconcealSuci, generateHomeNetworkKey, PROTECTION_SCHEME } from '../src/crypto/suci.ts';
import { encodeNasMessage, SECURITY_HEADER_TYPE } from '../src/network/nas/index.ts';
import { createNasSecurityContext, protect, unprotect } from '../src/network/nas-security/index.ts';
import { decodeNgapPdu, encodeNgapPdu } from '../src/network/ngap/ngap-codec.ts';
import { initialUeMessage } from '../src/simulator/ue/ran-ue-messages.ts';
import { SERVICE_NODE_FLAGS } from '../src/node-flags.ts';
import { spawnService } from '../test/helpers/service-process.ts';
import { initialisedApi, type ServiceCall } from './service-api.ts';
import { delayQuantileMs, streamDelayBuckets } from './stream-delay.ts';
import { whereItListens } from './service-log.ts';

const { values } = parseArgs({
  options: {
    ues: { type: 'string', default: '10000' },
    hold: { type: 'string', default: '100000' },
    gnbs: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '500' },
    seconds: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'sim-cpu-prof': { type: 'string' },
    'heap-prof': { type: 'string' },
    'trace-gc': { type: 'boolean', default: false },
    db: { type: 'string' },
    suci: { type: 'string', default: 'both' },
    warmup: { type: 'string', default: '3000' },
    // A run whose devices also establish a PDU session each (IPv4, through the service's SMF and UPF).
    sessions: { type: 'boolean', default: false },
    'stream-clients': { type: 'string', default: '0' },
  },
});
// The full collections --heap-prof forces would be counted as allocation.
if (values['trace-gc'] && values['heap-prof'] !== undefined)
  throw new Error('--trace-gc and --heap-prof: one at a time');
const UES = Number(values.ues);
const HOLD = Number(values.hold);
const GNBS = Number(values.gnbs);
const CONCURRENCY = Number(values.concurrency);
const WARMUP = Number(values.warmup);
const STREAM_CLIENTS = Number(values['stream-clients']);
const K = '465b5ce8b199b49faa5f0a2ee238a6bc';
const OPC = 'e8ed289deba952e4283b54e88e6183ca';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMPORT_BATCH = 10_000;

/**
 * The service and simulators this run started: killed when it ends, however it ends (an error, Ctrl-C, a
 * `timeout` wrapper's SIGTERM), so none is left running. The simulator stops only its held devices on
 * SIGTERM, and would keep registering.
 */
const children = new Set<ChildProcess>();
function started<C extends ChildProcess>(child: C): C {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stderr.write(`${signal}: the service and the simulator are stopped\n`);
    process.exit(1);
  });

/**
 * How long a simulator run may take before it is stopped and the benchmark fails: a device that is not
 * answered gives up after five T3510 expiries with T3511 between them (about 125 s, TS 24.501 5.5.1.2.7),
 * so a run that outlasts this waits on something that never comes.
 */
const runDeadlineMs = (devices: number): number => 180_000 + 10 * devices;

/** utime + stime of a /proc stat file, in seconds. */
async function cpuSecondsOf(statPath: string): Promise<number> {
  const stat = (await readFile(statPath, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) / 100;
}

/**
 * CPU seconds of a process (all threads) and of its main thread (the JavaScript event loop; the rest is
 * the records writer thread, V8's GC helpers and libuv's pool), and its RSS (now and peak), from /proc.
 */
async function usage(
  pid: number,
): Promise<{ cpuSeconds: number; mainCpuSeconds: number; rssMb: number; peakRssMb: number }> {
  const cpuSeconds = await cpuSecondsOf(`/proc/${pid}/stat`);
  const mainCpuSeconds = await cpuSecondsOf(`/proc/${pid}/task/${pid}/stat`);
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { cpuSeconds, mainCpuSeconds, rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

/** The service's collections so far, from its `--trace-gc-nvp` lines (with --trace-gc). */
const collections = { allocatedBytes: 0, promotedBytes: 0, scavenges: 0, markCompacts: 0 };

function countCollection(line: string): void {
  const allocated = / gc=(\w+) .* allocated=(\d+) /.exec(line);
  if (allocated === null) return;
  collections.allocatedBytes += Number(allocated[2]);
  // What a scavenge moves to the old generation: what lives past a few scavenges, which the
  // mark-compacts (and V8's marking threads) then go over.
  collections.promotedBytes += Number(/ promoted=(\d+) /.exec(line)?.[1] ?? 0);
  if (allocated[1] === 's') collections.scavenges++;
  else if (allocated[1] === 'mc') collections.markCompacts++;
}

/** A Chrome DevTools Protocol client over the inspector's WebSocket (Node 20: --experimental-websocket). */
interface Inspector {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** A heap snapshot (HeapProfiler.takeHeapSnapshot), as the JSON text DevTools reads. */
  snapshot(): Promise<string>;
  close(): void;
}

async function connectInspector(url: string): Promise<Inspector> {
  const Socket = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (Socket === undefined) throw new Error('--heap-prof: run the bench with node --experimental-websocket');
  const socket = new Socket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let nextId = 1;
  let snapshotChunks: string[] = [];
  const waiting = new Map<
    number,
    { resolve: (result: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      method?: string;
      params?: { chunk?: string };
      result?: Record<string, unknown>;
      error?: { message: string };
    };
    if (message.method === 'HeapProfiler.addHeapSnapshotChunk')
      snapshotChunks.push(message.params?.chunk ?? '');
    const call = message.id === undefined ? undefined : waiting.get(message.id);
    if (call === undefined) return;
    waiting.delete(message.id!);
    if (message.error !== undefined) call.reject(new Error(message.error.message));
    else call.resolve(message.result ?? {});
  });
  const send = (method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    send,
    async snapshot() {
      snapshotChunks = [];
      await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      return snapshotChunks.join('');
    },
    close: () => socket.close(),
  };
}

/** The service's used heap after a full collection, in bytes. */
async function liveHeapBytes(inspector: Inspector): Promise<number> {
  await inspector.send('HeapProfiler.collectGarbage');
  return (await inspector.send('Runtime.getHeapUsage')).usedSize as number;
}

interface Service {
  inspector?: Inspector;
  pid: number;
  udpPort: number;
  /** The management API's URL. */
  base: string;
  call: ServiceCall;
  stop(): Promise<void>;
}

async function startService(): Promise<Service> {
  const dir = await mkdtemp(join(tmpdir(), 'pmn-registration-bench-'));
  const args = [
    ...['--listen', '127.0.0.1:0'],
    ...(values.db === undefined
      ? ['--db', join(dir, 'pmn.db')]
      : ['--db', values.db, '--secret-key-file', join(dir, 'core.key')]),
    ...['--n2-transport', 'udp', '--n2-addresses', '127.0.0.1', '--n2-port', '38412', '--n2-udp-port', '0'],
  ];
  const cpuProfileDir = values['cpu-prof'];
  const heapProfileDir = values['heap-prof'];
  const profileFlags = [
    ...(cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir]),
    ...(heapProfileDir === undefined ? [] : ['--inspect=127.0.0.1:0']),
    ...(values['trace-gc'] ? ['--trace-gc-nvp'] : []),
  ];
  // --cpu-prof and the like are not allowed in NODE_OPTIONS: the bundle is started by hand, as spawnService would.
  if (profileFlags.length > 0)
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  const child = started(
    profileFlags.length === 0
      ? spawnService(args)
      : spawn(process.execPath, [...profileFlags, ...SERVICE_NODE_FLAGS, `${ROOT}dist/main.js`, ...args], {
          cwd: ROOT,
          stdio: ['pipe', 'pipe', 'pipe'],
        }),
  );
  let inspectorUrl: string | undefined;
  child.stderr.on('data', (chunk: Buffer) => {
    inspectorUrl ??= /Debugger listening on (ws:\S+)/.exec(chunk.toString())?.[1];
    if (inspectorUrl === undefined || !chunk.toString().startsWith('Debugger')) process.stderr.write(chunk);
  });
  const { url, udpPort } = await whereItListens(child, countCollection);
  if (heapProfileDir !== undefined && inspectorUrl === undefined)
    throw new Error('no inspector URL from the service');
  const base = url;
  const call = await initialisedApi(base);
  const inspector = inspectorUrl === undefined ? undefined : await connectInspector(inspectorUrl);
  return {
    pid: child.pid!,
    udpPort,
    base,
    call,
    ...(inspector === undefined ? {} : { inspector }),
    async stop() {
      inspector?.close();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const imsiOf = (n: number): string => `00101${String(n).padStart(10, '0')}`;

interface StreamLatencies {
  count: number;
  p50: number;
  p99: number;
}

/** `count` event-stream clients in a process of their own (bench/event-stream.ts --serve-clients), open. */
async function streamClients(
  service: Service,
  count: number,
): Promise<{ pid: number; stop(): Promise<Record<string, StreamLatencies>> }> {
  const port = new URL(service.base).port;
  const child = started(
    spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'bench/event-stream.ts'),
        '--serve-clients',
        port,
        service.call.token,
        String(count),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    ),
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  if ((await lines.next()).value !== 'ready') throw new Error('the stream clients did not start');
  return {
    pid: child.pid!,
    async stop() {
      child.stdin.write('stop\n');
      const result = JSON.parse(String((await lines.next()).value)) as Record<string, StreamLatencies>;
      await once(child, 'exit');
      return result;
    },
  };
}

async function provision(service: Service, first: number, count: number): Promise<void> {
  for (let start = 0; start < count; start += IMPORT_BATCH) {
    const rows = Array.from({ length: Math.min(IMPORT_BATCH, count - start) }, (_, i) => ({
      imsi: imsiOf(first + start + i),
      key: K,
      opc: OPC,
      sequenceNumber: '000000000000',
      profile_name: 'default',
    }));
    await service.call('POST', '/api/v1/subscribers/import', rows);
  }
}

interface SimulatorRun {
  registered: number;
  wallMs: number;
  perSecond: number;
  serviceCpuMs: number;
  /** The part of serviceCpuMs on the service's main thread. */
  serviceMainCpuMs: number;
  simulatorCpuMs: number;
  rssMb: number;
  peakRssMb: number;
  /** With --trace-gc: the service's heap allocation per registration, and its collections per 1,000. */
  collections?: {
    allocatedBytesPerRegistration: number;
    promotedBytesPerRegistration: number;
    scavengesPer1000: number;
    markCompactsPer1000: number;
  };
  /** With --session: the PDU session establishments after the registrations. */
  sessions?: {
    established: number;
    wallMs: number;
    perSecond: number;
    serviceCpuMs: number;
    simulatorCpuMs: number;
  };
}

/**
 * The simulator in its own process; usage of both processes is read when its gNBs are ready and when it
 * says how many registered. With `hold`, it is stopped (Ctrl-C) only after the figures are taken.
 */
async function simulate(
  service: Service,
  args: string[],
  hold: boolean,
  name: string,
): Promise<SimulatorRun> {
  const withSessions = args.includes('--session');
  let registeredRun: SimulatorRun | undefined;
  let sessionStart: { service: number; simulator: number } | undefined;
  const simulatorProfileDir = values['sim-cpu-prof'];
  const child = started(
    spawn(
      process.execPath,
      [
        ...(simulatorProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', simulatorProfileDir]),
        '--max-old-space-size=4096',
        '--import',
        'tsx',
        join(ROOT, 'scripts/sim.ts'),
        'ue',
        '--udp-port',
        String(service.udpPort),
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT },
    ),
  );
  const exited = once(child, 'exit');
  const devices = Number(args[args.indexOf('--ues') + 1]);
  let overdue = false;
  const deadline = setTimeout(() => {
    overdue = true;
    child.kill('SIGKILL');
  }, runDeadlineMs(devices));
  let start:
    | {
        service: number;
        serviceMain: number;
        simulator: number;
        collections: typeof collections;
        liveHeap: number;
      }
    | undefined;
  const failures = new Map<string, number>();
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  for (;;) {
    const line = await lines.next();
    if (line.done === true) {
      clearTimeout(deadline);
      throw new Error(
        overdue
          ? `${name}: the simulator had not finished ${devices} devices after ${runDeadlineMs(devices) / 1000} s, and was stopped`
          : `${name}: the simulator ended before registering`,
      );
    }
    if (/^\d+ gNBs ready$/.test(line.value)) {
      const liveHeap = service.inspector === undefined ? 0 : await liveHeapBytes(service.inspector);
      await service.inspector?.send('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      const serviceUsage = await usage(service.pid);
      start = {
        service: serviceUsage.cpuSeconds,
        serviceMain: serviceUsage.mainCpuSeconds,
        simulator: (await usage(child.pid!)).cpuSeconds,
        collections: { ...collections },
        liveHeap,
      };
    }
    const done = /^(\d+) of (\d+) registered in (\d+) ms \((\d+)\/s\)$/.exec(line.value);
    if (done !== null && start !== undefined) {
      const serviceUsage = await usage(service.pid);
      const simulatorUsage = await usage(child.pid!);
      const registered = Number(done[1]);
      if (service.inspector !== undefined) {
        const { profile } = await service.inspector.send('HeapProfiler.stopSampling');
        await writeFile(join(values['heap-prof']!, `${name}.heapprofile`), JSON.stringify(profile));
        const grown = (await liveHeapBytes(service.inspector)) - start.liveHeap;
        await writeFile(
          join(values['heap-prof']!, `${name}.heapsnapshot`),
          await service.inspector.snapshot(),
        );
        process.stderr.write(
          `${name}: service live heap ${(grown / 2 ** 20).toFixed(1)} MiB larger after the run, ` +
            `${(grown / registered).toFixed(0)} bytes per registration\n`,
        );
      }
      const run: SimulatorRun = {
        registered,
        wallMs: Number(done[3]),
        perSecond: Number(done[4]),
        serviceCpuMs: ((serviceUsage.cpuSeconds - start.service) * 1000) / registered,
        serviceMainCpuMs: ((serviceUsage.mainCpuSeconds - start.serviceMain) * 1000) / registered,
        simulatorCpuMs: ((simulatorUsage.cpuSeconds - start.simulator) * 1000) / registered,
        rssMb: serviceUsage.rssMb,
        peakRssMb: serviceUsage.peakRssMb,
        ...(values['trace-gc']
          ? {
              collections: {
                allocatedBytesPerRegistration:
                  (collections.allocatedBytes - start.collections.allocatedBytes) / registered,
                promotedBytesPerRegistration:
                  (collections.promotedBytes - start.collections.promotedBytes) / registered,
                scavengesPer1000: ((collections.scavenges - start.collections.scavenges) * 1000) / registered,
                markCompactsPer1000:
                  ((collections.markCompacts - start.collections.markCompacts) * 1000) / registered,
              },
            }
          : {}),
      };
      if (withSessions) {
        registeredRun = run;
        sessionStart = { service: serviceUsage.cpuSeconds, simulator: simulatorUsage.cpuSeconds };
        continue;
      }
      for (const [what, count] of failures) process.stderr.write(`simulator: ${count} x ${what}\n`);
      if (hold) child.kill('SIGINT');
      void (async () => {
        for (;;) if ((await lines.next()).done === true) return;
      })();
      await exited;
      clearTimeout(deadline);
      return run;
    }
    const established = /^(\d+) of (\d+) PDU sessions established in (\d+) ms \((\d+)\/s\)$/.exec(line.value);
    if (established !== null && registeredRun !== undefined && sessionStart !== undefined) {
      const serviceUsage = await usage(service.pid);
      const simulatorUsage = await usage(child.pid!);
      const count = Number(established[1]);
      registeredRun.sessions = {
        established: count,
        wallMs: Number(established[3]),
        perSecond: Number(established[4]),
        serviceCpuMs: ((serviceUsage.cpuSeconds - sessionStart.service) * 1000) / count,
        simulatorCpuMs: ((simulatorUsage.cpuSeconds - sessionStart.simulator) * 1000) / count,
      };
      for (const [what, count] of failures) process.stderr.write(`simulator: ${count} x ${what}\n`);
      void (async () => {
        for (;;) if ((await lines.next()).done === true) return;
      })();
      await exited;
      clearTimeout(deadline);
      return registeredRun;
    } else if (/^imsi-\d+: PDU session 1 IPv4 /.test(line.value)) {
      // An established session (the simulator says each).
    } else if (line.value.startsWith('imsi-')) {
      // A registration that did not succeed: counted by what happened (cause, timer, ...).
      const what = line.value.replace(/^imsi-\d+: /, '');
      failures.set(what, (failures.get(what) ?? 0) + 1);
    } else if (!/^\d+ gNBs ready$/.test(line.value)) {
      process.stderr.write(`simulator: ${line.value}\n`);
    }
  }
}

/** The network side's protocol work for one registration, bare (see the header). */
function bareCpuMs(profileA: boolean, rounds: number): number {
  const snn = servingNetworkName('001', '01');
  const hn = generateHomeNetworkKey(PROTECTION_SCHEME.profileA).key;
  const ueSide = createNasSecurityContext({
    side: 'ue',
    ngKsi: { mapped: false, ksi: 1 },
    kamf: Buffer.alloc(32, 1),
    ciphering: 2,
    integrity: 2,
  });
  const uplinks = Array.from({ length: 3 * rounds }, () =>
    protect(
      ueSide,
      encodeNasMessage({ messageType: 'registrationComplete' }),
      SECURITY_HEADER_TYPE.integrityProtectedAndCiphered,
    ),
  );
  const concealed = concealMsin(PROTECTION_SCHEME.profileA, '0000000001', hn.publicKey);
  const ngap = encodeNgapPdu(
    initialUeMessage({
      ranUeNgapId: 1,
      nasPdu: new Uint8Array(60),
      cell: { plmn: { mcc: '001', mnc: '01' }, nrCellIdentity: 0x4001, tac: 1 },
      cause: 'mo-Signalling',
    }),
  );
  const start = process.cpuUsage();
  for (let round = 0; round < rounds; round++) {
    if (profileA)
      deconcealSuci(
        { protectionScheme: PROTECTION_SCHEME.profileA, homeNetworkPublicKeyId: 1, schemeOutput: concealed },
        () => hn,
      );
    const vector = generateAuthenticationVector({
      key: Buffer.from(K, 'hex'),
      opc: Buffer.from(OPC, 'hex'),
      sqn: Buffer.from('000000000021', 'hex'),
      rand: Buffer.alloc(16, round & 0xff),
      servingNetworkName: snn,
    });
    resStarMatches(vector.xresStar, vector.xresStar);
    const kamf = deriveKamf(vector.kseaf, '001010000000001', Buffer.alloc(2));
    const network = createNasSecurityContext({
      side: 'network',
      ngKsi: { mapped: false, ksi: 1 },
      kamf,
      ciphering: 2,
      integrity: 2,
    });
    for (let i = 0; i < 3; i++)
      protect(
        network,
        encodeNasMessage({ messageType: 'registrationComplete' }),
        SECURITY_HEADER_TYPE.integrityProtectedAndCiphered,
      );
    const receiver = createNasSecurityContext({
      side: 'network',
      ngKsi: { mapped: false, ksi: 1 },
      kamf: Buffer.alloc(32, 1),
      ciphering: 2,
      integrity: 2,
    });
    for (let i = 0; i < 3; i++) unprotect(receiver, uplinks[round * 3 + i]!);
    // Ten PDUs each way through the NGAP codec (a registration's NGAP, sized like an Initial UE Message).
    for (let i = 0; i < 10; i++) {
      const decoded = decodeNgapPdu(ngap);
      if (decoded.ok) encodeNgapPdu(decoded.value);
    }
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / rounds;
}

const common = [
  '--quiet',
  '--gnbs',
  String(GNBS),
  '--key',
  K,
  '--opc',
  OPC,
  '--concurrency',
  String(CONCURRENCY),
];
const row = (name: string, r: SimulatorRun, bare: number): string =>
  `${name.padEnd(22)} ${String(r.registered).padStart(7)} ${(r.wallMs / 1000).toFixed(1).padStart(7)} s ${String(r.perSecond).padStart(6)}/s ` +
  `${r.serviceCpuMs.toFixed(3).padStart(8)} ms ${r.serviceMainCpuMs.toFixed(3).padStart(8)} ms ${bare.toFixed(3).padStart(8)} ms ${r.simulatorCpuMs.toFixed(3).padStart(8)} ms ` +
  `${r.rssMb.toFixed(0).padStart(6)} MB ${r.peakRssMb.toFixed(0).padStart(6)} MB` +
  (r.collections === undefined
    ? ''
    : `\n  service heap allocated ${(r.collections.allocatedBytesPerRegistration / 1024).toFixed(1)} KiB/reg ` +
      `(promoted ${(r.collections.promotedBytesPerRegistration / 1024).toFixed(1)} KiB), ` +
      `${r.collections.scavengesPer1000.toFixed(1)} scavenges and ${r.collections.markCompactsPer1000.toFixed(2)} mark-compacts per 1,000 registrations`);
// The bare figures first (this process is otherwise idle then), each run's row as soon as it is measured.
bareCpuMs(true, 500); // warm-up: the first rounds include compilation
const bareNull = bareCpuMs(false, 2000);
const bareA = bareCpuMs(true, 2000);
process.stdout.write(
  [
    `Registration: initial registrations (5G-AKA, SMC, ICS, Registration Complete) over udp, ${GNBS} gNBs, ${CONCURRENCY} in flight; service and simulator in separate processes`,
    'run                    devices    wall    rate  svc CPU/reg  svc main/reg  bare/reg  sim CPU/reg  svc RSS  peak RSS',
    '',
  ].join('\n'),
);
const service = await startService();
try {
  const hn = (await service.call('POST', '/api/v1/operator/home-network-keys', { id: 1, scheme: 'A' })) as {
    public_key: string;
  };
  await provision(service, 1, UES);
  await provision(service, 1 + UES, UES);
  if (WARMUP > 0) {
    // After every other run's IMSIs (those of --sessions and --hold included).
    const first = 1 + 3 * UES + HOLD;
    await provision(service, first, WARMUP);
    const warm = await simulate(
      service,
      [...common, '--ues', String(WARMUP), '--imsi', imsiOf(first), '--then', 'switch-off'],
      false,
      'warm-up',
    );
    process.stdout.write(`${row('warm-up (SUCI null)', warm, bareNull)}\n`);
  }
  if (values.suci !== 'A') {
    const nullRun = await simulate(
      service,
      [...common, '--ues', String(UES), '--imsi', imsiOf(1), '--then', 'switch-off'],
      false,
      'suci-null',
    );
    process.stdout.write(`${row('SUCI null', nullRun, bareNull)}\n`);
    if (STREAM_CLIENTS > 0) {
      const clients = await streamClients(service, STREAM_CLIENTS);
      const delayBefore = await streamDelayBuckets(service.base, service.call.token);
      // The clients share the machine's cores with the service and the simulator: their CPU is shown.
      const clientsCpu = await cpuSecondsOf(`/proc/${clients.pid}/stat`);
      const clientsWall = performance.now();
      const streamed = await simulate(
        service,
        [...common, '--ues', String(UES), '--imsi', imsiOf(1), '--then', 'switch-off'],
        false,
        'suci-null-streamed',
      );
      const clientsCpuMs = ((await cpuSecondsOf(`/proc/${clients.pid}/stat`)) - clientsCpu) * 1000;
      const clientsWallMs = performance.now() - clientsWall;
      // The switch-off's last records are written and streamed after the simulator has ended.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const latencies = await clients.stop();
      const delayAfter = await streamDelayBuckets(service.base, service.call.token);
      process.stdout.write(`${row(`SUCI null, ${STREAM_CLIENTS} streams`, streamed, bareNull)}\n`);
      // Steady registrations (nas.message) apart from the switch-off burst at the end (the deregistrations).
      for (const [kind, l] of Object.entries(latencies))
        if (l.count > 0)
          process.stdout.write(
            `  ${kind}: ${l.count} frames to ${STREAM_CLIENTS} clients, latency p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms\n`,
          );
      // The service's part of those latencies (the whole run, switch-off included): up to the write.
      const delay = (source: string, q: number) =>
        delayQuantileMs(delayBefore, delayAfter, source, q)?.toFixed(1) ?? '-';
      process.stdout.write(
        `  the service's part, from the message to the write (pmn_event_stream_delay_seconds, within its buckets): ` +
          `records p50 ${delay('record', 0.5)} ms, p99 ${delay('record', 0.99)} ms; ` +
          `network events p50 ${delay('event', 0.5)} ms, p99 ${delay('event', 0.99)} ms\n`,
      );
      process.stdout.write(
        `  stream clients' process: ${(clientsCpuMs / streamed.registered).toFixed(3)} ms CPU per registration, ` +
          `${((clientsCpuMs / clientsWallMs) * 100).toFixed(0)} % of a core over the run and its switch-off\n`,
      );
      process.stdout.write(
        `  service CPU per registration with the streams / without: ${(streamed.serviceCpuMs / nullRun.serviceCpuMs).toFixed(2)}\n`,
      );
    }
  }
  if (values.suci !== 'null') {
    const profileA = await simulate(
      service,
      [
        ...common,
        ...['--ues', String(UES), '--imsi', imsiOf(1 + UES)],
        ...['--suci', 'A', '--hn-key', hn.public_key, '--hn-key-id', '1', '--then', 'switch-off'],
      ],
      false,
      'suci-a',
    );
    process.stdout.write(`${row('SUCI Profile A', profileA, bareA)}\n`);
  }
  if (values.sessions) {
    await provision(service, 1 + 2 * UES + HOLD, UES);
    const withSessions = await simulate(
      service,
      [
        ...common,
        ...['--ues', String(UES), '--imsi', imsiOf(1 + 2 * UES + HOLD), '--session', 'IPv4'],
        ...['--then', 'switch-off'],
      ],
      false,
      'sessions',
    );
    process.stdout.write(`${row('SUCI null + session', withSessions, bareNull)}\n`);
    const s = withSessions.sessions;
    if (s !== undefined)
      process.stdout.write(
        `PDU sessions: ${s.established} established in ${(s.wallMs / 1000).toFixed(1)} s (${s.perSecond}/s); ` +
          `service ${s.serviceCpuMs.toFixed(3)} ms and simulator ${s.simulatorCpuMs.toFixed(3)} ms of CPU per establishment\n`,
      );
  }
  // --hold 0 skips the held devices.
  if (HOLD > 0) {
    await provision(service, 1 + 2 * UES, HOLD);
    const held = await simulate(
      service,
      [...common, '--ues', String(HOLD), '--imsi', imsiOf(1 + 2 * UES), '--then', 'hold'],
      true,
      'held',
    );
    process.stdout.write(`${row(`${HOLD} held (null)`, held, bareNull)}\n`);
  }
} finally {
  await service.stop();
}
