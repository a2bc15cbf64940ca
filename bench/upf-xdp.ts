/**
 * The UPF's XDP datapath against its ceilings, in one run (bench/upf.ts part 4; docs/upf.md "The XDP
 * datapath", docs/performance.md "User plane"). A gNB namespace and a data-network namespace, each on
 * a veth pair to this process's namespace (the core). All XDP programs run in native mode, the UPF's
 * too (`xdpNativeOnVeth`): generic mode on veth runs in the sender's context, where no program can
 * be told apart from the generator that feeds it.
 *
 * Generator: bench/xdp-gen.c sends Ethernet frames (64-octet IP packets, as G-PDUs uplink) through a
 * packet socket that skips the qdisc, 1,024 per system call, pinned to CPU 0. Every veth that receives
 * runs its NAPI in a thread of its own (threaded NAPI): the core's veth's thread runs the program
 * under test and the redirect, the receiving namespace's veth's thread the sink (bench/xdp-sink.bpf.c:
 * count and drop), so the CPU each takes per packet is read from its thread (/proc/<pid>/stat), apart
 * from the generator's and the sink's. Both threads run on CPU 1 (real-time, the sink's first), the
 * generator on CPU 0.
 *
 * Cases, each way: `receive and drop` (the sink on the core's veth: what a veth's NAPI costs before
 * any forwarding, the floor of every program here), `plain XDP` (bench/xdp-plain.bpf.c: redirect to the
 * other veth, no GTP-U, no lookup), `UPF, 1 session`, `UPF, 10,000 sessions x 10 flows` (100,000
 * flows each way, the forwarder ticking its flows every second as createUpf does; interleaved, the
 * adversarial order: consecutive packets are of different flows, so each reads the flow map outside
 * the cache) and `... in bursts of 16-64` (the realistic order: the same 100,000 flows held in the map,
 * each burst 16-64 back-to-back packets of one flow drawn at random, as TCP windows and GSO segments
 * arrive). Every UPF row is then given against plain XDP's CPU per packet in the same run. Then the
 * cost of establishing and releasing 10,000 sessions on the XDP forwarder beside the same calls on a
 * TUN-only one. With `--ablate` (run alone: `npx tsx bench/upf-xdp.ts --ablate`), both 100,000-flow
 * cases again on builds of the program with one stage taken out or changed (ABLATIONS), to show where
 * its CPU goes, the last the program unchanged (to show the order's effect). Needs root, clang, cc
 * and libbpf; otherwise one line says why.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { encodeUplinkGPdu } from '../test/helpers/gtpu-codec.ts';
import {
  loadUpfAddon,
  upfBpfObject,
  type Forwarder,
  type ForwarderCounters,
  type UpfAddon,
} from '../src/network/upf/upf-addon.ts';
import { packageRoot } from '../src/package-root.ts';
import { udpPacket } from '../test/network/upf/ip-packets.ts';

const ip = (...a: string[]) => execFileSync('ip', a, { encoding: 'utf8' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const number = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const bench = join(packageRoot(), '.bench');
const GENERATOR_CPU = 0;
const FORWARDER_CPU = 1;
const SESSIONS = 10_000;
const FLOWS_PER_SESSION = 10;
const TEID_BASE = 0x10000;
const UE_BASE = '10.45.0.2';

/** Why the XDP part cannot run here, or undefined. */
function unavailable(): string | undefined {
  if (!existsSync(upfBpfObject())) return 'built without the XDP program (clang or libbpf-dev missing)';
  for (const [command, why] of [
    ['clang', 'clang for the plain XDP forwarder and the sink'],
    ['taskset', 'taskset (util-linux) to pin the generator and the NAPI threads'],
    ['chrt', 'chrt (util-linux) for the NAPI threads'],
  ] as const) {
    try {
      execFileSync(command, ['--version'], { stdio: 'ignore' });
    } catch {
      return `needs ${why}`;
    }
  }
  return undefined;
}

/** Compiles the generator (cc, libbpf) and the sink program (clang) into .bench/. */
function build(): { generator: string; sink: string } {
  mkdirSync(bench, { recursive: true });
  const generator = join(bench, 'xdp-gen');
  const sink = join(bench, 'xdp-sink.bpf.o');
  execFileSync('cc', [
    '-O2',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-o',
    generator,
    join(packageRoot(), 'bench', 'xdp-gen.c'),
    '-lbpf',
  ]);
  execFileSync('clang', [
    '-O2',
    '-g', // BTF: libbpf needs it for the map definitions
    '-target',
    'bpf',
    `-I/usr/include/${execFileSync('cc', ['-print-multiarch'], { encoding: 'utf8' }).trim()}`,
    '-c',
    join(packageRoot(), 'bench', 'xdp-sink.bpf.c'),
    '-o',
    sink,
  ]);
  return { generator, sink };
}

interface Side {
  namespace: string;
  /** The core's end of the pair (in this namespace). */
  core: string;
  /** The namespace's end. */
  peer: string;
  coreAddress: string;
  peerAddress: string;
}

function pair(namespace: string, core: string, peer: string, subnet: string): Side {
  ip('netns', 'add', namespace);
  ip('link', 'add', core, 'type', 'veth', 'peer', 'name', peer, 'netns', namespace);
  ip('addr', 'add', `${subnet}.1/24`, 'dev', core);
  ip('link', 'set', core, 'up');
  ip('-n', namespace, 'addr', 'add', `${subnet}.2/24`, 'dev', peer);
  ip('-n', namespace, 'link', 'set', peer, 'up');
  ip('-n', namespace, 'link', 'set', 'lo', 'up');
  execFileSync('sysctl', ['-qw', `net.ipv4.conf.${core}.forwarding=1`]);
  return { namespace, core, peer, coreAddress: `${subnet}.1`, peerAddress: `${subnet}.2` };
}

/** An interface's MAC address, in a namespace or here. */
const mac = (dev: string, namespace?: string): string =>
  (
    JSON.parse(
      ip(...(namespace === undefined ? [] : ['-n', namespace]), '-j', 'link', 'show', 'dev', dev),
    ) as { address: string }[]
  )[0]?.address ?? '';
const octets = (address: string) =>
  address
    .split(':')
    .map((o) => `0x${o}`)
    .join(',');

/** Compiles the plain forwarder towards `to` (its veth's MAC as source, the peer's as destination). */
function plainProgram(to: Side): string {
  const object = join(bench, `xdp-plain-${to.core}.o`);
  execFileSync('clang', [
    '-O2',
    '-target',
    'bpf',
    `-I/usr/include/${execFileSync('cc', ['-print-multiarch'], { encoding: 'utf8' }).trim()}`,
    `-DOUT_IFINDEX=${readFileSync(`/sys/class/net/${to.core}/ifindex`, 'utf8').trim()}`,
    `-DSOURCE_MAC=${octets(mac(to.core))}`,
    `-DDESTINATION_MAC=${octets(mac(to.peer, to.namespace))}`,
    '-c',
    join(packageRoot(), 'bench', 'xdp-plain.bpf.c'),
    '-o',
    object,
  ]);
  return object;
}

/** An Ethernet frame from `from`'s namespace end to the core's end, carrying an IPv4 packet. */
const frame = (from: Side, packet: Uint8Array): Buffer =>
  Buffer.concat([
    Buffer.from(mac(from.core).replaceAll(':', ''), 'hex'),
    Buffer.from(mac(from.peer, from.namespace).replaceAll(':', ''), 'hex'),
    Buffer.from([0x08, 0x00]),
    packet,
  ]);
const ETHERNET = 14;

/**
 * What the generator varies: offsets in the frame, 0 for none, and the order of the frames: `burstMax`
 * 0 interleaved (consecutive frames of different flows), else bursts of `burstMin` to `burstMax` frames
 * of one flow drawn at random (bench/xdp-gen.c).
 */
interface Spread {
  sessions: number;
  flows: number;
  teidAt: number;
  addressAt: number;
  ipAt: number;
  portAt: number;
  burstMin: number;
  burstMax: number;
}
const NO_SPREAD: Spread = {
  sessions: 1,
  flows: 1,
  teidAt: 0,
  addressAt: 0,
  ipAt: 0,
  portAt: 0,
  burstMin: 0,
  burstMax: 0,
};
/** The realistic order's bursts: a TCP window's or a GSO segment's packets arrive back to back. */
const BURST_MIN = 16;
const BURST_MAX = 64;

/** The kernel threads running a device's NAPI (threaded NAPI: "napi/<dev>-<id>", cut at 15). */
function napiThread(dev: string): number {
  const want = `napi/${dev}-`.slice(0, 15);
  let found = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith(want))
        found = Math.max(found, Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  if (found === 0) throw new Error(`no NAPI thread for ${dev}`);
  return found;
}

/** A thread's CPU time (utime + stime) in microseconds. */
function threadCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / 100; // USER_HZ
}

/**
 * Gives a veth (here or in a namespace) a NAPI thread, pinned to `cpu` with real-time `priority`;
 * returns its pid. Real-time, so that the machine's other work does not leave the thread's ring of 256
 * frames to overflow while it waits (the thread is busy only while frames come).
 */
function threaded(dev: string, cpu: number, priority: number, namespace?: string): number {
  const write = `echo 1 > /sys/class/net/${dev}/threaded`;
  if (namespace === undefined) execFileSync('sh', ['-c', write]);
  else execFileSync('ip', ['netns', 'exec', namespace, 'sh', '-c', write]);
  const pid = napiThread(dev);
  execFileSync('taskset', ['-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
  execFileSync('chrt', ['-f', '-p', String(priority), String(pid)]);
  return pid;
}

/** The sink on `dev` (here or in a namespace) until stop() gives the frames it counted. */
function startSink(generatorPath: string, sinkObject: string, dev: string, namespace?: string) {
  const command = [generatorPath, 'sink', sinkObject, dev];
  const child =
    namespace === undefined
      ? spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn('ip', ['netns', 'exec', namespace, ...command], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    ready: async () => {
      for (let i = 0; i < 300 && !out.includes('ready'); i++) await sleep(10);
      if (!out.includes('ready')) throw new Error(`the sink on ${dev} did not attach`);
    },
    stop: async (): Promise<number> => {
      child.kill('SIGTERM');
      await exited;
      return Number(out.trim().split('\n').at(-1) ?? 0);
    },
  };
}

interface Measure {
  sent: number;
  arrived: number;
  seconds: number;
  generatorCpuUs: number;
  forwardCpuUs: number;
}

/**
 * Frames from `from`'s namespace into the core for `seconds`; `forward` is the veth whose NAPI runs
 * the program under test, `sinkDev`/`sinkNamespace` where they are counted.
 */
async function measure(
  tools: { generator: string; sink: string },
  seconds: number,
  from: Side,
  bytes: Buffer,
  spread: Spread,
  forward: string,
  sinkDev: string,
  sinkNamespace: string | undefined,
  tick?: () => void,
): Promise<Measure> {
  const sink = startSink(tools.generator, tools.sink, sinkDev, sinkNamespace);
  await sink.ready();
  // The forwarding veth's NAPI exists once a native program is on it (the sink's or the forwarder's).
  const forwarder = threaded(forward, FORWARDER_CPU, 50);
  // The sink's thread shares the forwarding thread's CPU, not the generator's (which would starve
  // it), and goes first: a frame lost in its ring would be the sink's, not the program's.
  if (sinkNamespace !== undefined) threaded(sinkDev, FORWARDER_CPU, 60, sinkNamespace);
  const before = threadCpuUs(forwarder);
  const ticker = tick === undefined ? undefined : setInterval(tick, 1000);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        from.namespace,
        tools.generator,
        'gen',
        from.peer,
        String(GENERATOR_CPU),
        String(seconds),
        ...spreadArgs(bytes, spread),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`xdp-gen exited ${code}`))));
  });
  if (ticker !== undefined) clearInterval(ticker);
  await sleep(100); // the last frames in the rings
  const forwardCpuUs = threadCpuUs(forwarder) - before;
  const arrived = await sink.stop();
  const [sent = 0, generatorCpuUs = 0, wallUs = 1] = out.trim().split(' ').map(Number);
  return { sent, arrived, seconds: wallUs / 1e6, generatorCpuUs, forwardCpuUs };
}

const COST_RUNS = 200_000;

/**
 * The program attached to `dev` run on COST_RUNS frames spread as the generator's, one per
 * BPF_PROG_TEST_RUN, timed by the kernel around the program: ns per packet, and how many of the runs
 * ended in a redirect (all, when the program forwarded them).
 */
function programCost(
  generator: string,
  dev: string,
  bytes: Buffer,
  spread: Spread,
): { ns: number; redirects: number } {
  const [ns = 0, redirects = 0] = execFileSync(
    generator,
    ['cost', dev, String(COST_RUNS), ...spreadArgs(bytes, spread)],
    { encoding: 'utf8' },
  )
    .trim()
    .split(' ')
    .map(Number);
  return { ns, redirects };
}

/** bench/xdp-gen.c's frame and spread arguments. */
const spreadArgs = (bytes: Buffer, spread: Spread): string[] => [
  bytes.toString('hex'),
  String(spread.sessions),
  String(spread.flows),
  String(spread.teidAt),
  String(TEID_BASE),
  String(spread.addressAt),
  String(ipv4Number(UE_BASE)),
  String(spread.ipAt),
  String(spread.portAt),
  String(spread.burstMin),
  String(spread.burstMax),
];

const ipv4Number = (address: string) => address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
const ipv4Text = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/**
 * The figure is of sessions x flows only if the generator's frames reached each of them: a spread
 * run on flows new to the program inserts every one (the frames a full veth refuses must be sent
 * again, not skipped). A run short of that is an error, not a row.
 */
function everyFlowReached(
  forwarder: Forwarder,
  before: ForwarderCounters,
  spread: Spread,
  direction: string,
): void {
  if (spread === NO_SPREAD || spread.burstMax !== 0) return;
  const inserted = forwarder.counters().xdpFlowsInserted - before.xdpFlowsInserted;
  const expected = spread.sessions * spread.flows;
  if (inserted !== expected)
    throw new Error(`${direction}: the generator reached ${inserted} of the ${expected} flows`);
}

/**
 * The bursts' figure is of 100,000 flows held only if every flow of both directions is open (in the
 * forwarder's table, hence its entry in the map: the tick reads each entry into the table and an
 * entry leaves the map only when its flow ends) at the start and at the end of the measurement, and
 * none was inserted meanwhile (none had ended). A run short of that is an error, not a row.
 */
function everyFlowHeld(
  before: ForwarderCounters,
  after: ForwarderCounters,
  spread: Spread,
  direction: string,
): void {
  const expected = 2 * spread.sessions * spread.flows;
  const inserted = after.xdpFlowsInserted - before.xdpFlowsInserted;
  // The 1-session case's two flows are held too: none may end (the count stays), none be new.
  if (before.openFlows < expected || after.openFlows !== before.openFlows || inserted !== 0)
    throw new Error(
      `${direction}: ${before.openFlows} then ${after.openFlows} flows held (the spread's ${expected} and the 1-session case's), ${inserted} inserted meanwhile`,
    );
}

/**
 * Builds of the UPF's program with one stage taken out or changed, to measure what that stage costs
 * (the profile in docs/performance.md "User plane"; `--ablate`), and the program unchanged as a
 * control. All but the control break rules of upf.md and exist only here. Each replaces text of
 * upf.bpf.c and fails when that text is no longer there.
 */
interface Ablation {
  name: string;
  replace: [from: string, to: string][];
  /** Whether the build still puts flows in the map (the check that the generator reached them). */
  flows: boolean;
}

/** 'flows in one array': account() counting into an array of one-line entries instead. */
const ARRAY_ACCOUNT = `struct ablated_entry {
  struct bpf_spin_lock lock;
  __u32 used;
  struct xdp_flow_key key;
  __u64 packets;
  __u64 bytes;
};
#define ABLATED_ENTRIES 262144
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, ABLATED_ENTRIES);
  __type(key, __u32);
  __type(value, struct ablated_entry);
} ablated_flows SEC(".maps");

static __always_inline void account(struct xdp_flow_key *key, __u64 octets, __u32 *slot) {
 {
  const __u32 *w = (const __u32 *)key;
  __u64 h = 0x9e3779b97f4a7c15ull;
#pragma unroll
  for (int i = 0; i < 10; i++) h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
  for (int probe = 0; probe < 4; probe++) {
    __u32 index = ((__u32)(h >> 32) + probe) & (ABLATED_ENTRIES - 1);
    struct ablated_entry *e = bpf_map_lookup_elem(&ablated_flows, &index);
    if (!e) break;
    int done = 0;
    bpf_spin_lock(&e->lock);
    if (!e->used) {
      e->used = 1;
      __builtin_memcpy(&e->key, key, sizeof *key);
      e->packets = 1;
      e->bytes = octets;
      done = 1;
    } else {
      const __u64 *x = (const __u64 *)&e->key, *y = (const __u64 *)key;
      __u64 diff = 0;
#pragma unroll
      for (int i = 0; i < 5; i++) diff |= x[i] ^ y[i];
      if (diff == 0) {
        e->packets++;
        e->bytes += octets;
        done = 1;
      }
    }
    bpf_spin_unlock(&e->lock);
    if (done) break;
  }
  struct xdp_usage *usage = bpf_map_lookup_elem(&xdp_usage, slot);
  if (usage) usage->flow_packets++;
  return;
 }
`;

const ABLATIONS: Ablation[] = [
  {
    name: 'no flow accounting',
    replace: [
      [
        'static __always_inline void account(struct xdp_flow_key *key, __u64 octets, __u32 *slot) {',
        'static __always_inline void account(struct xdp_flow_key *key, __u64 octets, __u32 *slot) {\n  return;',
      ],
    ],
    flows: false,
  },
  {
    // The layout a one-read design would have: each flow's counters in one cache line of one array,
    // at the flow's hash (probed linearly, claimed under the entry's lock). The loader does not read
    // it: only its cost per packet is measured.
    name: 'flows in one array',
    replace: [
      [
        'static __always_inline void account(struct xdp_flow_key *key, __u64 octets, __u32 *slot) {',
        ARRAY_ACCOUNT,
      ],
    ],
    flows: false,
  },
  {
    name: 'flow looked up, not counted',
    replace: [
      ['__sync_fetch_and_add(&v->packets, 1);', ''],
      ['__sync_fetch_and_add(&v->bytes, octets);', ''],
    ],
    flows: true,
  },
  {
    // Elements in one vmalloc area instead of each allocated alone (breaks upf.md: a deleted flow's
    // element is reused at once, so a late update can count into another flow).
    name: 'flow map preallocated',
    replace: [['  __uint(map_flags, BPF_F_NO_PREALLOC);\n', '']],
    flows: true,
  },
  {
    // What per-CPU flow counters would save at best (breaks upf.md: two CPUs adding to one flow can
    // lose a count; a per-CPU hash map would add a read of the per-CPU area on top).
    name: 'flow counters without atomics',
    replace: [
      ['__sync_fetch_and_add(&v->packets, 1);', 'v->packets += 1;'],
      ['__sync_fetch_and_add(&v->bytes, octets);', 'v->bytes += octets;'],
    ],
    flows: true,
  },
  {
    name: 'no policing',
    replace: [
      ['bpf_spin_lock(&policer->lock);', ''],
      ['bpf_spin_unlock(&policer->lock);', ''],
      ['bucket_take(&policer->uplink, total, now)', '((void)now, 1)'],
      ['bucket_take(&policer->downlink, total, now)', '((void)now, 1)'],
    ],
    flows: true,
  },
  {
    // The program unchanged, built and measured last: what the order of the runs alone makes of it.
    name: 'as built, again',
    replace: [],
    flows: true,
  },
];

/** Compiles upf.bpf.c with an ablation's replacements into .bench/; the object's path. */
function ablatedProgram(ablation: Ablation): string {
  const directory = join(packageRoot(), 'native', 'upf', 'bpf');
  let source = readFileSync(join(directory, 'upf.bpf.c'), 'utf8');
  for (const [from, to] of ablation.replace) {
    if (!source.includes(from)) throw new Error(`ablation '${ablation.name}': upf.bpf.c has no '${from}'`);
    source = source.split(from).join(to);
  }
  const file = join(bench, `upf-ablated-${ablation.name.replace(/[^a-z]+/g, '-')}`);
  writeFileSync(`${file}.bpf.c`, source);
  execFileSync(
    'clang',
    [
      '-O2',
      '-g',
      '-target',
      'bpf',
      `-I/usr/include/${execFileSync('cc', ['-print-multiarch'], { encoding: 'utf8' }).trim()}`,
      `-I${directory}`,
      '-c',
      `${file}.bpf.c`,
      '-o',
      `${file}.bpf.o`,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return `${file}.bpf.o`;
}

/** The CPU cost of adding (with a downlink tunnel) and removing `count` sessions, µs each. */
function sessionCost(forwarder: Forwarder, count: number, gnb: string): { add: number; remove: number } {
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  let start = cpu();
  for (let i = 0; i < count; i++) {
    const failed =
      forwarder.addSession(i + 1, TEID_BASE + i, ipv4Text(ipv4Number(UE_BASE) + i), null, 0, 0) ??
      forwarder.setDownlink(i + 1, gnb, 2152, 0x20000 + i, 1);
    if (failed !== undefined) throw new Error(`session ${i + 1}: ${failed}`);
  }
  const add = (cpu() - start) / count;
  start = cpu();
  for (let i = 0; i < count; i++) forwarder.removeSession(i + 1, 0, 0);
  return { add, remove: (cpu() - start) / count };
}

export async function xdpThroughput(
  addon: UpfAddon,
  seconds: number,
  print: (line: string) => void,
  ablate = false,
): Promise<void> {
  const why = unavailable();
  if (why !== undefined) {
    print(`XDP datapath: skipped (${why})`);
    return;
  }
  const tools = build();
  const tag = process.pid % 100000;
  const n = process.pid % 250;
  const gnb = pair(`pmnbg${tag}`, `bg${tag}`, `g${tag}`, `10.234.${n}`);
  const dn = pair(`pmnbd${tag}`, `bd${tag}`, `d${tag}`, `10.235.${n}`);
  const rows: { path: string; direction: string; m: Measure }[] = [];
  const programs: { path: string; direction: string; ns: number; redirects: number }[] = [];
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const loads = [load()];
  try {
    for (const side of [gnb, dn])
      ip('neigh', 'replace', side.peerAddress, 'lladdr', mac(side.peer, side.namespace), 'dev', side.core);
    // 64-octet IP packets: 36 octets of UDP payload. UDP checksums 0 (none, RFC 768), since the
    // generator changes ports and addresses.
    const data = Buffer.alloc(36);
    const noChecksum = (packet: Buffer, udpAt: number) => {
      packet.writeUInt16BE(0, udpAt + 6);
      return packet;
    };
    const plainUp = frame(gnb, noChecksum(udpPacket(gnb.peerAddress, dn.peerAddress, 40000, 9, data), 20));
    const plainDown = frame(dn, noChecksum(udpPacket(dn.peerAddress, gnb.peerAddress, 40000, 9, data), 20));
    const inner = noChecksum(udpPacket(UE_BASE, dn.peerAddress, 40000, 9, data), 20);
    const gpdu = frame(
      gnb,
      noChecksum(
        udpPacket(gnb.peerAddress, gnb.coreAddress, 2152, 2152, encodeUplinkGPdu(TEID_BASE, inner)),
        20,
      ),
    );
    const downlink = frame(dn, noChecksum(udpPacket(dn.peerAddress, UE_BASE, 40000, 9, data), 20));
    // Offsets: the outer IPv4 at 14, UDP at 34, GTP-U at 42 (TEID at 46, 16 octets with the PDU
    // Session Container), the inner IPv4 at 58.
    const INNER = ETHERNET + 20 + 8 + 16;
    const upSpread: Spread = {
      sessions: SESSIONS,
      flows: FLOWS_PER_SESSION,
      teidAt: ETHERNET + 20 + 8 + 4,
      addressAt: INNER + 12,
      ipAt: INNER,
      portAt: INNER + 20,
      burstMin: 0,
      burstMax: 0,
    };
    const downSpread: Spread = {
      sessions: SESSIONS,
      flows: FLOWS_PER_SESSION,
      teidAt: 0,
      addressAt: ETHERNET + 16,
      ipAt: ETHERNET,
      portAt: ETHERNET + 20,
      burstMin: 0,
      burstMax: 0,
    };
    const bursts = (spread: Spread): Spread => ({ ...spread, burstMin: BURST_MIN, burstMax: BURST_MAX });

    rows.push({
      path: 'receive and drop',
      direction: 'uplink',
      m: await measure(tools, seconds, gnb, gpdu, NO_SPREAD, gnb.core, gnb.core, undefined),
    });
    rows.push({
      path: 'receive and drop',
      direction: 'downlink',
      m: await measure(tools, seconds, dn, downlink, NO_SPREAD, dn.core, dn.core, undefined),
    });

    const up = plainProgram(dn);
    const down = plainProgram(gnb);
    ip('link', 'set', 'dev', gnb.core, 'xdpdrv', 'obj', up, 'sec', 'xdp');
    ip('link', 'set', 'dev', dn.core, 'xdpdrv', 'obj', down, 'sec', 'xdp');
    try {
      rows.push({
        path: 'plain XDP',
        direction: 'uplink',
        m: await measure(tools, seconds, gnb, plainUp, NO_SPREAD, gnb.core, dn.peer, dn.namespace),
      });
      rows.push({
        path: 'plain XDP',
        direction: 'downlink',
        m: await measure(tools, seconds, dn, plainDown, NO_SPREAD, dn.core, gnb.peer, gnb.namespace),
      });
      programs.push({
        path: 'plain XDP',
        direction: 'uplink',
        ...programCost(tools.generator, gnb.core, plainUp, NO_SPREAD),
      });
      programs.push({
        path: 'plain XDP',
        direction: 'downlink',
        ...programCost(tools.generator, dn.core, plainDown, NO_SPREAD),
      });
    } finally {
      ip('link', 'set', 'dev', gnb.core, 'xdpdrv', 'off');
      ip('link', 'set', 'dev', dn.core, 'xdpdrv', 'off');
    }

    type Case = readonly [path: string, up: Spread, down: Spread];
    const many = `${number(SESSIONS)} sessions x ${FLOWS_PER_SESSION} flows`;
    // After the interleaved case, which inserts every flow: the same flows held, in bursts.
    const spreads: Case[] = [
      [`UPF, ${many}`, upSpread, downSpread],
      [`UPF, ${many} in bursts of ${BURST_MIN}-${BURST_MAX}`, bursts(upSpread), bursts(downSpread)],
    ];
    // The program as built, then (--ablate) builds of it with a stage taken out, 100,000 flows only.
    const runs: { label: string; object: string; flows: boolean; cases: Case[] }[] = [
      {
        label: '',
        object: upfBpfObject(),
        flows: true,
        cases: [['UPF, 1 session', NO_SPREAD, NO_SPREAD], ...spreads],
      },
      ...(ablate ? ABLATIONS : []).map((a) => ({
        label: ` (${a.name})`,
        object: ablatedProgram(a),
        flows: a.flows,
        cases: spreads.map(([path, up, down]) => [path.replace('UPF', `UPF (${a.name})`), up, down] as const),
      })),
    ];
    for (const { label, object, flows, cases } of runs) {
      const forwarder = new addon.Forwarder({
        n3Address: gnb.coreAddress,
        tunName: `bx${tag}`,
        maxSessions: SESSIONS,
        maxFlows: 262_144,
        datapath: 'xdp',
        bpfObject: object,
        n6Interface: dn.core,
        xdpNativeOnVeth: true,
      });
      let previous = Date.now();
      // The CPU of the ticks themselves (reading the program's flows into the forwarder's table).
      let tickCpuUs = 0;
      let ticks = 0;
      const tick = () => {
        const now = Date.now();
        const started = process.cpuUsage();
        // Idle after 30 minutes, not createUpf's 30 s: longer than any run, so that the bursts case,
        // which visits the flows at random, finds them all still held whatever --seconds says.
        forwarder.tickFlows(now, previous, 1_800_000, 1_800_000);
        const used = process.cpuUsage(started);
        tickCpuUs += used.user + used.system;
        ticks++;
        previous = now;
        while (forwarder.takeFlows(2000).length > 0) continue;
      };
      try {
        print(`UPF XDP${label}: ${forwarder.info().datapathReason ?? ''}`);
        for (let i = 0; i < SESSIONS; i++) {
          forwarder.addSession(i + 1, TEID_BASE + i, ipv4Text(ipv4Number(UE_BASE) + i), null, 0, 0);
          forwarder.setDownlink(i + 1, gnb.peerAddress, 2152, 0x20000 + i, 1);
        }
        for (const [path, upS, downS] of cases) {
          // Held flows are counted after a tick has read the map's entries into the table.
          if (upS.burstMax !== 0) tick();
          const before = forwarder.counters();
          tickCpuUs = 0;
          ticks = 0;
          rows.push({
            path,
            direction: 'uplink',
            m: await measure(tools, seconds, gnb, gpdu, upS, gnb.core, dn.peer, dn.namespace, tick),
          });
          if (upS.burstMax !== 0) tick();
          const afterUplink = forwarder.counters();
          if (flows) everyFlowReached(forwarder, before, upS, 'uplink');
          if (flows && upS.burstMax !== 0) everyFlowHeld(before, afterUplink, upS, 'uplink');
          rows.push({
            path,
            direction: 'downlink',
            m: await measure(tools, seconds, dn, downlink, downS, dn.core, gnb.peer, gnb.namespace, tick),
          });
          tick();
          if (flows) everyFlowReached(forwarder, afterUplink, downS, 'downlink');
          if (flows && downS.burstMax !== 0)
            everyFlowHeld(afterUplink, forwarder.counters(), downS, 'downlink');
          programs.push({ path, direction: 'uplink', ...programCost(tools.generator, gnb.core, gpdu, upS) });
          programs.push({
            path,
            direction: 'downlink',
            ...programCost(tools.generator, dn.core, downlink, downS),
          });
          const c = forwarder.counters();
          print(
            `${path}: uplink ${number(c.uplinkPackets - before.uplinkPackets)}, downlink ${number(c.downlinkPackets - before.downlinkPackets)} packets by the program; flows inserted into its map ${number(c.xdpFlowsInserted - before.xdpFlowsInserted)}; to the stack ${number(c.xdpToStack - before.xdpToStack)} (${number(c.xdpToStackLimited - before.xdpToStackLimited)} over the budget); flow table full ${number(c.flowTableFull - before.flowTableFull)}; open flows ${number(before.openFlows)} before the case, ${number(c.openFlows)} after; a tick ${number(tickCpuUs / Math.max(1, ticks) / 1000, 2)} ms of CPU (${ticks} ticks)`,
          );
        }
      } finally {
        forwarder.close();
      }
    }
    loads.push(load());

    // Establishment and release: the same calls on an XDP forwarder and on a TUN-only one.
    const costs: Record<string, { add: number; remove: number }> = {};
    for (const datapath of ['xdp', 'tun'] as const) {
      const f = new addon.Forwarder({
        n3Address: gnb.coreAddress,
        tunName: `bx${tag}`,
        maxSessions: SESSIONS,
        datapath,
        bpfObject: upfBpfObject(),
        n6Interface: dn.core,
        xdpNativeOnVeth: true,
      });
      try {
        costs[datapath] = sessionCost(f, SESSIONS, gnb.peerAddress);
      } finally {
        f.close();
      }
    }
    loads.push(load());

    print('');
    print(
      `XDP datapath, 64-octet IP packets (${seconds} s each; generator on CPU ${GENERATOR_CPU}, the forwarding veth's NAPI thread on CPU ${FORWARDER_CPU}; load average ${loads.join(' -> ')}):`,
    );
    print('');
    print(
      '| path | direction | sent /s | arrived /s | generator CPU per frame | forwarding thread CPU per packet | forwarding thread busy | one core at that CPU, packets/s |',
    );
    print('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const { path, direction, m } of rows) {
      const perPacket = m.forwardCpuUs / Math.max(1, m.arrived);
      print(
        `| ${path} | ${direction} | ${number(m.sent / m.seconds)} | ${number(m.arrived / m.seconds)} | ${number(m.generatorCpuUs / Math.max(1, m.sent), 2)} µs | ${number(perPacket, 3)} µs | ${number((100 * m.forwardCpuUs) / (m.seconds * 1e6))}% | ${number(1 / (perPacket / 1e6))} |`,
      );
    }
    print('');
    // Every UPF row against plain XDP's of its direction, measured in the same run.
    for (const direction of ['uplink', 'downlink']) {
      const plain = rows.find((r) => r.path === 'plain XDP' && r.direction === direction)?.m;
      if (plain === undefined) continue;
      const cpu = (m: Measure) => m.forwardCpuUs / Math.max(1, m.arrived);
      for (const { path, m: upf } of rows.filter(
        (r) => r.path.startsWith('UPF') && r.direction === direction,
      ))
        print(
          `${direction}, ${path}: ${number(cpu(upf), 3)} µs per packet against plain XDP's ${number(cpu(plain), 3)} µs, ${number(cpu(upf) / cpu(plain), 2)}x plain XDP's CPU, so one core carries ${number((100 * cpu(plain)) / cpu(upf))}% of plain XDP's packets (${number(1e6 / cpu(upf))}/s); arrived ${number((100 * upf.arrived) / upf.seconds / (plain.arrived / plain.seconds))}% of plain XDP's rate (the generator's while the forwarding thread idles)`,
        );
    }
    print('');
    print(
      `The programs alone (BPF_PROG_TEST_RUN on ${number(COST_RUNS)} frames each, one per call, the veth as ingress; the kernel times the program; a redirect is decided, not carried out):`,
    );
    print('');
    print(
      '| direction | program | ns per packet | of plain XDP | redirected | packets/s per core at that cost |',
    );
    print('| --- | --- | ---: | ---: | ---: | ---: |');
    for (const direction of ['uplink', 'downlink']) {
      const plain = programs.find((p) => p.path === 'plain XDP' && p.direction === direction);
      for (const p of programs.filter((q) => q.direction === direction))
        print(
          `| ${direction} | ${p.path} | ${number(p.ns, 1)} | ${plain === undefined ? '' : `${number(p.ns / plain.ns, 2)}x`} | ${number((100 * p.redirects) / COST_RUNS)}% | ${number(1e9 / p.ns)} |`,
        );
    }
    print('');
    print(
      `${number(SESSIONS)} sessions on the forwarder (addSession + setDownlink, then removeSession), CPU per session: XDP ${number(costs.xdp?.add ?? 0, 1)} / ${number(costs.xdp?.remove ?? 0, 1)} µs, TUN only ${number(costs.tun?.add ?? 0, 1)} / ${number(costs.tun?.remove ?? 0, 1)} µs`,
    );
  } finally {
    ip('link', 'del', gnb.core);
    ip('link', 'del', dn.core);
    ip('netns', 'del', gnb.namespace);
    ip('netns', 'del', dn.namespace);
  }
}

// Run alone: npx tsx bench/upf-xdp.ts [--seconds N] [--ablate] (root; bench/upf.ts runs it as part 4).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '3' }, ablate: { type: 'boolean', default: false } },
  });
  const load = loadUpfAddon();
  if (!load.ok) throw load.error;
  const print = (line: string): void => void process.stdout.write(`${line}\n`);
  await xdpThroughput(load.addon, Number(values.seconds), print, values.ablate);
}
