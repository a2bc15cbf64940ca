/**
 * The UPF at scale (docs/upf.md "Performance", docs/performance.md "User plane"; issue 17): needs root
 * (or CAP_NET_ADMIN and CAP_SYS_ADMIN) for namespaces and TUN devices, and skips with one line without.
 *
 * 1. Throughput: small (64-octet) and bulk (1,400-octet) IP packets, uplink and downlink, through the
 *    forwarder, beside the ceiling measured in the same run: a plain UDP<->TUN forwarder (C, the same
 *    recvmmsg/write and read/sendmmsg calls, no GTP-U, lookup, policing or accounting). Packets come
 *    from a C blaster (sendmmsg) so that the sender is not the limit: uplink G-PDUs from the "gNB"
 *    address, downlink UDP from inside the data-network namespace to the UE address; downlink
 *    datagrams end in a C sink on the gNB address. CPU per packet: this process's CPU (its JavaScript
 *    idles while the forwarder's thread works) and the plain forwarder's own, over packets forwarded.
 *    The C helpers (bench/upf-plain.c, shared with bench/session-traffic.ts) are compiled with cc.
 * 2. 10,000 concurrent sessions through createUpf: CPU per establishment (rules + downlink tunnel)
 *    beside the bookkeeping alone, an ICMP echo out and back on every session, release of all (nothing
 *    left), the same TEIDs and addresses established again.
 * 3. 100,000 concurrent flows: the cost of ending, taking and decoding them as flow reports.
 * 4. The XDP datapath against a plain XDP forwarder between the same veths, 1 session and 100,000
 *    flows, CPU per packet of each, and establishment and release beside the TUN's (bench/upf-xdp.ts).
 *
 *   npx tsx bench/upf.ts [--seconds N]   (N per throughput case, default 3)
 */
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { systemClock, systemTimers } from '../src/clock.ts';
import { decodeFlowReports } from '../src/network/upf/flow-records.ts';
import { encodeUplinkGPdu } from '../test/helpers/gtpu-codec.ts';
import { createTeidAllocator } from '../src/network/working-state/teid-allocator.ts';
import { loadUpfAddon, type Forwarder } from '../src/network/upf/upf-addon.ts';
import { createUpf } from '../src/network/upf/upf.ts';
import type { FlowReportInput } from '../src/records/record-inputs.ts';
import { icmpEcho, udpPacket } from '../test/network/upf/ip-packets.ts';
import { buildPlainHelper, startHelper } from './upf-plain.ts';
import { xdpThroughput } from './upf-xdp.ts';

const print = (line: string): void => void process.stdout.write(`${line}\n`);
const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '3' } } });
const seconds = Number(args.seconds);

/** Why this machine cannot run it, or undefined. */
function unavailable(): string | undefined {
  const capabilities = /CapEff:\s*([0-9a-f]+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  const effective = BigInt(`0x${capabilities ?? '0'}`);
  // CAP_NET_ADMIN (12) for TUN devices, CAP_SYS_ADMIN (21) for network namespaces.
  if ((effective & (1n << 12n)) === 0n || (effective & (1n << 21n)) === 0n)
    return 'needs root or CAP_NET_ADMIN and CAP_SYS_ADMIN (namespaces, TUN devices)';
  const load = loadUpfAddon();
  if (!load.ok) return load.error.message;
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
    execFileSync('cc', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'needs ip (iproute2) and cc';
  }
  return undefined;
}
const reason = unavailable();
if (reason !== undefined) {
  print(`bench/upf.ts skipped: ${reason}`);
  process.exit(0);
}
const load = loadUpfAddon();
if (!load.ok) throw load.error;
const addon = load.addon;

const tag = process.pid % 100000;
const N3 = '127.77.0.1';
const GNB = '127.77.0.2';
const PLAIN = '127.77.1.1';
const UE = '10.45.0.2';
const DN = '10.99.0.1';
const TEID = 0x1234;
const REMOTE_TEID = 0x9999;
const ip = (...a: string[]) => execFileSync('ip', a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const us = (u: NodeJS.CpuUsage): number => u.user + u.system;
const number = (n: number, digits = 0) =>
  n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const helper = buildPlainHelper();

/** A data-network namespace behind a TUN device: DN's address, the UE pool routed back into the TUN. */
function dataNetwork(namespace: string, tun: string): void {
  ip('netns', 'add', namespace);
  ip('link', 'set', tun, 'netns', namespace);
  ip('-n', namespace, 'addr', 'add', `${DN}/32`, 'dev', tun);
  ip('-n', namespace, 'link', 'set', tun, 'up');
  ip('-n', namespace, 'route', 'add', '10.45.0.0/16', 'dev', tun);
}

const start = (mode: string[], namespace?: string) => startHelper(helper, mode, namespace);

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
/** An IPv4/UDP packet of `size` octets from the UE to DN port 9 (discard). */
const uplinkPacket = (size: number) => udpPacket(UE, DN, 40000, 9, Buffer.alloc(size - 28));

interface Rate {
  packets: number;
  seconds: number;
  cpuUs: number;
}
const row = (name: string, size: number, core: Rate, ceiling: Rate): string => {
  const rate = core.packets / core.seconds;
  const top = ceiling.packets / ceiling.seconds;
  return `| ${name} | ${size} | ${number(rate)} | ${number((rate * size * 8) / 1e6)} | ${number(core.cpuUs / Math.max(1, core.packets), 2)} µs | ${number(top)} | ${number(ceiling.cpuUs / Math.max(1, ceiling.packets), 2)} µs | ${number((100 * rate) / Math.max(1, top))}% |`;
};

/** Runs a blaster for `seconds`; returns the forwarder's packets (by `count`) and this process's CPU. */
async function throughCore(
  blast: string[],
  namespace: string | undefined,
  count: () => number,
): Promise<Rate> {
  const before = count();
  const cpu = process.cpuUsage();
  const t = process.hrtime.bigint();
  const sender = start(['blast', ...blast], namespace);
  await sleep(seconds * 1000);
  await sender.stop();
  const elapsed = Number(process.hrtime.bigint() - t) / 1e9;
  await sleep(100);
  return { packets: count() - before, seconds: elapsed, cpuUs: us(process.cpuUsage(cpu)) };
}

/** The same through the plain forwarder: its packets and its own CPU. */
async function throughPlain(
  blast: string[],
  namespace: string,
  tun: string,
  dataNamespace: boolean,
): Promise<Rate> {
  const plain = start(['forward', tun, PLAIN, GNB]);
  await plain.ready();
  dataNetwork(namespace, tun);
  try {
    const t = process.hrtime.bigint();
    const sender = start(['blast', ...blast], dataNamespace ? namespace : undefined);
    await sleep(seconds * 1000);
    await sender.stop();
    const elapsed = Number(process.hrtime.bigint() - t) / 1e9;
    await sleep(100);
    const { packets, cpuUs } = await plain.stop();
    return { packets, seconds: elapsed, cpuUs };
  } finally {
    ip('netns', 'del', namespace);
  }
}

/**
 * Flow accounting at 100,000 concurrent flows (issue 17): 100,000 datagrams of distinct flows (UDP
 * source and destination ports), paced so that none is lost at the socket's receive buffer, are counted
 * by the forwarder. Then, on the JavaScript side, as createUpf does: a tick while they are all active
 * (the per-second cost of keeping them), a tick that ends them all, and taking and decoding them as flow
 * reports in chunks of 2,000. Beside it, the bare baseline: building the same number of report objects
 * from values already in JavaScript (the least any design hands the records pipeline).
 */
async function flowAccounting(forwarder: Forwarder): Promise<void> {
  const flows = 100_000;
  // The throughput cases' flows end first, so that only these are counted.
  forwarder.tickFlows(0, 0, 0, 0);
  while (forwarder.takeFlows(10_000).length > 0) continue;
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, GNB, resolve));
  const base = Buffer.from(encodeUplinkGPdu(TEID, udpPacket(UE, DN, 1024, 9, Buffer.alloc(36)), 1));
  const before = forwarder.counters();
  const received = () => forwarder.counters().n3Received - before.n3Received;
  for (let i = 0; i < flows;) {
    for (const end = Math.min(flows, i + 2000); i < end; i++) {
      const d = Buffer.from(base);
      d.writeUInt16BE(1024 + (i % 60000), 36);
      d.writeUInt16BE(9 + Math.floor(i / 60000), 38);
      d.writeUInt16BE(0, 42); // no UDP checksum (IPv4 allows it)
      socket.send(d, 2152, N3);
    }
    for (let wait = 0; wait < 200 && received() < i; wait++) await new Promise((r) => setTimeout(r, 5));
  }
  socket.close();
  const counted = forwarder.counters();

  let cpu = process.cpuUsage();
  forwarder.tickFlows(1_000, 0, 30_000, 1_800_000);
  const keep = process.cpuUsage(cpu);
  cpu = process.cpuUsage();
  forwarder.tickFlows(60_000, 1_000, 30_000, 1_800_000);
  const reports: FlowReportInput[][] = [];
  for (let bytes = forwarder.takeFlows(2000); bytes.length > 0; bytes = forwarder.takeFlows(2000)) {
    reports.push(decodeFlowReports(bytes, () => '001010000000001'));
  }
  const end = process.cpuUsage(cpu);
  const total = reports.reduce((n, chunk) => n + chunk.length, 0);

  const values = reports.flat().map((r) => [r.sourcePort, r.destinationPort, r.packets, r.bytes] as const);
  cpu = process.cpuUsage();
  const bare: FlowReportInput[] = [];
  for (const [sourcePort, destinationPort, packets, bytes] of values) {
    bare.push({
      subscriberId: '001010000000001',
      sourceIp: UE,
      destinationIp: DN,
      sourcePort,
      destinationPort,
      protocol: 17,
      packets,
      bytes,
      startTime: 0,
      endTime: 60_000,
      direction: 'uplink',
      action: 'allow',
    });
  }
  const baseline = process.cpuUsage(cpu);
  const us = (u: NodeJS.CpuUsage): number => u.user + u.system;
  print('');
  print(
    '| flows sent | received | flows counted | table full | reports | tick, all active (CPU) | end + take + decode (CPU) | per flow | bare: report objects, per flow |',
  );
  print('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  print(
    `| ${flows.toLocaleString('en')} | ${(counted.n3Received - before.n3Received).toLocaleString('en')} | ${counted.openFlows.toLocaleString('en')} | ${counted.flowTableFull - before.flowTableFull} | ${total.toLocaleString('en')} | ${(us(keep) / 1000).toFixed(1)} ms | ${(us(end) / 1000).toFixed(0)} ms | ${(us(end) / Math.max(1, total)).toFixed(2)} µs | ${(us(baseline) / Math.max(1, bare.length)).toFixed(2)} µs |`,
  );
}

async function throughput(forwarder: Forwarder): Promise<void> {
  print(
    '| case | IP packet bytes | packets/s | Mbit/s | CPU per packet | ceiling packets/s | ceiling CPU per packet | of ceiling |',
  );
  print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const size of [64, 1400]) {
    const packet = uplinkPacket(size);
    const up = await throughCore(
      [N3, '2152', hex(encodeUplinkGPdu(TEID, packet)), GNB],
      undefined,
      () => forwarder.counters().uplinkPackets,
    );
    const upCeiling = await throughPlain(
      [PLAIN, '2152', hex(packet), GNB],
      `u6bp${tag}`,
      `u6bp${tag}`,
      false,
    );
    print(row(`uplink (G-PDU -> TUN), ${size < 100 ? 'small' : 'bulk'}`, size, up, upCeiling));
    const sink = start(['sink', GNB, '2152']);
    const down = await throughCore(
      [UE, '9', hex(Buffer.alloc(size - 28))],
      `u6bench${tag}`,
      () => forwarder.counters().downlinkPackets,
    );
    const downCeiling = await throughPlain(
      [UE, '9', hex(Buffer.alloc(size - 28))],
      `u6bp${tag}`,
      `u6bp${tag}`,
      true,
    );
    await sink.stop();
    print(row(`downlink (TUN -> G-PDU), ${size < 100 ? 'small' : 'bulk'}`, size, down, downCeiling));
  }
}

/** 10,000 concurrent sessions through createUpf (issue 17 item 5). */
async function sessionsAtScale(count: number): Promise<void> {
  const tun = `u6bs${tag}`;
  const namespace = `u6bs${tag}`;
  const n3 = '127.77.2.1';
  const gnbAddress = '127.77.2.2';
  let reports = 0;
  const upf = createUpf({
    settings: {
      n3Address: n3,
      n3Port: 2152,
      tunName: tun,
      maxSessions: 16_384,
      maxFlows: 131_072,
      errorIndicationsPerSecond: 10,
    },
    records: {
      recordFlowReports: (r) => ((reports += r.length), true),
      recordUsage: () => true,
      whenWritable: () => Promise.resolve(),
    },
    clock: systemClock,
    timers: systemTimers,
  });
  upf.start();
  dataNetwork(namespace, tun);
  const gnb = dgram.createSocket('udp4');
  let echoes = 0;
  gnb.on('message', () => echoes++);
  await new Promise<void>((resolve) => gnb.bind(2152, gnbAddress, resolve));
  gnb.setRecvBufferSize(8 << 20);
  try {
    const address = (i: number) => `10.45.${1 + (i >> 8)}.${i & 0xff}`;
    const imsi = (i: number) => `00101${String(i).padStart(10, '0')}`;
    const ambr = { uplinkBps: 100e6, downlinkBps: 200e6 };

    const teids = createTeidAllocator();
    const establish = (uplinkTeids: number[]) =>
      uplinkTeids.map((uplinkTeid, i) => {
        const s = upf.establishSession({ imsi: imsi(i), ueIpv4: address(i), uplinkTeid, ambr });
        if (!s.ok) throw new Error(`session ${i}: ${s.error}`);
        upf.updateDownlink(s.value.id, { gnbAddress, remoteTeid: 0x10000 + i });
        return s.value.id;
      });
    const uplinkTeids = Array.from({ length: count }, () => teids.allocate() ?? 0);
    let cpu = process.cpuUsage();
    const ids = establish(uplinkTeids);
    const establishCpu = us(process.cpuUsage(cpu));

    // An ICMP echo from every UE, paced so that no socket buffer overflows; the replies come back.
    const before = upf.counters();
    for (let i = 0; i < count;) {
      // Blocks of 200: the data network's replies must fit the TUN's queue (500) until read.
      for (const end = Math.min(count, i + 200); i < end; i++) {
        gnb.send(encodeUplinkGPdu(uplinkTeids[i] ?? 0, icmpEcho(address(i), DN, i & 0xffff, 1)), 2152, n3);
      }
      for (let w = 0; w < 200 && upf.counters().downlinkPackets - before.downlinkPackets < i; w++)
        await sleep(5);
    }
    for (let w = 0; w < 200 && echoes < count; w++) await sleep(5);
    const forwarded = upf.counters();

    cpu = process.cpuUsage();
    for (const id of ids) upf.release(id);
    const releaseCpu = us(process.cpuUsage(cpu));
    const left = upf.counters();
    for (const teid of uplinkTeids) teids.release(teid);
    const again = establish(uplinkTeids).length;

    // Bare: the bookkeeping any SMF does anyway (a TEID, the session object, a map entry).
    const bareTeids = createTeidAllocator();
    const bare = new Map<number, object>();
    cpu = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      const uplinkTeid = bareTeids.allocate() ?? 0;
      bare.set(i, {
        id: i,
        imsi: imsi(i),
        ueIpv4: address(i),
        uplinkTeid,
        ambr: { ...ambr },
        userPlane: {
          state: 'active',
          tunnel: { gnbAddress, remoteTeid: 0x10000 + i, qfi: 1, gnbPort: 2152 },
        },
      });
    }
    const bareCpu = us(process.cpuUsage(cpu));

    print('');
    print(
      '| sessions | establish CPU per session | bare bookkeeping per session | echoes out / back | release CPU per session | flow reports | left after release (sessions, flows) | established again on the same TEIDs |',
    );
    print('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    print(
      `| ${number(count)} | ${number(establishCpu / count, 1)} µs | ${number(bareCpu / count, 1)} µs | ${number(forwarded.uplinkPackets - before.uplinkPackets)} / ${number(echoes)} | ${number(releaseCpu / count, 1)} µs | ${number(reports)} | ${left.sessions}, ${left.openFlows + left.endedFlows} | ${number(again)} |`,
    );
  } finally {
    gnb.close();
    await upf.stop();
    ip('netns', 'del', namespace);
  }
}

function openForwarder() {
  return new addon.Forwarder({
    n3Address: N3,
    tunName: `u6b${tag}`,
    maxSessions: 16,
    maxFlows: 131_072,
  });
}

const forwarder = openForwarder();
try {
  dataNetwork(`u6bench${tag}`, `u6b${tag}`);
  forwarder.addSession(1, TEID, UE, null, 0, 0);
  forwarder.setDownlink(1, GNB, 2152, REMOTE_TEID, 1);
  await throughput(forwarder);
  forwarder.drainUsage();
  await flowAccounting(forwarder);
  await sessionsAtScale(10_000);
  await xdpThroughput(addon, seconds, print);
} finally {
  forwarder.close();
  ip('netns', 'del', `u6bench${tag}`);
}
