/**
 * The UPF's forwarder with real packets (docs/upf.md). A "gNB" (a UDP socket on 127.X.Y.2:2152) sends
 * GTP-U to the forwarder (127.X.Y.1:2152); the forwarder's TUN device is moved into a "data network"
 * namespace whose kernel answers: ICMP echo replies, ICMP port unreachable for UDP, RST for TCP. Flow
 * reports and usage go through the service's records pipeline and are read back through the API.
 * tshark decodes every GTP-U message the forwarder sent. Needs root (namespaces, TUN).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  decodeErrorIndication,
  decodeGtpu,
  encodeEchoRequest,
  encodeGtpu,
  encodeUplinkGPdu,
  GtpuMessageType,
  readPduSessionContainer,
  type GtpuMessage,
} from '../helpers/gtpu-codec.ts';
import { createTeidAllocator } from '../../src/network/working-state/teid-allocator.ts';
import { loadUpfAddon } from '../../src/network/upf/upf-addon.ts';
import { createUpf, type Upf } from '../../src/network/upf/upf.ts';
import { namespacesUnavailable, placeN6 } from '../helpers/netns.ts';
import { EXPERT_WARNING, tsharkFields, worstSeverity } from '../helpers/tshark.ts';
import { createTestApp, initialize, manualClock, result, type TestApp } from '../helpers/test-app.ts';
import { until, WAIT_MS } from '../helpers/until.ts';
import {
  icmpEcho,
  icmpv6Echo,
  internetChecksum,
  readIpv4,
  tcpSyn,
  udpPacket,
} from '../network/upf/ip-packets.ts';
import { ipv6Text } from '../../src/network/common/ipv6-text.ts';

const run = promisify(execFile);
const load = loadUpfAddon();
const skip = namespacesUnavailable() ?? (load.ok ? undefined : load.error.message);

// Addresses and names from the process id, so files run at the same time never collide.
const x = 50 + (process.pid % 150);
const y = Math.floor(process.pid / 150) % 250;
const N3 = `127.${x}.${y}.1`;
const GNB = `127.${x}.${y}.2`;
const GNB_2 = `127.${x}.${y}.3`;
const TUN = `pmnu${process.pid % 100000}`;
const DN_NAMESPACE = `pmnupf${process.pid % 100000}`;
const DN = '10.99.0.1';
const DN_6 = '2001:db8:99::1';

interface Received {
  bytes: Buffer;
  from: string;
  to: string;
  message: GtpuMessage;
}

/** A gNB's N3 socket: keeps every datagram (for tshark) and lets tests wait for one. */
async function gnbSocket(address: string) {
  const socket = dgram.createSocket('udp4');
  const all: Received[] = [];
  const waiters: { match: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  socket.on('message', (bytes, remote) => {
    const decoded = decodeGtpu(bytes);
    assert.ok(decoded.ok, `the forwarder sent an undecodable datagram: ${bytes.toString('hex')}`);
    const r = { bytes, from: remote.address, to: address, message: decoded.message };
    all.push(r);
    for (const waiter of [...waiters]) {
      if (waiter.match(r)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(r);
      }
    }
  });
  await new Promise<void>((resolve) => socket.bind(2152, address, resolve));
  return {
    all,
    send: (bytes: Uint8Array) => socket.send(bytes, 2152, N3),
    next(match: (r: Received) => boolean, what: string, ms = WAIT_MS): Promise<Received> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
        waiters.push({
          match,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
      });
    },
    close: () => socket.close(),
  };
}

/** Waits until the forwarder's counters satisfy `done` (it works on its own thread). */
async function settle(upf: Upf, done: (c: ReturnType<Upf['counters']>) => boolean): Promise<void> {
  await until(
    done.toString(),
    () => done(upf.counters()),
    () => JSON.stringify(upf.counters()),
  );
}

/** Deterministic PRNG for the fuzz (mulberry32). */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('UPF forwarder with real packets', { skip }, () => {
  let t: TestApp;
  let token: string;
  let upf: Upf;
  let gnb: Awaited<ReturnType<typeof gnbSocket>>;
  let gnb2: Awaited<ReturnType<typeof gnbSocket>>;
  const clock = manualClock(Date.now());
  const teids = createTeidAllocator();
  let imsiCounter = 0;

  /** A session on its own UE address with the downlink towards `gnb`. */
  function session(ambr = { uplinkBps: 0, downlinkBps: 0 }) {
    imsiCounter += 1;
    const imsi = `0010100000${String(imsiCounter).padStart(5, '0')}`;
    const ueIpv4 = `10.45.0.${imsiCounter + 1}`;
    const uplinkTeid = teids.allocate() ?? 0;
    const established = upf.establishSession({ imsi, ueIpv4, uplinkTeid, ambr });
    assert.ok(established.ok);
    const remoteTeid = 0x1000 + imsiCounter;
    assert.deepEqual(upf.updateDownlink(established.value.id, { gnbAddress: GNB, remoteTeid }), {
      ok: true,
      value: undefined,
    });
    return { id: established.value.id, imsi, ueIpv4, uplinkTeid, remoteTeid };
  }

  const downlinkTo = (remoteTeid: number) => (r: Received) =>
    r.message.type === GtpuMessageType.gPdu && r.message.teid === remoteTeid;

  before(async () => {
    await run('ip', ['netns', 'add', DN_NAMESPACE]);
    t = await createTestApp({ clock, timers: clock });
    token = await initialize(t);
    upf = createUpf({
      settings: {
        n3Address: N3,
        n3Port: 2152,
        tunName: TUN,
        maxSessions: 64,
        maxFlows: 1024,
        errorIndicationsPerSecond: 20,
      },
      records: t.records,
      clock,
      timers: clock,
    });
    upf.start();
    // The data network: the TUN moves into its namespace, which holds DN's address and a route back
    // to the UEs through it. The forwarder keeps its file descriptor.
    await placeN6(TUN, DN_NAMESPACE, {
      ipv4: DN,
      uePool: '10.45.0.0/16',
      ipv6: { address: DN_6, uePool: '2001:db8:45::/48' },
    });
    gnb = await gnbSocket(GNB);
    gnb2 = await gnbSocket(GNB_2);
  });

  after(async () => {
    gnb?.close();
    gnb2?.close();
    await upf?.stop();
    await t?.close();
    await run('ip', ['netns', 'del', DN_NAMESPACE]).catch(() => undefined);
  });

  it('answers an Echo Request with an Echo Response carrying its sequence number and Recovery', async () => {
    const response = gnb.next((r) => r.message.type === GtpuMessageType.echoResponse, 'echo response');
    gnb.send(encodeEchoRequest(0x4242));
    const { message } = await response;
    assert.equal(message.teid, 0);
    assert.equal(message.sequence, 0x4242);
    assert.deepEqual([...message.payload], [14, 0]); // TS 29.281 7.2.2: Recovery, restart counter 0
  });

  it('forwards an ICMP echo to the data network and its reply back in the session tunnel with QFI 1', async () => {
    const s = session();
    const reply = gnb.next(downlinkTo(s.remoteTeid), 'downlink G-PDU');
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 7, 1)));
    const { message } = await reply;
    assert.deepEqual(readPduSessionContainer(message), { pduType: 0, qfi: 1 });
    const ip = readIpv4(message.payload);
    assert.deepEqual([ip.source, ip.destination, ip.protocol], [DN, s.ueIpv4, 1]);
    assert.equal(ip.payload[0], 0, 'ICMP echo reply');
    assert.equal(ip.payload.readUInt16BE(4), 7, 'identifier');
    assert.equal(internetChecksum(ip.payload), 0);
  });

  it('decapsulates UDP and TCP: the data network answers port unreachable and RST', async () => {
    const s = session();
    const unreachable = gnb.next(downlinkTo(s.remoteTeid), 'ICMP port unreachable');
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, udpPacket(s.ueIpv4, DN, 40000, 5000, Buffer.from('hello'))));
    const icmp = readIpv4((await unreachable).message.payload);
    assert.deepEqual([icmp.protocol, icmp.payload[0], icmp.payload[1]], [1, 3, 3]);
    // The quoted datagram is ours: UDP to port 5000.
    assert.equal(readIpv4(icmp.payload.subarray(8)).payload.readUInt16BE(2), 5000);

    const rst = gnb.next(downlinkTo(s.remoteTeid), 'TCP RST');
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, tcpSyn(s.ueIpv4, DN, 40001, 80)));
    const tcp = readIpv4((await rst).message.payload);
    assert.equal(tcp.protocol, 6);
    assert.deepEqual([tcp.payload.readUInt16BE(0), tcp.payload.readUInt16BE(2)], [80, 40001]);
    assert.equal(tcp.payload[13]! & 0x04, 0x04, 'RST');
  });

  it('forwards IPv6 by the session /64: ICMPv6 echo out and its reply back; a source outside it dropped', async () => {
    const uplinkTeid = teids.allocate() ?? 0;
    const established = upf.establishSession({
      imsi: '001019999900001',
      ueIpv6Prefix: '2001:db8:45:1::',
      uplinkTeid,
      ambr: { uplinkBps: 0, downlinkBps: 0 },
    });
    assert.ok(established.ok);
    assert.ok(upf.updateDownlink(established.value.id, { gnbAddress: GNB, remoteTeid: 0x6666 }).ok);
    const ue = '2001:db8:45:1::2';
    const reply = gnb.next(downlinkTo(0x6666), 'ICMPv6 echo reply');
    gnb.send(encodeUplinkGPdu(uplinkTeid, icmpv6Echo(ue, DN_6, 5, 1)));
    const packet = Buffer.from((await reply).message.payload);
    assert.equal(packet[0]! >> 4, 6);
    assert.deepEqual([ipv6Text(packet, 8), ipv6Text(packet, 24), packet[6], packet[40]], [DN_6, ue, 58, 129]);
    const before = upf.counters();
    gnb.send(encodeUplinkGPdu(uplinkTeid, icmpv6Echo('2001:db8:45:2::2', DN_6, 5, 2)));
    await settle(upf, (c) => c.dropSpoofed === before.dropSpoofed + 1);
  });

  it('drops an uplink packet whose source is not the session address (anti-spoofing)', async () => {
    const s = session();
    const before = upf.counters();
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho('10.45.9.9', DN, 8, 1)));
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho('10.45.9.9', DN, 8, 2)));
    await settle(upf, (c) => c.dropSpoofed === before.dropSpoofed + 2);
    assert.equal(upf.counters().uplinkPackets, before.uplinkPackets);
  });

  it('answers a G-PDU for an unknown TEID with an Error Indication, rate-limited', async () => {
    const indication = gnb.next(
      (r) => r.message.type === GtpuMessageType.errorIndication,
      'error indication',
    );
    const before = upf.counters();
    gnb.send(encodeUplinkGPdu(0xdead, icmpEcho('10.45.0.200', DN, 9, 1)));
    const { message } = await indication;
    assert.equal(message.teid, 0);
    const ies = decodeErrorIndication(message.payload);
    assert.ok(ies.ok);
    assert.equal(ies.teid, 0xdead);
    assert.deepEqual([...ies.peerAddress], N3.split('.').map(Number));
    // A flood: at most the bucket's 20 (per second) answered, the rest counted as suppressed.
    for (let i = 0; i < 50; i++) gnb.send(encodeUplinkGPdu(0xdead00 + i, icmpEcho('10.45.0.200', DN, 9, i)));
    await settle(upf, (c) => c.dropUnknownTeid === before.dropUnknownTeid + 51);
    const c = upf.counters();
    assert.ok(c.errorIndicationsSent - before.errorIndicationsSent <= 21, JSON.stringify(c));
    assert.ok(c.errorIndicationsSuppressed - before.errorIndicationsSuppressed >= 30);
  });

  it('drops downlink packets for an address without a session; buffers those of an inactive session', async () => {
    const before = upf.counters();
    // A datagram from the data network to an address no session holds.
    const script =
      "require('dgram').createSocket('udp4').send('x', 9, '10.45.200.1', (e) => process.exit(e ? 1 : 0))";
    await run('ip', ['netns', 'exec', DN_NAMESPACE, process.execPath, '-e', script]);
    await settle(upf, (c) => c.dropUnknownDestination > before.dropUnknownDestination);

    const s = session();
    assert.ok(upf.deactivate(s.id).ok);
    assert.deepEqual(upf.session(s.id)?.userPlane, { state: 'inactive' });
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 10, 1)));
    // The data network's echo reply waits in the session's buffer (test/system/upf-buffering.test.ts).
    await settle(upf, (c) => c.downlinkBuffered === before.downlinkBuffered + 1);
    assert.equal(upf.counters().dropBufferFull, before.dropBufferFull);
    assert.ok(upf.release(s.id).ok);
    assert.equal(upf.counters().dropBufferReleased, before.dropBufferReleased + 1);
  });

  it('sends an End Marker on the old path when the downlink moves to another gNB', async () => {
    const s = session();
    const marker = gnb.next(
      (r) => r.message.type === GtpuMessageType.endMarker && r.message.teid === s.remoteTeid,
      'end marker',
    );
    assert.ok(upf.updateDownlink(s.id, { gnbAddress: GNB_2, remoteTeid: 0x7777 }).ok);
    assert.equal((await marker).message.payload.length, 0);
    const moved = gnb2.next(downlinkTo(0x7777), 'downlink G-PDU at the new gNB');
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 11, 1)));
    assert.equal(readIpv4((await moved).message.payload).destination, s.ueIpv4);
  });

  it('polices the session AMBR: no more than the bucket plus the rate passes', async () => {
    const s = session({ uplinkBps: 1_000_000, downlinkBps: 0 });
    const before = upf.counters();
    const packet = encodeUplinkGPdu(s.uplinkTeid, udpPacket(s.ueIpv4, DN, 40002, 9, Buffer.alloc(972)));
    const start = process.hrtime.bigint();
    for (let i = 0; i < 400; i++) gnb.send(packet);
    await settle(upf, (c) => c.n3Received >= before.n3Received + 400);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const c = upf.counters();
    const passed = c.uplinkBytes - before.uplinkBytes;
    // The bucket starts full (16 KiB, 50 ms of 1 Mbit/s is less) and refills at 125,000 B/s.
    assert.ok(passed >= 16_384 - 1000, `passed ${passed}`);
    assert.ok(passed <= 16_384 + 125_000 * seconds + 1000, `passed ${passed} in ${seconds} s`);
    assert.ok(c.dropUplinkAmbr - before.dropUplinkAmbr > 0);
  });

  it('polices the downlink AMBR too: datagrams from the data network beyond the bucket are dropped', async () => {
    const s = session({ uplinkBps: 0, downlinkBps: 1_000_000 });
    const before = upf.counters();
    const script = `const s = require('dgram').createSocket('udp4'); let n = 0;
      const next = () => n++ < 300 ? s.send(Buffer.alloc(1000), 9, '${s.ueIpv4}', next) : process.exit(0); next();`;
    const start = process.hrtime.bigint();
    await run('ip', ['netns', 'exec', DN_NAMESPACE, process.execPath, '-e', script]);
    await settle(
      upf,
      (c) => c.downlinkPackets + c.dropDownlinkAmbr >= before.downlinkPackets + before.dropDownlinkAmbr + 300,
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const c = upf.counters();
    const passed = c.downlinkBytes - before.downlinkBytes;
    assert.ok(passed >= 16_384 - 1028, `passed ${passed}`);
    assert.ok(passed <= 16_384 + 125_000 * seconds + 1028, `passed ${passed} in ${seconds} s`);
    assert.ok(c.dropDownlinkAmbr > before.dropDownlinkAmbr);
  });

  it('survives malformed and random datagrams (fixed-seed fuzz), counting them, and still answers', async () => {
    const s = session();
    const random = prng(17);
    const before = upf.counters();
    const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
    const cases: Uint8Array[] = [
      new Uint8Array(),
      Uint8Array.of(0x30),
      encodeGtpu({ type: 255, teid: s.uplinkTeid, payload: bytes(3) }).subarray(0, 7),
      // Length field beyond the datagram; an extension of length 0; an unknown required extension.
      Uint8Array.of(0x30, 255, 0, 200, 0, 0, 0, 1),
      Uint8Array.of(0x34, 255, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0x85, 0, 0, 0, 0),
      Uint8Array.of(0x34, 255, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0xe0, 1, 0, 0, 0),
      // GTPv2 and GTP' headers.
      Uint8Array.of(0x48, 32, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0),
      Uint8Array.of(0x20, 255, 0, 0, 0, 0, 0, 0),
      // A G-PDU for the session with a truncated inner IPv4 header, and one with a lying total length.
      encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 1, 1).subarray(0, 12)),
      encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 1, 1).subarray(0, 40)),
      // The largest datagram UDP carries.
      encodeUplinkGPdu(s.uplinkTeid, Buffer.alloc(65_507 - 16, 0x45)),
    ];
    for (let i = 0; i < 2000; i++) {
      const kind = i % 4;
      if (kind === 0) cases.push(bytes(Math.floor(random() * 64)));
      else if (kind === 1)
        cases.push(encodeGtpu({ type: 255, teid: s.uplinkTeid, payload: bytes(Math.floor(random() * 80)) }));
      else if (kind === 2) {
        const valid = encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 1, i));
        valid[Math.floor(random() * 16)] = Math.floor(random() * 256);
        cases.push(valid);
      } else
        cases.push(Uint8Array.of(0x30 | Math.floor(random() * 8), ...bytes(7 + Math.floor(random() * 40))));
    }
    for (const datagram of cases) gnb.send(datagram);
    await settle(upf, (c) => c.n3Received === before.n3Received + cases.length);
    const c = upf.counters();
    assert.ok(c.dropMalformed - before.dropMalformed >= 500, JSON.stringify(c));
    assert.ok(c.dropUnsupportedExtension > before.dropUnsupportedExtension);
    const echo = gnb.next(
      (r) => r.message.type === GtpuMessageType.echoResponse && r.message.sequence === 99,
      'echo',
    );
    gnb.send(encodeEchoRequest(99));
    await echo;
  });

  it('writes flow reports after 30 s without packets and adds usage every 30 s (read through the API)', async () => {
    const s = session();
    const replies: Promise<Received>[] = [];
    for (let i = 1; i <= 3; i++) {
      replies.push(gnb.next(downlinkTo(s.remoteTeid), `echo reply ${i}`));
      gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 21, i)));
      await replies[i - 1];
    }
    const rst = gnb.next(downlinkTo(s.remoteTeid), 'RST');
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, tcpSyn(s.ueIpv4, DN, 40010, 443)));
    await rst;
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho('192.0.2.66', DN, 22, 1)));
    await settle(upf, (c) => c.dropSpoofed > 0);
    await new Promise((r) => setTimeout(r, 20));

    clock.advance(1000); // the forwarder's counters drained into open flows
    assert.equal(upf.counters().openFlows >= 5, true);
    clock.advance(31_000); // 30 s without packets: reported; usage at the 30 s mark
    await t.records.flush();
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/flow-reports?subscriber_id=${s.imsi}&per_page=100`,
      token,
    });
    assert.equal(response.statusCode, 200, response.body);
    type Flow = {
      source_ip: string;
      destination_ip: string;
      source_port: number;
      destination_port: number;
      protocol: number;
      packets: number;
      bytes: number;
      direction: string;
      action: string;
    };
    const flows = result<{ items: Flow[] }>(response).items;
    const find = (f: Partial<Flow>) =>
      flows.filter((flow) => Object.entries(f).every(([k, v]) => flow[k as keyof Flow] === v));
    assert.equal(find({ direction: 'uplink', protocol: 1, action: 'allow' })[0]?.packets, 3);
    assert.equal(find({ direction: 'uplink', protocol: 1, action: 'allow' })[0]?.bytes, 3 * 60);
    assert.equal(find({ direction: 'downlink', protocol: 1, action: 'allow' })[0]?.packets, 3);
    assert.equal(
      find({ direction: 'uplink', protocol: 6, destination_port: 443, source_port: 40010 }).length,
      1,
    );
    assert.equal(
      find({ direction: 'downlink', protocol: 6, source_port: 443, destination_port: 40010 }).length,
      1,
    );
    assert.deepEqual(
      find({ action: 'drop' }).map((f) => [f.source_ip, f.direction, f.packets]),
      [['192.0.2.66', 'uplink', 1]],
    );
    const usage = await t.request({
      method: 'GET',
      url: `/api/v1/subscriber-usage?group_by=subscriber&subscriber=${s.imsi}`,
      token,
    });
    const rows = result<Record<string, { uplink_bytes: number; downlink_bytes: number }>[]>(usage);
    const mine = rows.map((row) => Object.values(row)[0]).filter((v) => v !== undefined);
    assert.deepEqual(mine, [{ uplink_bytes: 3 * 60 + 40, downlink_bytes: 3 * 60 + 40, total_bytes: 440 }]);
  });

  it('reports a session’s flows and usage at its release', async () => {
    const s = session();
    const reply = gnb.next(downlinkTo(s.remoteTeid), 'echo reply');
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 31, 1)));
    await reply;
    assert.ok(upf.release(s.id).ok);
    assert.equal(upf.session(s.id), undefined);
    await t.records.flush();
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/flow-reports?subscriber_id=${s.imsi}&per_page=100`,
      token,
    });
    const flows = result<{ items: { direction: string; packets: number }[] }>(response).items;
    assert.deepEqual(flows.map((f) => [f.direction, f.packets]).sort(), [
      ['downlink', 1],
      ['uplink', 1],
    ]);
    // Its TEID answers with an Error Indication now.
    const indication = gnb.next(
      (r) => r.message.type === GtpuMessageType.errorIndication,
      'error indication',
    );
    await new Promise((r) => setTimeout(r, 100)); // the error indication bucket refills (20 per second)
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 31, 2)));
    const ies = decodeErrorIndication((await indication).message.payload);
    assert.ok(ies.ok && ies.teid === s.uplinkTeid);
  });

  it('sends only GTP-U that tshark decodes without complaint', async () => {
    // Its own echo and G-PDU, so that it passes alone too.
    const echo = gnb.next((r) => r.message.type === GtpuMessageType.echoResponse, 'echo');
    gnb.send(encodeEchoRequest(1));
    await echo;
    const s = session();
    const reply = gnb.next(downlinkTo(s.remoteTeid), 'echo reply');
    gnb.send(encodeUplinkGPdu(s.uplinkTeid, icmpEcho(s.ueIpv4, DN, 41, 1)));
    await reply;
    const received = [...gnb.all, ...gnb2.all];
    // Raw IPv4 (LINKTYPE_RAW 101) around each datagram, so tshark finds GTP-U by UDP port 2152.
    const frames = received.map((r) => {
      const udp = Buffer.alloc(8);
      udp.writeUInt16BE(2152, 0);
      udp.writeUInt16BE(2152, 2);
      udp.writeUInt16BE(8 + r.bytes.length, 4);
      const header = Buffer.alloc(20);
      header[0] = 0x45;
      header.writeUInt16BE(28 + r.bytes.length, 2);
      header[8] = 64;
      header[9] = 17;
      header.set(r.from.split('.').map(Number), 12);
      header.set(r.to.split('.').map(Number), 16);
      header.writeUInt16BE(internetChecksum(header), 10);
      return Buffer.concat([header, udp, r.bytes]);
    });
    const rows = await tsharkFields(
      frames,
      [
        'gtp.message',
        'gtp.teid',
        'gtp.ext_hdr.pdu_ses_con.qos_flow_id',
        'gtp.teid_data',
        '_ws.malformed',
        '_ws.expert.severity',
        '_ws.expert.message',
      ],
      // The inner TCP segments' notes (a RST is a warning) are not the forwarder's.
      { linkType: 101, args: ['--disable-protocol', 'tcp'] },
    );
    rows.forEach(([type, teid, qfi, teidData, malformed, severities], i) => {
      const r = received[i]!;
      const line = rows[i]?.join(';');
      assert.equal(Number(type), r.message.type, line);
      assert.equal(Number(teid), r.message.teid, line);
      assert.equal(malformed, '', line);
      assert.ok(worstSeverity(severities) < EXPERT_WARNING, line);
      if (r.message.type === GtpuMessageType.gPdu) assert.equal(qfi, '1', line);
      if (r.message.type === GtpuMessageType.errorIndication) assert.notEqual(teidData, '', line);
    });
    assert.ok(received.some((r) => r.message.type === GtpuMessageType.gPdu));
  });
});
