/**
 * The records path of registrations, in-process (issue 16 item 4): `npx tsx bench/registration-records.ts
 * [--registrations N] [--rate N] [--rounds N]`.
 *
 * Each registration leaves what a SUCI-null initial registration leaves in the service: 8 subscriber logs
 * through the AMF's `logNas` and 10 radio events through the NGAP recorder, with raw bytes of their real
 * sizes (views of Buffer's pool, as the codecs' output is) and their details. They go through the real
 * records pipeline on a database file (migrated, WAL, the records writer thread), offered at `--rate`
 * registrations a second in 1 ms steps, as a loaded service offers them (0: as fast as possible).
 * Reported per registration: CPU time of the main thread, of the records writer thread and of the whole
 * process (`/proc/self/task/<tid>/stat`); the service's own commits beside the records are played by
 * `--main-commits` small write transactions a second on the main connection (default 500: the SQN's
 * group commits at 900 registrations a second). Beside them, in the same run, the bare baseline: the same
 * records' inputs built and dropped (what the AMF would allocate anyway without a pipeline).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { systemClock } from '../src/clock.ts';
import type { AmfContext } from '../src/network/amf/context/amf-context.ts';
import type { AmfUe } from '../src/network/amf/context/amf-ue.ts';
import { logNas } from '../src/network/amf/gmm/nas-link.ts';
import { createNgapRecorder, type RadioRecordContext } from '../src/network/amf/n2/ngap-recorder.ts';
import type { FiveGmmMessage } from '../src/network/nas/index.ts';
import { createRecordsPipeline } from '../src/records/records-pipeline.ts';
import { migrateToLatest, openSqliteDatabase, sqliteFileOf } from '../src/storage/database.ts';

const { values: args } = parseArgs({
  options: {
    registrations: { type: 'string', default: '6000' },
    rate: { type: 'string', default: '900' },
    rounds: { type: 'string', default: '3' },
    delay: { type: 'string' },
    'main-commits': { type: 'string', default: '500' },
  },
});
const REGISTRATIONS = Number(args.registrations);
const RATE = Number(args.rate);
const ROUNDS = Number(args.rounds);
const MAIN_COMMITS = Number(args['main-commits']);

/** Clock ticks a second in /proc (USER_HZ, 100 on Linux). */
const TICKS = 100;
const pid = process.pid;

interface ThreadUse {
  /** CPU time, µs. */
  cpu: number;
  /** Read and write system calls (pread and pwrite of SQLite's files among them). */
  reads: number;
  writes: number;
}

/** CPU time and I/O system calls of each thread of this process, by thread id. */
function threadTimes(): Map<number, ThreadUse> {
  const times = new Map<number, ThreadUse>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const io = readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8');
      const count = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
      times.set(Number(tid), {
        cpu: ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1e6,
        reads: count('syscr'),
        writes: count('syscw'),
      });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return times;
}

// A SUCI-null initial registration's subscriber logs (event, direction, plain NAS size) and radio events
// (NGAP message, direction, size, the NAS inside), as the service writes them.
const LOGS: [string, 'inbound' | 'outbound', number][] = [
  ['registrationRequest', 'inbound', 30],
  ['authenticationRequest', 'outbound', 50],
  ['authenticationResponse', 'inbound', 21],
  ['securityModeCommand', 'outbound', 11],
  ['securityModeComplete', 'inbound', 48],
  ['registrationAccept', 'outbound', 44],
  ['registrationComplete', 'inbound', 3],
  ['configurationUpdateCommand', 'outbound', 28],
];
const EVENTS: [string, 'inbound' | 'outbound', number, string | undefined][] = [
  ['InitialUEMessage', 'inbound', 72, 'Registration request'],
  ['DownlinkNASTransport', 'outbound', 76, 'Authentication request'],
  ['UplinkNASTransport', 'inbound', 68, 'Authentication response'],
  ['DownlinkNASTransport', 'outbound', 44, 'Security mode command'],
  ['UplinkNASTransport', 'inbound', 96, 'Security mode complete'],
  ['InitialContextSetupRequest', 'outbound', 160, 'Registration accept'],
  ['InitialContextSetupResponse', 'inbound', 24, undefined],
  ['UplinkNASTransport', 'inbound', 50, 'Registration complete'],
  ['DownlinkNASTransport', 'outbound', 72, 'Configuration update command'],
  ['UplinkNASTransport', 'inbound', 40, 'UL NAS transport'],
];
const CONTEXT: RadioRecordContext = { ranId: '001:01:000001', name: 'gnb-1', address: '127.0.0.1:38412' };

function bytes(size: number, seed: number): Buffer {
  const raw = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i += 1) raw[i] = (seed + i * 31) & 0xff;
  return raw;
}

/** One registration's records, through `logNas` and the recorder (or, for the baseline, only built). */
function registration(
  n: number,
  amf: AmfContext,
  recorder: ReturnType<typeof createNgapRecorder>,
  ue: AmfUe,
): void {
  const ranUeId = n & 0xffffff;
  for (let i = 0; i < EVENTS.length; i += 1) {
    const [messageType, direction, size, nas] = EVENTS[i] as (typeof EVENTS)[number];
    recorder.pdu(direction, bytes(size, n + i), messageType, CONTEXT, {
      ran_ue_ngap_id: ranUeId,
      ...(i === 0 ? {} : { amf_ue_ngap_id: n }),
      ...(nas === undefined ? {} : { nas }),
    });
    const log = LOGS[i];
    if (log === undefined) continue;
    const [messageType5gmm, logDirection, logSize] = log;
    if (i === 6)
      ue.guti = {
        type: '5g-guti',
        mcc: '001',
        mnc: '01',
        amfRegionId: 1,
        amfSetId: 1,
        amfPointer: 0,
        tmsi: n,
      };
    logNas(
      amf,
      ue,
      logDirection,
      { messageType: messageType5gmm } as unknown as FiveGmmMessage,
      bytes(logSize, n - i),
    );
  }
}

function newUe(n: number): AmfUe {
  const imsi = `00101${String(n).padStart(10, '0')}`;
  return {
    supi: imsi,
    suci: `suci-0-001-01-0000-0-0-${imsi.slice(5)}`,
    guti: undefined,
    lastRadio: 'gnb-1',
  } as unknown as AmfUe;
}

const print = (line: string) => process.stdout.write(`${line}\n`);
const noMetrics = { message() {}, recordDropped() {}, ueContextLimitReject() {} };
const logger = pino({ level: 'warn' });

/** Runs `count` registrations' records through `target`, paced at RATE; returns the CPU by thread. */
async function drive(
  count: number,
  amf: AmfContext,
  recorder: ReturnType<typeof createNgapRecorder>,
  settle: () => Promise<void>,
): Promise<{ before: Map<number, ThreadUse>; after: Map<number, ThreadUse>; wallMs: number }> {
  const before = threadTimes();
  const started = performance.now();
  const perMs = RATE === 0 ? count : Math.max(1, Math.round(RATE / 1000));
  for (let n = 0; n < count;) {
    const stepStart = performance.now();
    for (let k = 0; k < perMs && n < count; k += 1, n += 1) {
      registration(n, amf, recorder, newUe(n));
    }
    if (RATE !== 0) {
      const due = started + (n / RATE) * 1000;
      await sleep(Math.max(0, due - stepStart - (performance.now() - stepStart)));
    } else await new Promise((resolve) => setImmediate(resolve));
  }
  await settle();
  return { before, after: threadTimes(), wallMs: performance.now() - started };
}

function perRegistration(
  run: { before: Map<number, ThreadUse>; after: Map<number, ThreadUse> },
  count: number,
  writerTids: Set<number>,
) {
  const sum = { main: 0, writer: 0, all: 0, writerReads: 0, writerWrites: 0, mainWrites: 0 };
  for (const [tid, use] of run.after) {
    const before = run.before.get(tid) ?? { cpu: 0, reads: 0, writes: 0 };
    const used = use.cpu - before.cpu;
    sum.all += used;
    if (tid === pid) {
      sum.main += used;
      sum.mainWrites += use.writes - before.writes;
    } else if (writerTids.has(tid)) {
      sum.writer += used;
      sum.writerReads += use.reads - before.reads;
      sum.writerWrites += use.writes - before.writes;
    }
  }
  return Object.fromEntries(Object.entries(sum).map(([key, value]) => [key, value / count])) as typeof sum;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-records-bench-'));
  try {
    const db = openSqliteDatabase(join(dir, 'pmn.db'));
    await migrateToLatest(db);
    const pipeline = createRecordsPipeline({
      db,
      clock: systemClock,
      logger,
      ...(args.delay === undefined ? {} : { writerOptions: { busyDelayMs: Number(args.delay) } }),
    });
    // The service's own small commits beside the records (the SQN of each registration, group-committed
    // per event-loop turn): each one is a change of the file the writer thread's connection sees.
    const sqlite = sqliteFileOf(db).connection();
    sqlite.exec('create table bench_sqn (id integer primary key, sqn integer not null)');
    sqlite.prepare('insert into bench_sqn (id, sqn) values (1, 0)').run();
    const advance = sqlite.prepare('update bench_sqn set sqn = sqn + 1 where id = 1');
    let commits: NodeJS.Timeout | undefined;
    const commitsOnMain = (on: boolean) => {
      clearInterval(commits);
      if (on && MAIN_COMMITS > 0) {
        commits = setInterval(() => sqlite.transaction(() => advance.run()).immediate(), 1000 / MAIN_COMMITS);
      }
    };
    const records = pipeline.ingestion;
    const events = { emit: () => {} };
    const amf = { records, events } as unknown as AmfContext;
    const recorder = createNgapRecorder({ records, metrics: noMetrics, logger });
    const drop = {
      recordSubscriberLog: () => true,
      recordRadioEvent: () => true,
      recordRadioLog: () => true,
    };
    const bareAmf = { records: drop, events } as unknown as AmfContext;
    const bareRecorder = createNgapRecorder({ records: drop, metrics: noMetrics, logger });

    // Warm-up, which also starts the writer thread: its thread id is the one that appears.
    const threadsBefore = new Set(threadTimes().keys());
    commitsOnMain(true);
    await drive(1000, amf, recorder, () => records.flush());
    commitsOnMain(false);
    const writerTids = new Set([...threadTimes().keys()].filter((tid) => !threadsBefore.has(tid)));
    await drive(1000, bareAmf, bareRecorder, async () => {});

    print(
      `${REGISTRATIONS} registrations a round (${EVENTS.length} radio events, ${LOGS.length} subscriber logs each), ` +
        `rate ${RATE === 0 ? 'unpaced' : `${RATE}/s`}, writer thread ids ${[...writerTids].join(',')}`,
    );
    print(
      'round | pipeline: main µs | writer µs | all threads µs | writer pread+read | writer pwrite+write | main writes | bare: main µs | wall s',
    );
    for (let round = 1; round <= ROUNDS; round += 1) {
      commitsOnMain(true);
      const piped = await drive(REGISTRATIONS, amf, recorder, () => records.flush());
      commitsOnMain(false);
      const bare = await drive(REGISTRATIONS, bareAmf, bareRecorder, async () => {});
      const p = perRegistration(piped, REGISTRATIONS, writerTids);
      const b = perRegistration(bare, REGISTRATIONS, writerTids);
      print(
        `${round} | ${p.main.toFixed(1)} | ${p.writer.toFixed(1)} | ${p.all.toFixed(1)} | ` +
          `${p.writerReads.toFixed(1)} | ${p.writerWrites.toFixed(1)} | ${p.mainWrites.toFixed(1)} | ` +
          `${b.main.toFixed(1)} | ${(piped.wallMs / 1000).toFixed(1)}`,
      );
    }
    await records.close();
    await db.destroy();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
