/**
 * The UPF forwarder's uplink (docs/upf.md "Performance"): G-PDUs from a sender process to the forwarder,
 * decapsulated and written to the N6 TUN, whose data-network namespace's kernel takes them. Beside it,
 * in the same run, the ceiling of the same machinery: datagrams the forwarder receives and discards at
 * the GTP-U header (an unexpected message type), i.e. the kernel's UDP receive plus recvmmsg. Reports
 * packets per second and the forwarder's CPU per packet (this process's CPU: its JavaScript is idle
 * while the forwarder's thread works; the sender runs in a child process).
 *
 *   npx tsx bench/upf.ts [seconds per case, default 3]          (root: namespaces and TUN)
 */
import { execFileSync, spawn } from 'node:child_process';
import { encodeGtpu, encodeUplinkGPdu } from '../src/network/upf/gtpu-codec.ts';
import dgram from 'node:dgram';
import { decodeFlowReports } from '../src/network/upf/flow-records.ts';
import type { FlowReportInput } from '../src/records/record-inputs.ts';
import { loadUpfAddon } from '../src/network/upf/upf-addon.ts';
import { udpPacket } from '../test/network/upf/ip-packets.ts';

const print = (line: string): void => void process.stdout.write(`${line}\n`);
const seconds = Number(process.argv[2] ?? 3);
const load = loadUpfAddon();
if (!load.ok) throw load.error;
if (process.getuid?.() !== 0) {
  print('bench/upf.ts needs root (network namespace, TUN); skipped');
  process.exit(0);
}

const N3 = '127.77.0.1';
const TUN = `pmnb${process.pid % 100000}`;
const NAMESPACE = `pmnbench${process.pid % 100000}`;
const UE = '10.45.0.2';
const DN = '10.99.0.1';
const TEID = 0x1234;

// The sender: plain JavaScript in a child process, as many datagrams as it can for `seconds`.
const SENDER = `
const dgram = require('node:dgram');
const [address, hex, ms] = process.argv.slice(1);
const datagram = Buffer.from(hex, 'hex');
const socket = dgram.createSocket('udp4');
socket.bind(0, '127.77.0.2', () => {
  socket.setSendBufferSize(4 << 20);
  const end = Date.now() + Number(ms);
  let inFlight = 0;
  const pump = () => {
    while (inFlight < 256) { inFlight++; socket.send(datagram, 2152, address, done); }
  };
  const done = () => { inFlight--; if (Date.now() < end) { if (inFlight < 128) pump(); } else if (inFlight === 0) process.exit(0); };
  pump();
});`;

function sendFor(datagram: Uint8Array, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-e', SENDER, N3, Buffer.from(datagram).toString('hex'), String(ms)],
      {
        stdio: 'inherit',
      },
    );
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sender exited with ${code}`))));
  });
}

/**
 * Flow accounting at 100,000 concurrent flows (issue 17): 100,000 datagrams of distinct flows (UDP
 * source and destination ports), paced so that none is lost at the socket's receive buffer, are counted
 * by the forwarder. Then, on the JavaScript side, as createUpf does: a tick while they are all active
 * (the per-second cost of keeping them), a tick that ends them all, and taking and decoding them as flow
 * reports in chunks of 2,000. Beside it, the bare baseline: building the same number of report objects
 * from values already in JavaScript (the least any design hands the records pipeline).
 */
async function flowAccounting(): Promise<void> {
  const flows = 100_000;
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.77.0.2', resolve));
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

const forwarder = new load.addon.Forwarder({
  n3Address: N3,
  tunName: TUN,
  maxSessions: 16,
  maxFlows: 131_072,
});
const ip = (...args: string[]) => execFileSync('ip', args);
ip('netns', 'add', NAMESPACE);
try {
  ip('link', 'set', TUN, 'netns', NAMESPACE);
  ip('-n', NAMESPACE, 'addr', 'add', `${DN}/32`, 'dev', TUN);
  ip('-n', NAMESPACE, 'link', 'set', TUN, 'up');
  ip('-n', NAMESPACE, 'route', 'add', '10.45.0.0/16', 'dev', TUN);
  forwarder.addSession(1, TEID, UE, null, 0, 0);

  const cases = [
    {
      name: 'uplink, 64-byte IP packets',
      datagram: encodeUplinkGPdu(TEID, udpPacket(UE, DN, 40000, 9, Buffer.alloc(36))),
    },
    {
      name: 'ceiling: same size, discarded at the header',
      datagram: encodeGtpu({ type: 200, teid: 0, payload: Buffer.alloc(80) }),
    },
    {
      name: 'uplink, 1400-byte IP packets',
      datagram: encodeUplinkGPdu(TEID, udpPacket(UE, DN, 40000, 9, Buffer.alloc(1372))),
    },
    {
      name: 'ceiling: same size, discarded at the header',
      datagram: encodeGtpu({ type: 200, teid: 0, payload: Buffer.alloc(1416) }),
    },
  ];
  print('| case | datagram bytes | packets/s | Mbit/s (inner) | forwarder CPU µs/packet | delivered |');
  print('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const c of cases) {
    const before = forwarder.counters();
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    await sendFor(c.datagram, seconds * 1000);
    await new Promise((r) => setTimeout(r, 100));
    const used = process.cpuUsage(cpu);
    const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    const after = forwarder.counters();
    const received = after.n3Received - before.n3Received;
    const delivered = after.uplinkPackets - before.uplinkPackets;
    const inner = after.uplinkBytes - before.uplinkBytes;
    const perPacket = (used.user + used.system) / Math.max(1, received);
    print(
      `| ${c.name} | ${c.datagram.length} | ${Math.round(received / elapsed).toLocaleString('en')} | ${((inner * 8) / elapsed / 1e6).toFixed(0)} | ${perPacket.toFixed(2)} | ${delivered > 0 ? `${((100 * delivered) / received).toFixed(1)}%` : '-'} |`,
    );
  }

  await flowAccounting();
} finally {
  forwarder.close();
  ip('netns', 'del', NAMESPACE);
}
