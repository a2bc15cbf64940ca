/**
 * The UPF's XDP datapath with real packets (docs/upf.md "The XDP datapath"). Three namespaces: a gNB
 * namespace and a data network namespace, each joined by a veth pair to this process's namespace (the
 * core), where the UPF runs with its N3 address on the gNB pair and `n6Interface` the data network's.
 * A peer process in each namespace sends and receives UDP. The N6 TUN stays in the core with the UE
 * pool routed to it: what the program hands to the stack reaches the userspace forwarder through it,
 * so the TUN's own packet counters tell whether a packet took the fast path. Needs root and a build
 * with the XDP program (clang, libbpf-dev); skipped otherwise, with the reason.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, beforeEach, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  decodeErrorIndication,
  decodeGtpu,
  encodeEchoRequest,
  encodeGtpu,
  encodeUplinkGPdu,
  GtpuMessageType,
  readPduSessionContainer,
} from '../helpers/gtpu-codec.ts';
import { decodeFlowReports } from '../../src/network/upf/flow-records.ts';
import { loadUpfAddon, upfBpfObject, type Forwarder } from '../../src/network/upf/upf-addon.ts';
import { createUpf, type Upf, type UpfCounters } from '../../src/network/upf/upf.ts';
import type { FlowReportInput, UsageInput } from '../../src/records/record-inputs.ts';
import { createVethNamespace, namespacesUnavailable, type VethNamespace } from '../helpers/netns.ts';
import { manualClock } from '../helpers/test-app.ts';
import { until as waitUntil, WAIT_MS } from '../helpers/until.ts';
import { readIpv4, udpPacket } from '../network/upf/ip-packets.ts';

const run = promisify(execFile);
const load = loadUpfAddon();
const skip =
  namespacesUnavailable() ??
  (load.ok ? undefined : load.error.message) ??
  (existsSync(upfBpfObject()) ? undefined : 'built without the XDP program (clang or libbpf-dev missing)');

const n = process.pid % 250;
const TUN = `pmnx${process.pid % 100000}`;
/** The UE pool, routed to the TUN in the core and to the core in the data network. */
const UE_POOL = `10.231.${n}.0/24`;
const ue = (host: number) => `10.231.${n}.${host}`;
const SERVER_PORT = 7000;

interface Datagram {
  from: string;
  port: number;
  bytes: Buffer;
}

/** A UDP socket in a namespace, in a child process: send() and the datagrams it received. */
async function udpPeer(namespace: VethNamespace, address: string, port: number) {
  const script = `
    const s = require('node:dgram').createSocket('udp4');
    s.on('message', (m, r) => process.stdout.write(JSON.stringify({ from: r.address, port: r.port, hex: m.toString('hex') }) + '\\n'));
    s.bind(Number(process.argv[2]), process.argv[1], () => process.stdout.write('{"ready":true}\\n'));
    require('node:readline').createInterface({ input: process.stdin }).on('line', async (l) => {
      const j = JSON.parse(l);
      const bytes = Buffer.from(j.hex, 'hex');
      // count > 1: copies with the 16-bit field at varyAt set to 1, 2, ... (distinct flows), paced.
      for (let i = 1; i <= (j.count ?? 1); i++) {
        if (j.count) bytes.writeUInt16BE(i, j.varyAt);
        await new Promise((resolve) => s.send(bytes, j.port, j.to, resolve));
        if (i % 64 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      process.stdout.write('{"sent":true}\\n');
    });`;
  const child: ChildProcessWithoutNullStreams = spawn(
    'ip',
    namespace.exec(process.execPath, '-e', script, address, String(port)),
  );
  const received: Datagram[] = [];
  let sent = 0;
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`peer in ${namespace.name} exited (${code})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const j = JSON.parse(line) as { ready?: true; sent?: true; from: string; port: number; hex: string };
      if (j.ready) resolve();
      else if (j.sent) sent++;
      else received.push({ from: j.from, port: j.port, bytes: Buffer.from(j.hex, 'hex') });
    });
  });
  await ready;
  let asked = 0;
  return {
    received,
    /** Sends and resolves once the datagram left the peer's socket. */
    async send(bytes: Uint8Array, to: string, toPort: number): Promise<void> {
      asked++;
      child.stdin.write(`${JSON.stringify({ to, port: toPort, hex: Buffer.from(bytes).toString('hex') })}\n`);
      await until(() => sent >= asked, 'the peer sent');
    },
    /** `count` copies with the 16-bit field at `varyAt` set to 1..count. */
    async sendMany(
      bytes: Uint8Array,
      to: string,
      toPort: number,
      count: number,
      varyAt: number,
    ): Promise<void> {
      asked++;
      child.stdin.write(
        `${JSON.stringify({ to, port: toPort, hex: Buffer.from(bytes).toString('hex'), count, varyAt })}\n`,
      );
      await until(() => sent >= asked, 'the peer sent them all', 60_000);
    },
    close: () => child.kill(),
  };
}

/** Waits until `done` holds (the forwarders and XDP work off this thread): 20 s of wall time unless `ms`. */
async function until(done: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
  await waitUntil(what, done, () => '', { ms });
}

/** Packets the TUN carried each way: anything but 0 means the userspace forwarder saw traffic. */
function tunPackets(): { rx: number; tx: number } {
  const read = (what: string) =>
    Number(readFileSync(`/sys/class/net/${TUN}/statistics/${what}_packets`, 'utf8'));
  return { rx: read('rx'), tx: read('tx') };
}

describe('UPF XDP datapath with real packets', { skip }, () => {
  const clock = manualClock(Date.now());
  const reports: FlowReportInput[] = [];
  const usage: UsageInput[] = [];
  const paged: number[] = [];
  let gnbNs: VethNamespace;
  let dnNs: VethNamespace;
  let upf: Upf;
  let gnb: Awaited<ReturnType<typeof udpPeer>>;
  let server: Awaited<ReturnType<typeof udpPeer>>;
  let nextTeid = 0x1000;

  const session = (host: number, ambr = { uplinkBps: 0, downlinkBps: 0 }) => {
    const imsi = `00101${String(process.pid).padStart(6, '0')}${String(host).padStart(4, '0')}`;
    const uplinkTeid = nextTeid++;
    const made = upf.establishSession({ imsi, ueIpv4: ue(host), uplinkTeid, ambr });
    assert.ok(made.ok, JSON.stringify(made));
    return { ...made.value, remoteTeid: 0x8000 + host };
  };
  const activate = (s: ReturnType<typeof session>) =>
    assert.deepEqual(
      upf.updateDownlink(s.id, { gnbAddress: gnbNs.peerAddress, remoteTeid: s.remoteTeid, qfi: 5 }),
      {
        ok: true,
        value: undefined,
      },
    );
  const uplinkPacket = (s: ReturnType<typeof session>, payload: Buffer, source = s.ueIpv4 ?? '') =>
    udpPacket(source, dnNs.peerAddress, 40000, SERVER_PORT, payload);
  const counters = (): UpfCounters => upf.counters();

  before(async () => {
    gnbNs = await createVethNamespace('x', 229);
    dnNs = await createVethNamespace('y', 230);
    // The core routes between N3, N6 and the TUN (the program's FIB lookups too, which the datapath
    // checks at start): forwarding on those interfaces only.
    for (const dev of [gnbNs.hostInterface, dnNs.hostInterface])
      await run('sysctl', ['-qw', `net.ipv4.conf.${dev}.forwarding=1`]);
    upf = createUpf({
      settings: {
        n3Address: gnbNs.hostAddress,
        n3Port: 2152,
        tunName: TUN,
        maxSessions: 64,
        maxFlows: 131_072,
        errorIndicationsPerSecond: 100,
        datapath: 'xdp',
        n6Interface: dnNs.hostInterface,
      },
      records: {
        recordFlowReports: (r) => (reports.push(...r), true),
        recordUsage: (u) => (usage.push(u), true),
        whenWritable: () => Promise.resolve(),
      },
      clock,
      timers: clock,
      onDownlinkData: (s) => paged.push(s.id),
    });
    upf.start();
    await run('ip', ['link', 'set', TUN, 'up']);
    await run('ip', ['route', 'add', UE_POOL, 'dev', TUN]);
    await run('ip', ['-n', dnNs.name, 'route', 'add', UE_POOL, 'via', dnNs.hostAddress]);
    await run('sysctl', ['-qw', `net.ipv4.conf.${TUN}.forwarding=1`]);
    gnb = await udpPeer(gnbNs, gnbNs.peerAddress, 2152);
    server = await udpPeer(dnNs, dnNs.peerAddress, SERVER_PORT);
    // The neighbours the program's FIB lookups need (a first packet through userspace would resolve
    // them too; set here so that every packet of the tests takes the path it is meant to).
    for (const ns of [gnbNs, dnNs]) {
      const { stdout } = await run('ip', ['-n', ns.name, '-j', 'link', 'show', ns.peerInterface]);
      const [link] = JSON.parse(stdout) as { address: string }[];
      await run('ip', [
        'neigh',
        'replace',
        ns.peerAddress,
        'lladdr',
        link?.address ?? '',
        'dev',
        ns.hostInterface,
      ]);
    }
  });

  beforeEach(() => {
    gnb.received.length = 0;
    server.received.length = 0;
  });

  after(async () => {
    gnb?.close();
    server?.close();
    await upf?.stop();
    await run('ip', ['link', 'del', TUN]).catch(() => undefined);
    await gnbNs?.remove();
    await dnNs?.remove();
  });

  it('runs XDP and says where', () => {
    assert.equal(upf.datapath.kind, 'xdp', upf.datapath.reason);
    assert.match(upf.datapath.reason, new RegExp(`N3 ${gnbNs.hostInterface} .*N6 ${dnNs.hostInterface}`));
  });

  it('forwards a session both ways in the kernel, counted to the byte, flows and usage exact', async () => {
    const s = session(2);
    activate(s);
    const tunBefore = tunPackets();
    const before = counters();
    const sizes = [1, 100, 1000, 1400, 37];
    let uplinkBytes = 0;
    for (const [i, size] of sizes.entries()) {
      const packet = uplinkPacket(s, Buffer.alloc(size, i));
      uplinkBytes += packet.length;
      await gnb.send(encodeUplinkGPdu(s.uplinkTeid, packet), gnbNs.hostAddress, 2152);
    }
    await until(() => server.received.length === sizes.length, 'the data network got every uplink packet');
    assert.deepEqual(
      server.received.map((d) => [d.from, d.port, d.bytes.length]),
      sizes.map((size) => [s.ueIpv4, 40000, size]),
    );
    let downlinkBytes = 0;
    for (const [i, size] of sizes.entries()) {
      downlinkBytes += 28 + size;
      await server.send(Buffer.alloc(size, 0x80 + i), s.ueIpv4 ?? '', 40000);
    }
    await until(() => gnb.received.length === sizes.length, 'the gNB got every downlink packet');
    for (const [i, d] of gnb.received.entries()) {
      const decoded = decodeGtpu(d.bytes);
      assert.ok(decoded.ok);
      assert.equal(decoded.message.type, GtpuMessageType.gPdu);
      assert.equal(decoded.message.teid, s.remoteTeid);
      assert.deepEqual(readPduSessionContainer(decoded.message), { pduType: 0, qfi: 5 });
      assert.equal(d.from, gnbNs.hostAddress);
      const inner = readIpv4(decoded.message.payload);
      assert.equal(inner.source, dnNs.peerAddress);
      assert.equal(inner.destination, s.ueIpv4);
      assert.equal(decoded.message.payload[8], 63, 'one router hop: TTL 64 less one');
      assert.deepEqual(inner.payload.subarray(8), Buffer.alloc(sizes[i] ?? 0, 0x80 + i));
    }
    const c = counters();
    assert.equal(c.uplinkPackets - before.uplinkPackets, sizes.length);
    assert.equal(c.uplinkBytes - before.uplinkBytes, uplinkBytes);
    assert.equal(c.downlinkPackets - before.downlinkPackets, sizes.length);
    assert.equal(c.downlinkBytes - before.downlinkBytes, downlinkBytes);
    assert.equal(
      c.xdpToStack - before.xdpToStack,
      0,
      `nothing went to userspace: ${JSON.stringify(c)} ${JSON.stringify(tunPackets())} ${JSON.stringify(tunBefore)}`,
    );
    assert.deepEqual(tunPackets(), tunBefore, 'the TUN carried nothing');

    // The 30 s usage drain (all sessions' usage read from the program at once), then the release.
    clock.advance(30_000);
    const drained = usage.filter((u) => u.imsi === s.imsi).map((u) => [u.uplinkBytes, u.downlinkBytes]);
    assert.deepEqual(drained, [[uplinkBytes, downlinkBytes]]);
    assert.deepEqual(upf.release(s.id), { ok: true, value: undefined });
    const mine = reports.filter((r) => r.subscriberId === s.imsi);
    assert.deepEqual(mine.map((r) => [r.direction, r.action, r.protocol, r.packets, r.bytes]).sort(), [
      ['downlink', 'allow', 17, sizes.length, downlinkBytes],
      ['uplink', 'allow', 17, sizes.length, uplinkBytes],
    ]);
    assert.deepEqual(
      usage.filter((u) => u.imsi === s.imsi).map((u) => [u.uplinkBytes, u.downlinkBytes]),
      [[uplinkBytes, downlinkBytes]],
    );
  });

  it('drops a spoofed inner source in the kernel, as a drop flow, no usage', async () => {
    const s = session(3);
    activate(s);
    const before = counters();
    const tunBefore = tunPackets();
    const spoofed = uplinkPacket(s, Buffer.alloc(20), ue(99));
    await gnb.send(encodeUplinkGPdu(s.uplinkTeid, spoofed), gnbNs.hostAddress, 2152);
    await until(() => counters().dropSpoofed === before.dropSpoofed + 1, 'dropSpoofed');
    assert.equal(counters().uplinkPackets, before.uplinkPackets);
    assert.deepEqual(tunPackets(), tunBefore);
    upf.release(s.id);
    assert.deepEqual(
      reports
        .filter((r) => r.subscriberId === s.imsi)
        .map((r) => [r.direction, r.action, r.sourceIp, r.bytes]),
      [['uplink', 'drop', ue(99), spoofed.length]],
    );
    assert.equal(usage.filter((u) => u.imsi === s.imsi).length, 0);
    assert.equal(server.received.length, 0);
  });

  it('hands an unknown TEID and an echo to userspace: Error Indication and Echo Response', async () => {
    const before = counters();
    await gnb.send(
      encodeUplinkGPdu(0xdead, udpPacket(ue(4), dnNs.peerAddress, 1, 2, Buffer.alloc(8))),
      gnbNs.hostAddress,
      2152,
    );
    await gnb.send(encodeEchoRequest(77), gnbNs.hostAddress, 2152);
    await until(() => gnb.received.length === 2, 'two answers');
    const types = gnb.received.map((d) => {
      const m = decodeGtpu(d.bytes);
      assert.ok(m.ok);
      return m.message;
    });
    const indication = types.find((m) => m.type === GtpuMessageType.errorIndication);
    assert.ok(indication);
    const ies = decodeErrorIndication(indication.payload);
    assert.ok(ies.ok);
    assert.equal(ies.teid, 0xdead);
    assert.equal(types.find((m) => m.type === GtpuMessageType.echoResponse)?.sequence, 77);
    const c = counters();
    assert.equal(c.xdpToStack - before.xdpToStack, 2);
    assert.equal(c.dropUnknownTeid - before.dropUnknownTeid, 1);
  });

  it('a flood of unknown TEIDs: all handed over, Error Indications at most as the setting allows', async () => {
    const before = counters();
    const gpdu = Buffer.from(encodeUplinkGPdu(0, udpPacket(ue(4), dnNs.peerAddress, 1, 2, Buffer.alloc(8))));
    // TEIDs 1..300 (low 16 bits at octet 6): none is a session's.
    await gnb.sendMany(gpdu, gnbNs.hostAddress, 2152, 300, 6);
    const judged = (c: UpfCounters) =>
      c.errorIndicationsSent +
      c.errorIndicationsSuppressed -
      before.errorIndicationsSent -
      before.errorIndicationsSuppressed;
    await until(() => judged(counters()) === 300, 'all 300 judged by the forwarder');
    const c = counters();
    assert.equal(c.xdpToStack - before.xdpToStack, 300);
    assert.equal(c.dropUnknownTeid - before.dropUnknownTeid, 300);
    // A bucket of 100 (errorIndicationsPerSecond) refilled at 100/s while the 300 arrive.
    const sent = c.errorIndicationsSent - before.errorIndicationsSent;
    assert.ok(sent >= 99 && sent < 300, `${sent} Error Indications`);
    await until(() => gnb.received.length === sent, 'each sent one arrived');
  });

  it('release removes the rules from the program: the old TEID is unknown, downlink goes nowhere', async () => {
    const s = session(5);
    activate(s);
    await gnb.send(
      encodeUplinkGPdu(s.uplinkTeid, uplinkPacket(s, Buffer.alloc(10))),
      gnbNs.hostAddress,
      2152,
    );
    await until(() => server.received.length === 1, 'forwarded while established');
    upf.release(s.id);
    const before = counters();
    await gnb.send(
      encodeUplinkGPdu(s.uplinkTeid, uplinkPacket(s, Buffer.alloc(10))),
      gnbNs.hostAddress,
      2152,
    );
    await server.send(Buffer.alloc(10), s.ueIpv4 ?? '', 40000);
    await until(
      () =>
        counters().dropUnknownTeid === before.dropUnknownTeid + 1 &&
        counters().dropUnknownDestination === before.dropUnknownDestination + 1,
      'both refused by userspace',
    );
    assert.equal(server.received.length, 1);
    const gpdus = gnb.received.filter((d) => {
      const m = decodeGtpu(d.bytes);
      return m.ok && m.message.type === GtpuMessageType.gPdu;
    });
    assert.equal(gpdus.length, 0);
  });

  it("releasing a session whose flows were all taken leaves the other sessions' flows in the program", async () => {
    const idle = session(40);
    const busy = session(41);
    activate(idle);
    activate(busy);
    await gnb.send(
      encodeUplinkGPdu(idle.uplinkTeid, uplinkPacket(idle, Buffer.alloc(10))),
      gnbNs.hostAddress,
      2152,
    );
    await until(() => server.received.length === 1, 'the idle one sent once');
    clock.advance(1000); // a collection tick: its flow is in the flow table now
    await gnb.send(
      encodeUplinkGPdu(busy.uplinkTeid, uplinkPacket(busy, Buffer.alloc(20))),
      gnbNs.hostAddress,
      2152,
    );
    await until(() => server.received.length === 2, 'the busy one sent since');
    const open = counters().openFlows;
    assert.deepEqual(upf.release(idle.id), { ok: true, value: undefined });
    // Only the idle session's flow ended; the busy one's is still the program's (not walked for).
    assert.equal(counters().openFlows, open - 1);
    const of = (imsi: string) =>
      reports.filter((r) => r.subscriberId === imsi).map((r) => [r.direction, r.action, r.packets, r.bytes]);
    assert.deepEqual(of(idle.imsi), [['uplink', 'allow', 1, 38]]);
    // A release with packets still in the program's map takes them.
    assert.deepEqual(upf.release(busy.id), { ok: true, value: undefined });
    assert.deepEqual(of(busy.imsi), [['uplink', 'allow', 1, 48]]);
  });

  /** Flow reports of a subscriber as [direction, action, packets, bytes], sorted. */
  const flowsOf = (imsi: string) =>
    reports
      .filter((r) => r.subscriberId === imsi)
      .map((r) => [r.direction, r.action, r.packets, r.bytes])
      .sort();

  it('keeps a live flow in the program across ticks: inserted once, reported once with every packet and octet', async () => {
    const s = session(42);
    activate(s);
    const before = counters();
    let up = 0;
    let upBytes = 0;
    let down = 0;
    let downBytes = 0;
    let firstTick = 0;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 2; i++) {
        const packet = uplinkPacket(s, Buffer.alloc(10 + 3 * round + i));
        up++;
        upBytes += packet.length;
        await gnb.send(encodeUplinkGPdu(s.uplinkTeid, packet), gnbNs.hostAddress, 2152);
      }
      await until(() => server.received.length === up, 'the data network got the uplink packets');
      const size = 20 + round;
      down++;
      downBytes += 28 + size;
      await server.send(Buffer.alloc(size), s.ueIpv4 ?? '', 40000);
      await until(() => gnb.received.length === down, 'the gNB got the downlink packet');
      if (round === 0) firstTick = clock.now();
      clock.advance(1000); // a tick reads both flows; they stay in the program's map
    }
    const c = counters();
    assert.equal(c.xdpFlowsInserted - before.xdpFlowsInserted, 2, 'one insertion per flow, not one per tick');
    assert.equal(c.uplinkPackets - before.uplinkPackets, up);
    assert.equal(c.downlinkPackets - before.downlinkPackets, down);
    assert.equal(c.xdpToStack - before.xdpToStack, 0);
    assert.deepEqual(flowsOf(s.imsi), [], 'still open');

    clock.advance(30_000); // idle for the idle timeout: each flow ends, reported once
    assert.deepEqual(flowsOf(s.imsi), [
      ['downlink', 'allow', down, downBytes],
      ['uplink', 'allow', up, upBytes],
    ]);
    const mine = reports.filter((r) => r.subscriberId === s.imsi);
    for (const r of mine) {
      // From the tick before the first that saw it to the last that saw packets: four ticks.
      assert.equal(r.endTime - r.startTime, 4000);
      assert.ok(r.startTime <= firstTick && firstTick < r.startTime + 1000);
    }

    // The ended flow's entry left the map: the key's next packet is a new flow, counted alone.
    const again = uplinkPacket(s, Buffer.alloc(5));
    await gnb.send(encodeUplinkGPdu(s.uplinkTeid, again), gnbNs.hostAddress, 2152);
    await until(() => server.received.length === up + 1, 'the data network got the next packet');
    clock.advance(1000);
    assert.equal(counters().xdpFlowsInserted - before.xdpFlowsInserted, 3);
    assert.deepEqual(upf.release(s.id), { ok: true, value: undefined });
    assert.deepEqual(flowsOf(s.imsi), [
      ['downlink', 'allow', down, downBytes],
      ['uplink', 'allow', 1, again.length],
      ['uplink', 'allow', up, upBytes],
    ]);
  });

  it('a flow cut by the active timeout goes on as a new one; release takes what no tick read', async () => {
    const s = session(43);
    activate(s);
    const before = counters();
    const sizes: number[] = [];
    const send = async (size: number) => {
      const packet = uplinkPacket(s, Buffer.alloc(size));
      sizes.push(packet.length);
      await gnb.send(encodeUplinkGPdu(s.uplinkTeid, packet), gnbNs.hostAddress, 2152);
      await until(() => server.received.length === sizes.length, 'the data network got it');
    };
    // A packet every 20 s (under the 30 s idle timeout) for 31 minutes: the 30-minute active
    // timeout ends the flow once while packets keep coming.
    for (let t = 0; t < 31 * 60; t += 20) {
      await send(1 + (t % 7));
      clock.advance(20_000);
    }
    await send(50); // counted after the last tick: only the release reads it
    const afterCut = reports.filter((r) => r.subscriberId === s.imsi);
    assert.equal(afterCut.length, 1, 'the active timeout ended the first flow');
    assert.deepEqual(upf.release(s.id), { ok: true, value: undefined });
    const mine = reports.filter((r) => r.subscriberId === s.imsi);
    assert.equal(mine.length, 2);
    assert.equal(
      mine.reduce((sum, r) => sum + r.packets, 0),
      sizes.length,
      'every packet in exactly one report',
    );
    assert.equal(
      mine.reduce((sum, r) => sum + r.bytes, 0),
      sizes.reduce((a, b) => a + b, 0),
    );
    const [first, second] = mine;
    assert.equal(
      first?.bytes,
      sizes.slice(0, first?.packets).reduce((a, b) => a + b, 0),
    );
    assert.equal(second?.packets, sizes.length - (first?.packets ?? 0));
    assert.equal(counters().xdpFlowsInserted - before.xdpFlowsInserted, 2);
    assert.equal(counters().uplinkPackets - before.uplinkPackets, sizes.length);
  });

  it('an idle session: downlink to userspace, buffered, paged, flushed when the tunnel is back', async () => {
    const s = session(6);
    activate(s);
    upf.deactivate(s.id);
    const before = counters();
    await server.send(Buffer.from('wake up'), s.ueIpv4 ?? '', 40000);
    await until(() => counters().downlinkBuffered === before.downlinkBuffered + 1, 'buffered');
    clock.advance(100);
    await until(() => paged.includes(s.id), 'paged');
    activate(s);
    await until(() => gnb.received.length === 1, 'flushed to the gNB');
    const m = decodeGtpu(gnb.received[0]?.bytes ?? Buffer.alloc(0));
    assert.ok(m.ok);
    assert.equal(m.message.teid, s.remoteTeid);
    assert.deepEqual(readIpv4(m.message.payload).payload.subarray(8), Buffer.from('wake up'));
    // Active again: the next one takes the fast path.
    const tunBefore = tunPackets();
    await server.send(Buffer.from('again'), s.ueIpv4 ?? '', 40000);
    await until(() => gnb.received.length === 2, 'the next one');
    assert.deepEqual(tunPackets(), tunBefore);
    upf.release(s.id);
  });

  it('a moved tunnel: End Marker down the old one, then the program sends down the new one', async () => {
    const s = session(11);
    activate(s);
    await server.send(Buffer.from('before'), s.ueIpv4 ?? '', 40000);
    await until(() => gnb.received.length === 1, 'one down the first tunnel');
    assert.deepEqual(
      upf.updateDownlink(s.id, { gnbAddress: gnbNs.peerAddress, remoteTeid: 0x7777, qfi: 5 }),
      {
        ok: true,
        value: undefined,
      },
    );
    const tunBefore = tunPackets();
    await server.send(Buffer.from('after'), s.ueIpv4 ?? '', 40000);
    await until(() => gnb.received.length === 3, 'the End Marker and the next packet');
    const messages = gnb.received.map((d) => {
      const m = decodeGtpu(d.bytes);
      assert.ok(m.ok);
      return [m.message.type, m.message.teid];
    });
    assert.deepEqual(messages, [
      [GtpuMessageType.gPdu, s.remoteTeid],
      [GtpuMessageType.endMarker, s.remoteTeid],
      [GtpuMessageType.gPdu, 0x7777],
    ]);
    assert.deepEqual(tunPackets(), tunBefore, 'the new tunnel by the program');
    upf.release(s.id);
  });

  it('polices the uplink AMBR in the kernel: what passed and what was dropped add up', async () => {
    // 16 KiB bucket (the minimum) at 8 kbit/s: a burst of 40 packets of 1,028 octets cannot all fit.
    const s = session(7, { uplinkBps: 8000, downlinkBps: 0 });
    activate(s);
    const before = counters();
    const packet = uplinkPacket(s, Buffer.alloc(1000));
    for (let i = 0; i < 40; i++)
      await gnb.send(encodeUplinkGPdu(s.uplinkTeid, packet), gnbNs.hostAddress, 2152);
    await until(
      () =>
        counters().uplinkPackets +
          counters().dropUplinkAmbr -
          before.uplinkPackets -
          before.dropUplinkAmbr ===
        40,
      'all 40 judged',
    );
    const c = counters();
    const passed = c.uplinkPackets - before.uplinkPackets;
    assert.ok(passed >= 15 && passed <= 17, `16 KiB holds 15 or 16 packets (${passed})`);
    await until(() => server.received.length === passed, 'the data network got those that passed');
    upf.release(s.id);
    const mine = reports.filter((r) => r.subscriberId === s.imsi);
    assert.deepEqual(mine.map((r) => [r.action, r.packets, r.bytes]).sort(), [
      ['allow', passed, passed * packet.length],
      ['drop', 40 - passed, (40 - passed) * packet.length],
    ]);
  });

  it('polices the downlink AMBR in the kernel too', async () => {
    const s = session(9, { uplinkBps: 0, downlinkBps: 8000 });
    activate(s);
    const before = counters();
    for (let i = 0; i < 40; i++) await server.send(Buffer.alloc(1000), s.ueIpv4 ?? '', 40000);
    await until(
      () =>
        counters().downlinkPackets +
          counters().dropDownlinkAmbr -
          before.downlinkPackets -
          before.dropDownlinkAmbr ===
        40,
      'all 40 judged',
    );
    const passed = counters().downlinkPackets - before.downlinkPackets;
    assert.ok(passed >= 15 && passed <= 17, `16 KiB holds 15 or 16 packets (${passed})`);
    await until(() => gnb.received.length === passed, 'the gNB got those that passed');
    assert.equal(counters().xdpToStack, before.xdpToStack);
    upf.release(s.id);
  });

  it('counts 100,000 concurrent flows in the kernel, each reported with its packet', async () => {
    const s = session(10);
    activate(s);
    const before = counters();
    // Inner UDP checksum 0 (RFC 768: none), so that changing the source port keeps the packet valid.
    const inner = uplinkPacket(s, Buffer.alloc(8));
    inner.writeUInt16BE(0, 26);
    const gpdu = Buffer.from(encodeUplinkGPdu(s.uplinkTeid, inner));
    const sourcePortAt = gpdu.length - inner.length + 20;
    const flows = 100_000;
    // Source ports 1..50,000 towards two destination ports: 100,000 distinct 5-tuples.
    await gnb.sendMany(gpdu, gnbNs.hostAddress, 2152, flows / 2, sourcePortAt);
    gpdu.writeUInt16BE(SERVER_PORT + 1, sourcePortAt + 2);
    await gnb.sendMany(gpdu, gnbNs.hostAddress, 2152, flows / 2, sourcePortAt);
    await until(() => counters().uplinkPackets - before.uplinkPackets === flows, 'all forwarded', 20_000);
    clock.advance(1000); // a collection tick: the program's flows join the flow table
    const c = counters();
    // And the data network's ICMP port unreachable answers to port 7001: one downlink flow.
    assert.ok(c.openFlows - before.openFlows >= flows);
    assert.equal(c.flowTableFull, before.flowTableFull);
    assert.equal(c.xdpToStack, before.xdpToStack);
    upf.release(s.id);
    const mine = reports.filter((r) => r.subscriberId === s.imsi && r.direction === 'uplink');
    assert.equal(mine.length, flows);
    assert.equal(new Set(mine.map((r) => `${r.sourcePort}/${r.destinationPort}`)).size, flows);
    assert.ok(mine.every((r) => r.packets === 1 && r.bytes === inner.length && r.action === 'allow'));
  });

  it('a G-PDU the program does not handle (extension header with length 0) is judged by userspace', async () => {
    const s = session(8);
    activate(s);
    const before = counters();
    const bad = Buffer.from(
      encodeGtpu({
        type: GtpuMessageType.gPdu,
        teid: s.uplinkTeid,
        payload: uplinkPacket(s, Buffer.alloc(4)),
      }),
    );
    // E flag with a zero-length extension header: TS 29.281 5.2.1 malformed.
    bad[0] = (bad[0] ?? 0) | 0x04;
    const withExtension = Buffer.concat([
      bad.subarray(0, 8),
      Buffer.from([0, 0, 0, 0x85, 0, 0, 0, 0]),
      bad.subarray(8),
    ]);
    withExtension.writeUInt16BE(withExtension.length - 8, 2);
    await gnb.send(withExtension, gnbNs.hostAddress, 2152);
    await until(() => counters().dropMalformed === before.dropMalformed + 1, 'dropMalformed');
    assert.equal(counters().xdpToStack - before.xdpToStack, 1);
    assert.equal(server.received.length, 0);
    upf.release(s.id);
  });
});

describe(
  'UPF datapath choice',
  { skip: namespacesUnavailable() ?? (load.ok ? undefined : load.error.message) },
  () => {
    const records = {
      recordFlowReports: () => true,
      recordUsage: () => true,
      whenWritable: () => Promise.resolve(),
    };
    const settings = (datapath: 'auto' | 'xdp' | 'tun', tunName: string) => ({
      n3Address: '127.0.0.1',
      n3Port: 0,
      tunName,
      maxSessions: 4,
      maxFlows: 16,
      errorIndicationsPerSecond: 1,
      datapath,
      n6Interface: 'lo',
    });

    it('auto falls back to the TUN and says why; xdp refuses to start', async () => {
      const clock = manualClock();
      const auto = createUpf({ settings: settings('auto', `${TUN}a`), records, clock, timers: clock });
      auto.start();
      assert.equal(auto.datapath.kind, 'tun');
      assert.match(auto.datapath.reason, /^XDP cannot run: /);
      await auto.stop();
      const xdp = createUpf({ settings: settings('xdp', `${TUN}b`), records, clock, timers: clock });
      assert.throws(() => xdp.start(), /XDP cannot run/);
      const tun = createUpf({ settings: settings('tun', `${TUN}c`), records, clock, timers: clock });
      tun.start();
      assert.deepEqual(tun.datapath, { kind: 'tun', reason: 'the TUN datapath was chosen' });
      await tun.stop();
      for (const suffix of ['a', 'b', 'c'])
        await run('ip', ['link', 'del', `${TUN}${suffix}`]).catch(() => undefined);
    });
  },
);

describe("UPF XDP: N6 unset takes the default route's interface", { skip }, () => {
  // Each case runs a forwarder in a namespace of its own (a child process), whose routes the test
  // sets: this process's default route is the machine's, where no test attaches a program.
  const namespace = `pmnxr${process.pid % 100000}`;
  const choose = async (n3Address: string) => {
    const script = `const { Forwarder } = require(${JSON.stringify(join(dirname(upfBpfObject()), 'pmn_upf.node'))});
      const f = new Forwarder({ n3Address: '${n3Address}', n3Port: 0, tunName: 'pmnt0', maxSessions: 4,
        maxFlows: 16, datapath: 'auto', bpfObject: ${JSON.stringify(upfBpfObject())} });
      console.log(JSON.stringify(f.info())); f.close();`;
    const { stdout } = await run('ip', ['netns', 'exec', namespace, process.execPath, '-e', script]);
    return JSON.parse(stdout) as { datapath: string; datapathReason: string };
  };

  before(async () => {
    await run('ip', ['netns', 'add', namespace]);
    const ns = (...a: string[]) => run('ip', ['-n', namespace, ...a]);
    await ns('link', 'set', 'lo', 'up');
    for (const [dev, address] of [
      ['n3', '10.242.0.1/24'],
      ['wan', '10.243.0.1/24'],
    ] as const) {
      await ns('link', 'add', dev, 'type', 'veth', 'peer', 'name', `${dev}peer`);
      await ns('addr', 'add', address, 'dev', dev);
      for (const d of [dev, `${dev}peer`]) await ns('link', 'set', d, 'up');
      await run('ip', ['netns', 'exec', namespace, 'sysctl', '-qw', `net.ipv4.conf.${dev}.forwarding=1`]);
    }
    await ns('route', 'add', 'default', 'via', '10.243.0.2', 'dev', 'wan');
  });
  after(() => run('ip', ['netns', 'del', namespace]).catch(() => undefined));

  it("runs XDP with N6 on the default route's interface and says so", async () => {
    const info = await choose('10.242.0.1');
    assert.equal(info.datapath, 'xdp', info.datapathReason);
    assert.match(
      info.datapathReason,
      /N3 n3 .*N6 wan .*the default route's interface, n6_interface being unset/,
    );
  });

  it('N3 on loopback (the default settings): the TUN, as before, and why', async () => {
    const info = await choose('127.0.0.1');
    assert.deepEqual(info, {
      ...info,
      datapath: 'tun',
      datapathReason: 'XDP cannot run: the N3 address is on the loopback interface',
    });
  });

  it('no default route: the TUN, and why', async () => {
    await run('ip', ['-n', namespace, 'route', 'del', 'default']);
    const info = await choose('10.242.0.1');
    assert.equal(info.datapath, 'tun');
    assert.equal(
      info.datapathReason,
      'XDP cannot run: n6_interface is not set and no default route names an interface to take instead',
    );
  });
});

describe('UPF XDP program attachment', { skip }, () => {
  const xdpOf = async (dev: string) =>
    (
      JSON.parse((await run('ip', ['-j', '-d', 'link', 'show', 'dev', dev])).stdout) as {
        xdp?: { mode: number };
      }[]
    )[0]?.xdp ?? undefined;

  it("a flow table without room: the program's entries it cannot take are deleted and counted, later packets make them again", async () => {
    const n3 = await createVethNamespace('v', 227);
    const n6 = await createVethNamespace('w', 228);
    let peer: Awaited<ReturnType<typeof udpPeer>> | undefined;
    let forwarder: Forwarder | undefined;
    try {
      for (const dev of [n3.hostInterface, n6.hostInterface])
        await run('sysctl', ['-qw', `net.ipv4.conf.${dev}.forwarding=1`]);
      const { stdout } = await run('ip', ['-n', n6.name, '-j', 'link', 'show', n6.peerInterface]);
      const [link] = JSON.parse(stdout) as { address: string }[];
      await run('ip', [
        'neigh',
        'replace',
        n6.peerAddress,
        'lladdr',
        link?.address ?? '',
        'dev',
        n6.hostInterface,
      ]);
      assert.ok(load.ok);
      // Room for 8 flows, in the forwarder's table and in the program's map; ticked by hand.
      const f = new load.addon.Forwarder({
        n3Address: n3.hostAddress,
        n3Port: 2152,
        tunName: `${TUN}f`,
        maxSessions: 4,
        maxFlows: 8,
        datapath: 'xdp',
        bpfObject: upfBpfObject(),
        n6Interface: n6.hostInterface,
      });
      forwarder = f;
      const address = ue(9);
      f.addSession(1, 0x77, address, null, 0, 0);
      peer = await udpPeer(n3, n3.peerAddress, 2152);
      const gnbPeer = peer;
      const inner = udpPacket(address, n6.peerAddress, 40000, SERVER_PORT, Buffer.alloc(8));
      inner.writeUInt16BE(0, 26); // no UDP checksum (RFC 768), so that ports can change
      const gpdu = Buffer.from(encodeUplinkGPdu(0x77, inner));
      const sourcePortAt = gpdu.length - inner.length + 20;
      const send = async (count: number, destinationPort: number) => {
        const before = f.counters().uplinkPackets;
        gpdu.writeUInt16BE(destinationPort, sourcePortAt + 2);
        await gnbPeer.sendMany(gpdu, n3.hostAddress, 2152, count, sourcePortAt);
        await until(() => f.counters().uplinkPackets - before === count, 'all forwarded by the program');
      };
      const take = () => decodeFlowReports(f.takeFlows(100), () => 'imsi');
      const IDLE = 30_000;

      await send(9, 7001); // 8 fill the map; the 9th finds it full and is forwarded all the same
      assert.equal(f.counters().xdpFlowsInserted, 8);
      assert.equal(f.counters().flowTableFull, 1);
      f.tickFlows(1000, 0, IDLE, 1_800_000);
      assert.equal(f.counters().openFlows, 8);
      f.tickFlows(40_000, 1000, IDLE, 1_800_000); // all idle: ended, not taken yet
      assert.deepEqual([f.counters().openFlows, f.counters().endedFlows], [0, 8]);

      // The ended flows left the map: 8 new ones fit there, but not in the forwarder's full table.
      await send(8, 7002);
      assert.equal(f.counters().xdpFlowsInserted, 16);
      f.tickFlows(41_000, 40_000, IDLE, 1_800_000);
      assert.equal(f.counters().flowTableFull, 9);
      const first = take();
      assert.equal(first.length, 8);
      assert.ok(first.every((r) => r.destinationPort === 7001 && r.packets === 1));

      // Their entries were deleted with the refusal: the next packets make them again, now taken.
      await send(8, 7002);
      assert.equal(f.counters().xdpFlowsInserted, 24);
      f.tickFlows(42_000, 41_000, IDLE, 1_800_000);
      assert.equal(f.counters().openFlows, 8);
      f.removeSession(1, 43_000, 42_000);
      const second = take();
      assert.equal(second.length, 8);
      assert.ok(
        second.every((r) => r.destinationPort === 7002 && r.packets === 1 && r.bytes === inner.length),
      );
      assert.equal(f.counters().flowTableFull, 9);
      assert.equal(f.counters().uplinkPackets, 25);
    } finally {
      peer?.close();
      forwarder?.close();
      await run('ip', ['link', 'del', `${TUN}f`]).catch(() => undefined);
      await n3.remove();
      await n6.remove();
    }
  });

  it('attaches to N3 and N6 while open, and nothing is left on them once closed', async () => {
    const n3 = await createVethNamespace('v', 227);
    const n6 = await createVethNamespace('w', 228);
    try {
      for (const dev of [n3.hostInterface, n6.hostInterface])
        await run('sysctl', ['-qw', `net.ipv4.conf.${dev}.forwarding=1`]);
      assert.ok(load.ok);
      const forwarder = new load.addon.Forwarder({
        n3Address: n3.hostAddress,
        n3Port: 0,
        tunName: `${TUN}d`,
        maxSessions: 4,
        maxFlows: 16,
        datapath: 'xdp',
        bpfObject: upfBpfObject(),
        n6Interface: n6.hostInterface,
      });
      assert.equal(forwarder.info().datapath, 'xdp');
      assert.ok(await xdpOf(n3.hostInterface), 'on N3');
      assert.ok(await xdpOf(n6.hostInterface), 'on N6');
      forwarder.close();
      assert.equal(await xdpOf(n3.hostInterface), undefined);
      assert.equal(await xdpOf(n6.hostInterface), undefined);
      // Off on N6: the datapath cannot route there, so it does not start.
      await run('sysctl', ['-qw', `net.ipv4.conf.${n6.hostInterface}.forwarding=0`]);
      assert.throws(
        () =>
          new load.addon.Forwarder({
            n3Address: n3.hostAddress,
            n3Port: 0,
            tunName: `${TUN}d`,
            datapath: 'xdp',
            bpfObject: upfBpfObject(),
            n6Interface: n6.hostInterface,
          }),
        new RegExp(`IPv4 forwarding is off on ${n6.hostInterface}`),
      );
    } finally {
      await run('ip', ['link', 'del', `${TUN}d`]).catch(() => undefined);
      await n3.remove();
      await n6.remove();
    }
  });
});
