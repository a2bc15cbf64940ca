// Scale-out of the AMF set (issue 33's goal: each member's CPU per registration with two members no more
// than 15 % above one member's in the same run; the database's round trips and CPU per registration; how
// many members one database sustains; docs/amf-set.md, "Scale-out, measured"). A set of one member, then
// of two (test/system/amf-set-harness.ts: the production bundle, N2 over SCTP over UDP, one fresh
// database each time), alternated `--rounds` times; one simulated gNB associated with every member
// (test/system/amf-set-ran.ts), SUCI null initial registrations, `--warmup` first, then `--ues` measured.
// With two members the draw of the gNB's AMF selection by capacity (equal capacities) alternates, so
// each member serves half the devices, with twice the registrations in flight: each member carries the
// one member's load, as a set scaled out does (`--two-concurrency 20`: the same total load, each member
// half of it, which measures a member's batching of less load as much as the set).
// Measured between two samples around the measured registrations, after each member's writes settled:
// - each member's CPU (utime + stime of /proc/<pid>/stat, every thread) over the registrations it served;
// - the database server's CPU: the postmaster's own and its reaped children's (cutime + cstime) plus
//   every live child's, so a backend that exits in between still counts;
// - statements per registration from pg_stat_statements (loaded into the cluster this bench starts,
//   utility statements such as BEGIN and COMMIT included), and transactions (pg_stat_database
//   xact_commit) and rows inserted and updated (pg_stat_user_tables).
// Needs root (namespaces, TUNs) and a PostgreSQL server (Debian: postgresql, its contrib for
// pg_stat_statements).
// Per member and registration also: CPU by thread (/proc/<pid>/task: `main`, the event loop; `node`, every
// other thread, all named so: V8's collector and compiler helpers, libuv's pool, the UPF's); context
// switches (waited, preempted); read and write system calls (the database's socket: the native UDP
// socket's sendmmsg/recvmmsg are not counted); rows inserted and updated by table; each registration's
// time (median, 90th percentile) as the simulator sees it.
// Run: npx tsx bench/amf-set-scale.ts [--ues N (2000)] [--warmup N (500)] [--rounds N (2)]
//      [--concurrency N (20)] [--one-concurrency N (as --concurrency)] [--db-cores N (4)] [--member-cores N (2)] [--db-busy 0..1 (0.7)]
//      [--two-concurrency N (twice --concurrency)]: the two-member set's registrations in flight;
//      [--two-load alternate|first (alternate)]: `first` sends every registration of the two-member set to
//      its first member while the second idles beside it (a control: what a live peer costs a member);
//      [--trace-gc]: members run under `node --trace-gc`; each member's scavenges and mark-compacts per
//      1,000 registrations in the measured interval;
//      [--cpu-prof DIR]: each member runs under `node --cpu-prof` (DIR/r<round>-<members>m-<index>/), and
//      DIR/r<round>-<members>m.json holds the measured interval (V8's clock, microseconds) and each member's
//      registrations, for bench/cpu-profile-compare.ts to compare the two phases' main threads per registration;
//      [--rate N]: open loop (bench/open-loop.ts) instead of a number in flight: registrations start at N a
//      second per member (the two-member set 2N a second, the draw alternating), so each member of two
//      carries the one member's load whatever the machine does; --ues and --warmup then count per member
//      (each member serves --ues in both phases, over the same time). Choose N so that the two-member phase
//      leaves the cores partly idle: each phase reports the machine's idle %, runnable tasks (bench/machine-load.ts)
//      and the CPU of work other than the set, its database and this bench;
//      [--arrivals poisson|even (poisson)]: with --rate, independent arrivals or evenly spaced ones;
//      [--pin-members CPUS/CPUS]: member i runs on the i-th CPU list (`taskset -c`), e.g. `0/1`;
//      [--pin-others CPUS]: the database server and this bench (the simulator) on these CPUs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import type { SimulatedUe } from '../src/simulator/ue/simulated-ue.ts';
import { withConcurrency } from '../src/simulator/ue/ue-fleet.ts';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';
import { sampleMachine, type MachineLoad } from './machine-load.ts';
import { isArrivals, openLoop, type Arrivals } from './open-loop.ts';
import { amfSetUnavailable, startAmfSet, until, type AmfSet } from '../test/system/amf-set-harness.ts';
import { startSetRan, subscribe } from '../test/system/amf-set-ran.ts';

const { values } = parseArgs({
  options: {
    ues: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '20' },
    'one-concurrency': { type: 'string' },
    'two-concurrency': { type: 'string' },
    'db-cores': { type: 'string', default: '4' },
    'member-cores': { type: 'string', default: '2' },
    'db-busy': { type: 'string', default: '0.7' },
    'cpu-prof': { type: 'string' },
    'two-load': { type: 'string', default: 'alternate' },
    'trace-gc': { type: 'boolean', default: false },
    rate: { type: 'string' },
    arrivals: { type: 'string', default: 'poisson' },
    'pin-members': { type: 'string' },
    'pin-others': { type: 'string' },
  },
});
const UES = Number(values.ues);
const WARMUP = Number(values.warmup);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
// The one-member set's registrations in flight: --one-concurrency 10 against two members at 20 gives each
// member the same number in flight (a control: what a member's batching of half the load costs).
const ONE_CONCURRENCY = Number(values['one-concurrency'] ?? CONCURRENCY);
// The two-member set's: by default each member as loaded as the one member.
const TWO_CONCURRENCY = Number(values['two-concurrency'] ?? 2 * CONCURRENCY);
const FIRST = 1;
const PROFILES = values['cpu-prof'];
const TWO_LOAD = values['two-load'];
if (TWO_LOAD !== 'alternate' && TWO_LOAD !== 'first') throw new Error('--two-load: alternate or first');
// Open loop: registrations a second per member (undefined: the closed loop of the concurrency options).
const RATE = values.rate === undefined ? undefined : Number(values.rate);
if (RATE !== undefined && !(RATE > 0)) throw new Error('--rate: registrations a second per member, above 0');
const arrivals = values.arrivals;
if (!isArrivals(arrivals)) throw new Error('--arrivals: poisson or even');
const ARRIVALS: Arrivals = arrivals;
const PIN_MEMBERS = values['pin-members']?.split('/');
const say = (line: string): void => void process.stdout.write(`${line}\n`);
/** Runs every thread of `pid` (present and future ones: they inherit it) on `cpus` (a taskset list). */
const pin = (pid: number, cpus: string): void =>
  void execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });

const unavailable = amfSetUnavailable();
if (unavailable !== undefined) {
  process.stderr.write(`cannot run: ${unavailable}\n`);
  process.exit(2);
}

// A cluster of this bench's own (nothing else's work in its CPU figures), with pg_stat_statements: the
// library loads only at server start. The harness makes its databases in it.
const cluster = await startPostgresCluster();
cluster.psql(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
cluster.stopServer();
cluster.startServer();
cluster.psql('create extension if not exists pg_stat_statements');
process.env.PMN_TEST_POSTGRES_URL = cluster.url('postgres');
const admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
const [dataDir] = await admin<
  { setting: string }[]
>`select setting from pg_settings where name = 'data_directory'`;
const postmaster = Number(readFileSync(`${dataDir!.setting}/postmaster.pid`, 'utf8').split('\n')[0]);

const IDLE_MS = 5000;
const TICK = 100; // USER_HZ: /proc's CPU times are in ticks of 1/100 s on Linux.
/** Fields of /proc/<pid>/stat after the command name. */
const statFields = (pid: number): string[] =>
  readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
/** utime + stime (fields 14, 15), plus cutime + cstime (16, 17) when `reaped`, in seconds. */
const cpuOf = (pid: number, reaped = false): number => {
  const f = statFields(pid);
  const sum = Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0);
  return sum / TICK;
};
/** The live child processes of `parent`. */
function children(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === parent) continue;
    try {
      if (Number(statFields(pid)[1]) === parent) pids.push(pid);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}
/** The server's CPU seconds: the postmaster with its reaped children, and its live children. */
function serverCpu(): number {
  let total = cpuOf(postmaster, true);
  for (const pid of children(postmaster)) {
    try {
      total += cpuOf(pid);
    } catch {
      // Gone between the listing and the read: its time is in the postmaster's cutime now.
    }
  }
  return total;
}
if (values['pin-others'] !== undefined) {
  // The server's processes now; the backends it forks later inherit the postmaster's CPUs.
  for (const pid of [postmaster, ...children(postmaster)]) pin(pid, values['pin-others']);
  pin(process.pid, values['pin-others']);
}

/** CPU seconds of each thread of `pid` by its name (threads of one name summed: libuv's pool, V8's helpers). */
function threadsCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      // The main thread and a worker thread are both named `node`.
      const name =
        tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      byName.set(name, (byName.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) / TICK);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return byName;
}
const quantile = (xs: number[], q: number): number =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
/**
 * A member's kernel counters: context switches of every thread (voluntary: it waited, as on epoll; not:
 * the scheduler took the core from it), and its read and write system calls (/proc/<pid>/io: sockets
 * read and written with read/write and their vector forms; sendmmsg/recvmmsg are not counted).
 */
function kernelCounters(pid: number): {
  voluntary: number;
  involuntary: number;
  reads: number;
  writes: number;
} {
  let voluntary = 0;
  let involuntary = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? 0);
  return { voluntary, involuntary, reads: field('syscr'), writes: field('syscw') };
}
/** V8's clock (CLOCK_MONOTONIC, as a .cpuprofile's timestamps), in microseconds. */
const v8Now = (): number => Number(process.hrtime.bigint() / 1000n);

interface DbCounters {
  statements: number;
  transactions: number;
  inserted: number;
  updated: number;
  byStatement: Map<string, number>;
  /** Rows inserted and updated, by table. */
  byTable: Map<string, [number, number]>;
}
const OWN = ['select count(*) as n from ue_contexts', 'select relname, n_tup_ins'];
/** The set's database's counters (statistics flushed: the members' backends report within a second). */
async function dbCounters(set: AmfSet): Promise<DbCounters> {
  const name = new URL(set.databaseUrl).pathname.slice(1);
  await sleep(1500);
  const [db] = await admin<{ xact: string }[]>`
    select xact_commit as xact from pg_stat_database where datname = ${name}`;
  const rows = await set.sql<{ relname: string; ins: string; upd: string }>(
    'select relname, n_tup_ins as ins, n_tup_upd as upd from pg_stat_user_tables',
  );
  const byTable = new Map(
    rows.map((r): [string, [number, number]] => [r.relname, [Number(r.ins), Number(r.upd)]]),
  );
  const statements = await admin<{ query: string; calls: string }[]>`
    select s.query, s.calls from pg_stat_statements s join pg_database d on d.oid = s.dbid
    where d.datname = ${name}`;
  const byStatement = new Map<string, number>();
  let own = 0;
  for (const s of statements) {
    // The bench's own reads (each a transaction of its own) are not the members' work.
    if (OWN.some((text) => s.query.startsWith(text))) own += Number(s.calls);
    else byStatement.set(s.query, (byStatement.get(s.query) ?? 0) + Number(s.calls));
  }
  return {
    statements: [...byStatement.values()].reduce((a, b) => a + b, 0),
    transactions: Number(db?.xact ?? 0) - own,
    inserted: [...byTable.values()].reduce((a, [ins]) => a + ins, 0),
    updated: [...byTable.values()].reduce((a, [, upd]) => a + upd, 0),
    byStatement,
    byTable,
  };
}

interface Phase {
  members: number;
  /** CPU ms per registration of each member, over the registrations it served. */
  memberMs: number[];
  /** Each member's CPU ms per second before the measured registrations, with none running. */
  idleMsPerSecond: number[];
  /** memberMs less that idle CPU over the measured interval. */
  netMs: number[];
  served: number[];
  dbMs: number;
  statements: number;
  transactions: number;
  inserted: number;
  updated: number;
  rate: number;
  /** This process's CPU per registration: the simulated gNB and UEs. */
  simMs: number;
  top: [string, number][];
  /** The machine over the measured interval. */
  machine: MachineLoad;
  /** CPU of other work than the members, the database server and this bench, in cores. */
  othersCores: number;
  /** Each member's median registration time, ms (NaN for a member that served none). */
  tookMs: number[];
}

async function phase(members: number, round: number): Promise<Phase> {
  const set = await startAmfSet({
    tag: `s${members}`,
    members,
    heartbeatSeconds: 5,
    leaseSeconds: 15,
    nodeFlags: (index: number) => [
      ...(PROFILES === undefined
        ? []
        : ['--cpu-prof', '--cpu-prof-dir', join(PROFILES, `r${round}-${members}m-${index}`)]),
      ...(values['trace-gc'] ? ['--trace-gc'] : []),
    ],
  });
  try {
    if (PIN_MEMBERS !== undefined)
      set.members.forEach((m, i) => pin(m.child.pid!, PIN_MEMBERS[i % PIN_MEMBERS.length]!));
    // Open loop: each busy member gets --rate, --warmup and --ues (closed loop: the set gets --ues).
    const busy = RATE === undefined ? 1 : members === 1 || TWO_LOAD === 'first' ? 1 : members;
    const warmup = WARMUP * busy;
    const count = UES * busy;
    const total = warmup + count;
    await subscribe(set, FIRST, total);
    // One member: the only one; two: the draw alternates between the two equal capacities.
    const ran = await startSetRan(set, {
      count: total,
      first: FIRST,
      pick: (i) => (members === 1 || TWO_LOAD === 'first' || i % 2 === 0 ? 0 : 0.99),
      tuns: false,
    });
    // Each measured registration's time, by the member it went to (the draw: `pick`).
    const took: number[][] = Array.from({ length: members }, () => []);
    // The open loop's starts behind their arrival times (the simulator's own delays), ms.
    let late = { median: 0, max: 0 };
    let inFlight = 0;
    const register = async (ues: SimulatedUe[]): Promise<number> => {
      const one = async (ue: SimulatedUe) => {
        const t0 = performance.now();
        const outcome = await ue.register('suci');
        took[members === 1 ? 0 : (ue.guti?.amfPointer ?? 1) - 1]?.push(performance.now() - t0);
        return outcome;
      };
      let outcomes;
      if (RATE === undefined) {
        outcomes = await withConcurrency(ues, members === 1 ? ONE_CONCURRENCY : TWO_CONCURRENCY, one);
      } else {
        const run = await openLoop(ues, { rate: RATE * busy, arrivals: ARRIVALS }, one);
        ({ results: outcomes, lateMs: late, maxInFlight: inFlight } = run);
      }
      return outcomes.filter((o) => o.outcome === 'accepted').length;
    };
    const written = async (count: number) =>
      until(
        'the UE contexts written',
        async () =>
          Number((await set.sql<{ n: string }>('select count(*) as n from ue_contexts'))[0]?.n) >= count,
        () => '',
        120_000,
      );
    const warm = await register(ran.ues.slice(0, warmup));
    await written(warm);
    const measured = ran.ues.slice(warmup);
    // Each member's CPU with no registrations (heartbeat, lease, timers): a cost per second, not per
    // registration, that two members pay twice.
    const idle0 = set.members.map((m) => cpuOf(m.child.pid!));
    const idleStarted = performance.now();
    await sleep(IDLE_MS);
    const idleSeconds = (performance.now() - idleStarted) / 1000;
    const idlePerSecond = set.members.map((m, i) => (cpuOf(m.child.pid!) - idle0[i]!) / idleSeconds);
    const before = await dbCounters(set);
    const cpu0 = set.members.map((m) => cpuOf(m.child.pid!));
    const threads0 = set.members.map((m) => threadsCpu(m.child.pid!));
    const kernel0 = set.members.map((m) => kernelCounters(m.child.pid!));
    const output0 = set.members.map((m) => m.output().length);
    const window0 = v8Now();
    const db0 = serverCpu();
    const sim0 = process.cpuUsage();
    const machine = sampleMachine();
    const started = performance.now();
    for (const t of took) t.length = 0;
    const accepted = await register(measured);
    const elapsed = (performance.now() - started) / 1000;
    await written(warm + accepted);
    const cpu1 = set.members.map((m) => cpuOf(m.child.pid!));
    const threads1 = set.members.map((m) => threadsCpu(m.child.pid!));
    const kernel1 = set.members.map((m) => kernelCounters(m.child.pid!));
    const gcLines = set.members.map((m, i) => m.output().slice(output0[i]).split('\n'));
    const window1 = v8Now();
    const intervalSeconds = (performance.now() - started) / 1000;
    const db1 = serverCpu();
    const sim = process.cpuUsage(sim0);
    const load = machine.stop();
    const after = await dbCounters(set);
    const served = set.members.map(
      (m) => measured.filter((ue) => ue.state === 'registered' && ue.guti?.amfPointer === m.pointer).length,
    );
    const top = [...after.byStatement]
      .map(([q, n]): [string, number] => [q, (n - (before.byStatement.get(q) ?? 0)) / accepted])
      .filter(([, n]) => n > 0)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 12);
    const result: Phase = {
      members,
      memberMs: set.members.map((_, i) => ((cpu1[i]! - cpu0[i]!) * 1000) / Math.max(1, served[i]!)),
      idleMsPerSecond: idlePerSecond.map((x) => x * 1000),
      // Over the measured interval (the registrations and the wait for their writes).
      netMs: set.members.map(
        (_, i) =>
          ((cpu1[i]! - cpu0[i]! - idlePerSecond[i]! * intervalSeconds) * 1000) / Math.max(1, served[i]!),
      ),
      served,
      dbMs: ((db1 - db0) * 1000) / accepted,
      statements: (after.statements - before.statements) / accepted,
      transactions: (after.transactions - before.transactions) / accepted,
      inserted: (after.inserted - before.inserted) / accepted,
      updated: (after.updated - before.updated) / accepted,
      rate: accepted / elapsed,
      simMs: (sim.user + sim.system) / 1000 / accepted,
      top,
      machine: load,
      tookMs: took.map((t) => quantile(t, 0.5)),
      othersCores:
        (load.busySeconds -
          cpu1.reduce((a, c, i) => a + c - cpu0[i]!, 0) -
          (db1 - db0) -
          (sim.user + sim.system) / 1e6) /
        intervalSeconds,
    };
    say(
      `round ${round}, ${members} member(s): ${accepted} of ${count} accepted (${served.join(' + ')}), ` +
        `${result.rate.toFixed(0)}/s; member CPU/reg ${result.memberMs.map((ms) => ms.toFixed(2)).join(', ')} ms ` +
        `(idle ${result.idleMsPerSecond.map((ms) => ms.toFixed(1)).join(', ')} ms/s, net of it ${result.netMs.map((ms) => ms.toFixed(2)).join(', ')} ms); ` +
        `database: server CPU/reg ${result.dbMs.toFixed(2)} ms, statements/reg ${result.statements.toFixed(2)}, ` +
        `transactions/reg ${result.transactions.toFixed(2)}, rows inserted/reg ${result.inserted.toFixed(2)}, ` +
        `updated/reg ${result.updated.toFixed(2)}; simulator CPU/reg ${result.simMs.toFixed(2)} ms`,
    );
    say(
      `  machine over the interval: idle ${load.idlePercent.toFixed(0)} % (steal ${load.stealPercent.toFixed(0)} %), ` +
        `runnable tasks mean ${load.runnable.mean.toFixed(1)} max ${load.runnable.max} (this bench's read included), ` +
        `other work ${result.othersCores.toFixed(2)} cores, load average ${load.loadAverage}` +
        (RATE === undefined
          ? ''
          : `; open loop ${RATE * busy}/s ${ARRIVALS}: starts late median ${late.median.toFixed(1)} ms max ${late.max.toFixed(0)} ms, at most ${inFlight} in flight`),
    );
    for (const [q, n] of top) say(`  ${n.toFixed(3)}  ${q.replace(/\s+/g, ' ').slice(0, 110)}`);
    const tables = [...after.byTable]
      .map(([t, [ins, upd]]): [string, number, number] => {
        const [ins0, upd0] = before.byTable.get(t) ?? [0, 0];
        return [t, (ins - ins0) / accepted, (upd - upd0) / accepted];
      })
      .filter(([, ins, upd]) => ins > 0 || upd > 0);
    say(
      `  rows/reg inserted+updated: ${tables.map(([t, ins, upd]) => `${t} ${ins.toFixed(2)}+${upd.toFixed(2)}`).join(', ')}`,
    );
    set.members.forEach((m, i) => {
      if (served[i] === 0) return;
      const byThread = [...threads1[i]!]
        .map(([name, s]): [string, number] => [
          name,
          ((s - (threads0[i]!.get(name) ?? 0)) * 1000) / served[i]!,
        ])
        .filter(([, ms]) => ms >= 0.005)
        .sort((a, b) => b[1] - a[1]);
      const k0 = kernel0[i]!;
      const k1 = kernel1[i]!;
      const per = (a: number, b: number) => ((b - a) / served[i]!).toFixed(1);
      say(
        `  ${m.name} per reg: context switches ${per(k0.voluntary, k1.voluntary)} waited + ` +
          `${per(k0.involuntary, k1.involuntary)} preempted; read calls ${per(k0.reads, k1.reads)}, write calls ${per(k0.writes, k1.writes)}; ` +
          `registration time median ${quantile(took[i]!, 0.5).toFixed(0)} ms, 90th percentile ${quantile(took[i]!, 0.9).toFixed(0)} ms`,
      );
      const gcs = (kind: RegExp) =>
        ((gcLines[i]!.filter((l) => kind.test(l)).length * 1000) / served[i]!).toFixed(1);
      if (values['trace-gc'])
        say(
          `  ${m.name} per 1,000 reg: scavenges ${gcs(/: Scavenge/)}, mark-compacts ${gcs(/: Mark-Compact/)}`,
        );
      say(
        `  ${m.name} CPU/reg by thread: ${byThread.map(([n, ms]) => `${n} ${ms.toFixed(2)}`).join(', ')} ms`,
      );
    });
    if (PROFILES !== undefined) {
      mkdirSync(PROFILES, { recursive: true });
      writeFileSync(
        join(PROFILES, `r${round}-${members}m.json`),
        JSON.stringify({ members, round, window: [window0, window1], served }),
      );
    }
    await ran.close();
    return result;
  } finally {
    await set.stop();
  }
}

const phases: Phase[] = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternated, the order swapped each round: the machine's load drifts.
    const order = round % 2 === 1 ? [1, 2] : [2, 1];
    for (const members of order) phases.push(await phase(members, round));
  }
} finally {
  await admin.end();
  cluster.stop();
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const one = phases.filter((p) => p.members === 1);
const two = phases.filter((p) => p.members === 2);
const oneMs = median(one.map((p) => p.memberMs[0]!));
// Each round's ratio: its two-member phase against the one-member phase next to it.
// The busier of the members that served registrations (with --two-load first, the first alone).
const busiest = (p: Phase, of: number[]): number => Math.max(...of.filter((_, i) => p.served[i]! > 0));
const ratios = two.map((p, i) => busiest(p, p.memberMs) / one[i]!.memberMs[0]!);
const netRatios = two.map((p, i) => busiest(p, p.netMs) / one[i]!.netMs[0]!);
const all = [...one, ...two];
const dbMs = median(all.map((p) => p.dbMs));
const statements = median(all.map((p) => p.statements));
// The estimate: a member busy `memberCores` cores sustains memberCores*1000/oneMs registrations per
// second; the server at `dbBusy` of `dbCores` cores, dbCores*dbBusy*1000/dbMs.
const memberCores = Number(values['member-cores']);
const dbCores = Number(values['db-cores']);
const dbBusy = Number(values['db-busy']);
const perMember = (memberCores * 1000) / oneMs;
const dbRate = (dbCores * dbBusy * 1000) / dbMs;
say(
  [
    `one member: CPU/reg ${one.map((p) => p.memberMs[0]!.toFixed(2)).join(', ')} ms (median ${oneMs.toFixed(2)})`,
    `two members: CPU/reg ${two.map((p) => p.memberMs.map((x, i) => (p.served[i]! > 0 ? x.toFixed(2) : 'idle')).join(' / ')).join(', ')} ms`,
    `two members / one member (the busier member, per round): ${ratios.map((r) => r.toFixed(3)).join(', ')} (goal <= 1.15); net of idle CPU: ${netRatios.map((r) => r.toFixed(3)).join(', ')}`,
    `machine idle % and mean runnable tasks, one member / two (per round): ${two
      .map((p, i) => {
        const m1 = one[i]!.machine;
        return `${m1.idlePercent.toFixed(0)} % ${m1.runnable.mean.toFixed(1)} / ${p.machine.idlePercent.toFixed(0)} % ${p.machine.runnable.mean.toFixed(1)}`;
      })
      .join(', ')}; other work ${all.map((p) => p.othersCores.toFixed(2)).join(', ')} cores`,
    // Equal batching needs equal registrations in flight (rate x time): a phase whose registrations
    // queue batches more of them per statement and spends less CPU on each.
    `registration time median and statements/reg, one member / two (per round): ${two
      .map(
        (p, i) =>
          `${one[i]!.tookMs[0]!.toFixed(0)} ms ${one[i]!.statements.toFixed(2)} / ${p.tookMs
            .filter((ms) => !Number.isNaN(ms))
            .map((ms) => ms.toFixed(0))
            .join('+')} ms ${p.statements.toFixed(2)}`,
      )
      .join(', ')}`,
    `database per registration: statements ${statements.toFixed(2)}, transactions ${median(all.map((p) => p.transactions)).toFixed(2)}, ` +
      `server CPU ${dbMs.toFixed(2)} ms (median of all phases)`,
    `estimate: a member on ${memberCores} cores ${perMember.toFixed(0)} reg/s; the server at ${(dbBusy * 100).toFixed(0)} % of ` +
      `${dbCores} cores ${dbRate.toFixed(0)} reg/s; members one database sustains: ${(dbRate / perMember).toFixed(1)}`,
  ].join('\n'),
);
process.exit(0);
