/**
 * Traffic through the core (docs/upf.md "Traffic through the core"): a UE's TUN in its namespace -> the
 * simulated gNB's user plane -> GTP-U -> PMN Core's UPF -> its N6 TUN in a data-network namespace, against
 * two ceilings measured in the same run with the same sender and receiver between the same two
 * namespaces: a veth pair (the kernel alone; it carries 64 KiB GSO segments) and two TUN devices joined by
 * two plain TUN-to-UDP-to-TUN forwarders (bench/upf-plain.c: the same read/sendmmsg and recvmmsg/write
 * system calls, batching and TUN offloads as the gNB's user plane and the UPF, without GTP-U, lookups,
 * policing or accounting: the path the simulated gNB and the core take, without the core's work). Measured: TCP
 * throughput (one connection, the UE sending) and the small-packet rate (64-octet UDP payloads from the
 * UE). CPU: the sender's and receiver's own (each child reports process.cpuUsage()); the forwarders' is the
 * two plain helpers' own (getrusage) or, through the core, this process's, which is the two forwarders'
 * threads (its JavaScript idles meanwhile; flow accounting is on, reports go to a counter).
 *
 *   sudo npx tsx bench/session-traffic.ts [--seconds per case, default 3] [--rounds, default 1]
 *
 * A fourth path, **core XDP**, runs where the UPF's XDP program loads: the same simulated gNB's user
 * plane with its N3 socket in a gNB namespace of its own (a veth link to the core, as a real gNB's) and a
 * second UPF with `datapath: 'xdp'` on that link and on a veth to the data network, so that the UPF's
 * packets never cross a TUN or a system call (the gNB's still do: the UE's TUN is the gNB's radio side).
 * Its forwarders' CPU is this process's too (the gNB's thread; the program runs in the softirqs that its
 * sends and the data network's raise, which the kernel charges to whoever it interrupts).
 *
 * Needs root and cc; skips otherwise. With several rounds the paths alternate (veth, plain, core, core
 * XDP, veth, ...) so that a shared machine's load falls on all of them alike.
 */
import { parseArgs } from 'node:util';
import { execFileSync, spawn } from 'node:child_process';
import { systemClock, systemTimers } from '../src/clock.ts';
import { createGnbUserPlane } from '../src/simulator/user-plane/gnb-user-plane.ts';
import { loadGnbUserPlaneAddon } from '../src/simulator/user-plane/gnb-user-plane-addon.ts';
import { loadUpfAddon, upfBpfObject } from '../src/network/upf/upf-addon.ts';
import { existsSync } from 'node:fs';
import { createUpf } from '../src/network/upf/upf.ts';
import { setNetFeatures } from '../test/helpers/net-features.ts';
import { txChecksumOff } from '../test/helpers/tx-checksum.ts';
import { buildPlainHelper, startHelper } from './upf-plain.ts';

const print = (line: string): void => void process.stdout.write(`${line}\n`);
const { values: options } = parseArgs({
  options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '1' } },
});
const seconds = Number(options.seconds);
const rounds = Number(options.rounds);
if (process.getuid?.() !== 0) {
  print('bench/session-traffic.ts needs root (network namespaces, TUN); skipped');
  process.exit(0);
}
for (const load of [loadUpfAddon(), loadGnbUserPlaneAddon()]) if (!load.ok) throw load.error;

const id = process.pid % 100000;
const N3 = '127.78.0.1';
const GNB = '127.78.0.2';
const UE = '10.45.0.2';
const DN = '10.99.0.1';
const PLAIN_UE = '127.78.1.1';
const PLAIN_DN = '127.78.1.2';
const UE_NS = `u6bu${id}`;
const DN_NS = `u6bd${id}`;
const N6 = `u6bn${id}`;
// The core XDP path: the gNB's namespace and two veth links (core side / namespace side), its own
// addresses so that nothing is routed in this namespace for the other paths' UE and data network.
const GNB_NS = `u6bg${id}`;
const n = id % 250;
const X = {
  n3: `10.237.${n}.1`,
  gnb: `10.237.${n}.2`,
  dnLink: `10.238.${n}.1`,
  dn: `10.238.${n}.2`,
  ue: `10.239.${n}.2`,
  gnbCore: `u6gc${id}`,
  gnbPeer: `u6gp${id}`,
  dnCore: `u6dc${id}`,
  dnPeer: `u6dp${id}`,
  tun: `u6bx${id}`,
};
const helper = buildPlainHelper();
const ip = (...args: string[]): void =>
  void execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'inherit'] });

// The receiver in the data network: counts TCP bytes or UDP datagrams until told to stop (SIGTERM), then
// prints its counts and CPU.
const RECEIVER = `
const [kind, address] = process.argv.slice(1);
let bytes = 0, packets = 0;
const cpu = process.cpuUsage();
const report = () => { console.log(JSON.stringify({ bytes, packets, cpu: process.cpuUsage(cpu) })); process.exit(0); };
process.on('SIGTERM', report);
if (kind === 'tcp') {
  require('node:net').createServer((c) => c.on('data', (d) => { bytes += d.length; packets++; })).listen(5001, address, () => console.log('ready'));
} else {
  const s = require('node:dgram').createSocket('udp4');
  s.on('message', (m) => { bytes += m.length; packets++; });
  s.bind(5002, address, () => { s.setRecvBufferSize(8 << 20); console.log('ready'); });
}`;

// The sender in the UE's namespace: as much as it can for ms milliseconds.
const SENDER = `
const [kind, address, ms] = process.argv.slice(1);
const cpu = process.cpuUsage();
let sent = 0;
const end = Date.now() + Number(ms);
const report = () => { console.log(JSON.stringify({ sent, cpu: process.cpuUsage(cpu) })); process.exit(0); };
if (kind === 'tcp') {
  const chunk = Buffer.alloc(1 << 16, 1);
  const c = require('node:net').connect(5001, address, () => {
    const pump = () => { while (Date.now() < end) { sent += chunk.length; if (!c.write(chunk)) return c.once('drain', pump); } c.end(report); };
    pump();
  });
} else {
  const s = require('node:dgram').createSocket('udp4');
  const datagram = Buffer.alloc(64, 2);
  let inFlight = 0;
  const pump = () => { while (inFlight < 256) { inFlight++; sent++; s.send(datagram, 5002, address, done); } };
  const done = () => { inFlight--; if (Date.now() < end) { if (inFlight < 128) pump(); } else if (inFlight === 0) report(); };
  s.bind(0, () => { s.setSendBufferSize(4 << 20); pump(); });
}`;

interface Cpu {
  user: number;
  system: number;
}
const micros = (c: Cpu): number => c.user + c.system;

function child(namespace: string, script: string, args: string[]) {
  const p = spawn('ip', ['netns', 'exec', namespace, process.execPath, '-e', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  p.stdout.setEncoding('utf8');
  const ready = new Promise<void>((resolve) =>
    p.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('ready')) resolve();
    }),
  );
  const done = new Promise<string>((resolve, reject) => {
    p.on('error', reject);
    p.on('close', () => resolve(out.split('\n').filter((l) => l.startsWith('{'))[0] ?? '{}'));
  });
  return { ready, done, stop: () => p.kill('SIGTERM') };
}

interface Measurement {
  kind: 'tcp' | 'udp';
  received: { bytes: number; packets: number; cpu: Cpu };
  sent: number;
  senderCpu: Cpu;
  /** The forwarders' CPU; undefined on veth (the kernel's work falls on the sender and receiver). */
  forwarderCpu: Cpu | undefined;
  seconds: number;
}

/** A path between the two namespaces: set up before one case, torn down after it with its forwarders' CPU. */
interface Path {
  name: 'veth' | 'plain' | 'core' | 'core XDP';
  /** The receiver's address in the data network. */
  dn: string;
  setUp(): Promise<void>;
  tearDown(): Promise<Cpu | undefined>;
}

async function measure(kind: 'tcp' | 'udp', path: Path): Promise<Measurement> {
  await path.setUp();
  try {
    const receiver = child(DN_NS, RECEIVER, [kind, path.dn]);
    await receiver.ready;
    const start = process.hrtime.bigint();
    const sender = JSON.parse(await child(UE_NS, SENDER, [kind, path.dn, String(seconds * 1000)]).done) as {
      sent: number;
      cpu: Cpu;
    };
    await new Promise((r) => setTimeout(r, 200)); // what is in flight arrives
    const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    receiver.stop();
    const received = JSON.parse(await receiver.done) as Measurement['received'];
    return {
      kind,
      received,
      sent: sender.sent,
      senderCpu: sender.cpu,
      forwarderCpu: await path.tearDown(),
      seconds: elapsed,
    };
  } catch (error) {
    await path.tearDown();
    throw error;
  }
}

/**
 * One line: TCP as throughput and CPU per MiB delivered (veth carries 64 KiB GSO segments, a TUN
 * MTU-sized packets, so packets are not comparable); UDP as packets per second and CPU per packet.
 */
function row(path: string, m: Measurement): string {
  const mbps = (m.received.bytes * 8) / m.seconds / 1e6;
  const unit = m.kind === 'tcp' ? m.received.bytes / (1 << 20) : m.received.packets;
  const per = (c: Cpu) => (unit > 0 ? (micros(c) / unit).toFixed(m.kind === 'tcp' ? 0 : 2) : '-');
  const rate =
    m.kind === 'tcp'
      ? `${mbps.toFixed(1)} Mbit/s`
      : `${Math.round(m.received.packets / m.seconds)} packets/s (${((100 * m.received.packets) / m.sent).toFixed(1)}% of sent)`;
  return `${path.padEnd(8)} ${m.kind.toUpperCase()}: ${rate}; CPU µs per ${m.kind === 'tcp' ? 'MiB' : 'packet'}: sender ${per(
    m.senderCpu,
  )}, receiver ${per(m.received.cpu)}, forwarders ${m.forwarderCpu === undefined ? '(kernel: in the two before)' : per(m.forwarderCpu)}`;
}

const rate = (m: Measurement): number =>
  (m.kind === 'tcp' ? m.received.bytes : m.received.packets) / m.seconds;
const percent = (a: Measurement, b: Measurement): string => `${((100 * rate(a)) / rate(b)).toFixed(0)}%`;

const cleanup = (): void => {
  for (const ns of [UE_NS, DN_NS, GNB_NS]) {
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      // absent
    }
  }
};

/** The UE's side of a path: its address, the data network routed through `device`. */
const ueSide = (device: string): void => {
  ip('-n', UE_NS, 'addr', 'add', `${UE}/32`, 'dev', device);
  ip('-n', UE_NS, 'link', 'set', device, 'up');
  ip('-n', UE_NS, 'route', 'add', `${DN}/32`, 'dev', device);
};
/** The data network's side: its address, the UE routed through `device`. */
const dnSide = (device: string): void => {
  ip('-n', DN_NS, 'link', 'set', device, 'addrgenmode', 'none');
  ip('-n', DN_NS, 'addr', 'add', `${DN}/32`, 'dev', device);
  ip('-n', DN_NS, 'link', 'set', device, 'up');
  ip('-n', DN_NS, 'route', 'add', `${UE}/32`, 'dev', device);
};

cleanup();
ip('netns', 'add', UE_NS);
ip('netns', 'add', DN_NS);
const stats = { flowReports: 0 };
const upf = createUpf({
  settings: {
    n3Address: N3,
    n3Port: 2152,
    tunName: N6,
    maxSessions: 16,
    maxFlows: 65536,
    errorIndicationsPerSecond: 100,
  },
  records: {
    recordFlowReports: (reports) => ((stats.flowReports += reports.length), true),
    recordUsage: () => true,
    whenWritable: () => Promise.resolve(),
  },
  clock: systemClock,
  timers: systemTimers,
});
const gnb = createGnbUserPlane({ n3Address: GNB });
const xdpWhy = existsSync(upfBpfObject()) ? undefined : 'built without the XDP program';
let xdp: { upf: ReturnType<typeof createUpf>; gnb: ReturnType<typeof createGnbUserPlane> } | undefined;
/** The core XDP path's links, addresses, neighbours and forwarding; its UPF and gNB user plane. */
async function setUpXdp(): Promise<NonNullable<typeof xdp>> {
  ip('netns', 'add', GNB_NS);
  ip('-n', GNB_NS, 'link', 'set', 'lo', 'up');
  for (const [core, peer, ns, coreAddress, peerAddress] of [
    [X.gnbCore, X.gnbPeer, GNB_NS, X.n3, X.gnb],
    [X.dnCore, X.dnPeer, DN_NS, X.dnLink, X.dn],
  ] as const) {
    // N3 carries the UE's 1,500-octet packets with 44 octets of outer IPv4, UDP and GTP-U (the
    // PDU Session Container): a larger MTU there, as an operator's N3 would have.
    const mtu = ns === GNB_NS ? '1600' : '1500';
    ip('link', 'add', core, 'mtu', mtu, 'type', 'veth', 'peer', 'name', peer, 'mtu', mtu, 'netns', ns);
    ip('addr', 'add', `${coreAddress}/24`, 'dev', core);
    ip('link', 'set', core, 'up');
    ip('-n', ns, 'addr', 'add', `${peerAddress}/24`, 'dev', peer);
    ip('-n', ns, 'link', 'set', peer, 'up');
    execFileSync('sysctl', ['-qw', `net.ipv4.conf.${core}.forwarding=1`]);
    // The program's FIB lookups need the neighbour before the first packet.
    const mac = (
      JSON.parse(execFileSync('ip', ['-n', ns, '-j', 'link', 'show', peer]).toString()) as {
        address: string;
      }[]
    )[0]?.address;
    ip('neigh', 'replace', peerAddress, 'lladdr', mac ?? '', 'dev', core);
  }
  ip('-n', DN_NS, 'route', 'add', `${X.ue}/32`, 'via', X.dnLink);
  await txChecksumOff(DN_NS, X.dnPeer);
  // The gNB's user plane sends a TCP segment's pieces with UDP GSO, which a veth passes unsegmented and
  // the program hands to the stack: segmented before the link, as a wire carries them. The data network's
  // host receives with GRO, as a NIC's driver does (a veth only with rx-gro on).
  await setNetFeatures(GNB_NS, X.gnbPeer, { 'tx-udp-segmentation': false });
  await setNetFeatures(DN_NS, X.dnPeer, { 'rx-gro': true });
  const upfX = createUpf({
    settings: {
      n3Address: X.n3,
      n3Port: 2152,
      tunName: X.tun,
      maxSessions: 16,
      maxFlows: 65536,
      errorIndicationsPerSecond: 100,
      datapath: 'xdp',
      n6Interface: X.dnCore,
    },
    records: {
      recordFlowReports: (reports) => ((stats.flowReports += reports.length), true),
      recordUsage: () => true,
      whenWritable: () => Promise.resolve(),
    },
    clock: systemClock,
    timers: systemTimers,
  });
  upfX.start();
  // What the program hands to the stack reaches the forwarder through its TUN, here.
  ip('link', 'set', X.tun, 'up');
  ip('route', 'add', `${X.ue}/32`, 'dev', X.tun);
  execFileSync('sysctl', ['-qw', `net.ipv4.conf.${X.tun}.forwarding=1`]);
  const s = upfX.establishSession({
    imsi: '001010000000002',
    ueIpv4: X.ue,
    uplinkTeid: 0x1002,
    ambr: { uplinkBps: 0, downlinkBps: 0 },
  });
  if (!s.ok) throw new Error(s.error);
  upfX.updateDownlink(s.value.id, { gnbAddress: X.gnb, remoteTeid: 0x2002 });
  return { upf: upfX, gnb: createGnbUserPlane({ n3Address: X.gnb, n3Namespace: GNB_NS }) };
}
let ueTun = '';
let tunDropped = 0;
try {
  for (const ns of [UE_NS, DN_NS]) ip('-n', ns, 'link', 'set', 'lo', 'up');
  upf.start();
  ip('link', 'set', N6, 'netns', DN_NS);
  const session = upf.establishSession({
    imsi: '001010000000001',
    ueIpv4: UE,
    uplinkTeid: 0x1001,
    ambr: { uplinkBps: 0, downlinkBps: 0 },
  });
  if (!session.ok) throw new Error(session.error);
  upf.updateDownlink(session.value.id, { gnbAddress: GNB, remoteTeid: 0x2001 });

  const veth: Path = {
    name: 'veth',
    dn: DN,
    async setUp() {
      ip('link', 'add', 'u6bv0', 'netns', UE_NS, 'type', 'veth', 'peer', 'name', 'u6bv1', 'netns', DN_NS);
      ueSide('u6bv0');
      dnSide('u6bv1');
    },
    async tearDown() {
      ip('-n', UE_NS, 'link', 'del', 'u6bv0');
      return undefined;
    },
  };

  let plainPair: ReturnType<typeof startHelper>[] = [];
  const plain: Path = {
    name: 'plain',
    dn: DN,
    async setUp() {
      const [ueTunName, dnTunName] = [`u6pu${id}`, `u6pd${id}`];
      plainPair = [
        startHelper(helper, ['forward', ueTunName, PLAIN_UE, PLAIN_DN]),
        startHelper(helper, ['forward', dnTunName, PLAIN_DN, PLAIN_UE]),
      ];
      for (const h of plainPair) await h.ready();
      ip('link', 'set', ueTunName, 'netns', UE_NS);
      ip('link', 'set', dnTunName, 'netns', DN_NS);
      ueSide(ueTunName);
      dnSide(dnTunName);
    },
    async tearDown() {
      const cpu = { user: 0, system: 0 };
      for (const h of plainPair) cpu.user += (await h.stop()).cpuUs;
      plainPair = [];
      return cpu;
    },
  };

  let tunnel: { release(): void } | undefined;
  let coreCpu = process.cpuUsage();
  const core: Path = {
    name: 'core',
    dn: DN,
    async setUp() {
      const up = await gnb.bringUp(
        { pduSessionId: 1, ueIpv4: UE, qfi: 1, upfAddress: N3, uplinkTeid: 0x1001, downlinkTeid: 0x2001 },
        { namespace: UE_NS },
      );
      if (!up.ok) throw new Error(up.detail);
      tunnel = up.value;
      ueTun = up.value.tunName;
      dnSide(N6);
      coreCpu = process.cpuUsage();
    },
    async tearDown() {
      const cpu = process.cpuUsage(coreCpu);
      tunDropped += Number(
        execFileSync('ip', ['netns', 'exec', UE_NS, 'cat', `/sys/class/net/${ueTun}/statistics/tx_dropped`])
          .toString()
          .trim(),
      );
      tunnel?.release();
      ip('-n', DN_NS, 'addr', 'flush', 'dev', N6);
      ip('-n', DN_NS, 'link', 'set', N6, 'down');
      return cpu;
    },
  };

  let xdpTunnel: { release(): void } | undefined;
  let xdpCpu = process.cpuUsage();
  const coreXdp: Path = {
    name: 'core XDP',
    dn: X.dn,
    async setUp() {
      if (xdp === undefined) throw new Error('no XDP path');
      const up = await xdp.gnb.bringUp(
        { pduSessionId: 2, ueIpv4: X.ue, qfi: 1, upfAddress: X.n3, uplinkTeid: 0x1002, downlinkTeid: 0x2002 },
        { namespace: UE_NS },
      );
      if (!up.ok) throw new Error(up.detail);
      xdpTunnel = up.value;
      xdpCpu = process.cpuUsage();
    },
    async tearDown() {
      const cpu = process.cpuUsage(xdpCpu);
      xdpTunnel?.release();
      return cpu;
    },
  };
  if (xdpWhy === undefined) {
    xdp = await setUpXdp();
    print(`core XDP: ${xdp.upf.datapath.kind} datapath: ${xdp.upf.datapath.reason}`);
    if (xdp.upf.datapath.kind !== 'xdp') throw new Error('the XDP datapath did not start');
  } else print(`core XDP: skipped (${xdpWhy})`);
  const paths = xdp === undefined ? [veth, plain, core] : [veth, plain, core, coreXdp];

  print(
    `session traffic, ${seconds} s per case, ${rounds} round(s) (${new Date().toISOString()}, load ${execFileSync('cat', ['/proc/loadavg']).toString().split(' ').slice(0, 3).join(' ')})`,
  );
  for (let round = 1; round <= rounds; round++) {
    const results = new Map<string, Measurement>();
    for (const kind of ['tcp', 'udp'] as const)
      for (const path of paths) {
        const m = await measure(kind, path);
        results.set(`${path.name} ${kind}`, m);
        print(row(path.name, m));
      }
    const get = (key: string): Measurement => {
      const m = results.get(key);
      if (m === undefined) throw new Error(key);
      return m;
    };
    print(
      `round ${round}: core/veth TCP ${percent(get('core tcp'), get('veth tcp'))}, UDP 64 B ${percent(get('core udp'), get('veth udp'))}; ` +
        `core/plain TCP ${percent(get('core tcp'), get('plain tcp'))}, UDP 64 B ${percent(get('core udp'), get('plain udp'))}; ` +
        `plain/veth TCP ${percent(get('plain tcp'), get('veth tcp'))}, UDP 64 B ${percent(get('plain udp'), get('veth udp'))}` +
        (xdp === undefined
          ? ' '
          : `; core XDP/veth TCP ${percent(get('core XDP tcp'), get('veth tcp'))}, UDP 64 B ${percent(get('core XDP udp'), get('veth udp'))}; core XDP/plain TCP ${percent(get('core XDP tcp'), get('plain tcp'))}, UDP 64 B ${percent(get('core XDP udp'), get('plain udp'))} `) +
        `(load ${execFileSync('cat', ['/proc/loadavg']).toString().split(' ')[0]})`,
    );
  }
  // Where datagrams the receiver did not get were lost: the UE's TUN queue (the gNB's thread did not
  // read in time), the receiver's socket buffer (RcvbufErrors of the data network's UDP, all cases
  // together), or the forwarders.
  const snmp = execFileSync('ip', ['netns', 'exec', DN_NS, 'cat', '/proc/net/snmp']).toString().split('\n');
  const [udpNames, udpValues] = snmp
    .filter((line) => line.startsWith('Udp:'))
    .map((line) => line.split(/\s+/));
  const rcvbufErrors = udpValues?.[udpNames?.indexOf('RcvbufErrors') ?? -1] ?? '?';
  const c = upf.counters();
  print(
    `core: UE TUN queue drops ${tunDropped}; receiver socket buffer drops (all paths) ${rcvbufErrors}; UPF drops: N6 write ${c.dropN6Write}, N3 send ${c.dropN3Send}; gNB ${JSON.stringify(
      Object.fromEntries(Object.entries(gnb.counters()).filter(([k, v]) => k.startsWith('drop') && v > 0)),
    )}`,
  );
  if (xdp !== undefined) {
    const x = xdp.upf.counters();
    print(
      `core XDP: the program forwarded ${x.uplinkPackets} uplink, ${x.downlinkPackets} downlink packets; handed to the stack ${x.xdpToStack} (${x.xdpToStackLimited} over the budget)`,
    );
  }
} finally {
  gnb.close();
  await upf.stop();
  xdp?.gnb.close();
  await xdp?.upf.stop();
  for (const dev of [X.gnbCore, X.dnCore])
    try {
      execFileSync('ip', ['link', 'del', dev], { stdio: 'ignore' });
    } catch {
      // absent
    }
  cleanup();
}
