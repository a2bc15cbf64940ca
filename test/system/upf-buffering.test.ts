/**
 * Downlink buffering in the UPF's forwarder (TS 23.501 5.8.3.2; docs/upf.md "Downlink buffering"), with
 * real packets: the data network's kernel sends UDP datagrams to the addresses of inactive sessions
 * through the N6 TUN; a UDP socket plays the gNB. Order and content after reactivation, the per-session
 * bounds in packets and octets, the pool shared by all sessions, expiry on the core's clock, release,
 * and the flow reports each outcome makes (network.md 7: forwarded packets `allow`, dropped ones `drop`).
 * Then the whole round trip: a ping from the data network to an idle UE (a simulated gNB's user plane
 * and the UE's own IP stack in a namespace) is answered once the downlink data notice brought a new gNB
 * tunnel and the UPF's downlink was set to it, as after paging and a Service Request (the gNB holding
 * the flushed echo request until the UE's TUN is configured). Root.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createGnbUserPlane, type GnbUserPlane } from '../../src/simulator/user-plane/gnb-user-plane.ts';
import { loadGnbUserPlaneAddon } from '../../src/simulator/user-plane/gnb-user-plane-addon.ts';
import { decodeGtpu, GtpuMessageType, readPduSessionContainer } from '../helpers/gtpu-codec.ts';
import { createTeidAllocator } from '../../src/network/working-state/teid-allocator.ts';
import { loadUpfAddon } from '../../src/network/upf/upf-addon.ts';
import { createUpf, DOWNLINK_BUFFER_MS, type Upf, type UpfCounters } from '../../src/network/upf/upf.ts';
import type { FlowReportInput } from '../../src/records/record-inputs.ts';
import { namespacesUnavailable, placeN6 } from '../helpers/netns.ts';
import { manualClock } from '../helpers/test-app.ts';
import { until } from '../helpers/until.ts';
import { readIpv4 } from '../network/upf/ip-packets.ts';

const run = promisify(execFile);
const upfAddon = loadUpfAddon();
const gnbAddon = loadGnbUserPlaneAddon();
const skip =
  namespacesUnavailable() ??
  (!upfAddon.ok ? upfAddon.error.message : !gnbAddon.ok ? gnbAddon.error.message : undefined);

const tag = process.pid % 100000;
const x = 50 + (process.pid % 150);
const y = Math.floor(process.pid / 150) % 250;
const N3 = `127.${x}.${y}.1`;
const GNB = `127.${x}.${y}.2`;
const GNB_UP = `127.${x}.${y}.3`;
const TUN = `u6bn${tag}`;
const DN_NAMESPACE = `u6bd${tag}`;
const UE_NAMESPACE = `u6bu${tag}`;
const DN = '10.99.0.1';
/** The per-session and pool bounds of native/upf/downlink-buffer.h. */
const SESSION_PACKETS = 16;
const SESSION_BYTES = 32768;
const POOL_CELLS = 2048;
const CELL = 2048;

/**
 * Sends UDP datagrams from the data network, in order: `count` to each address, payload `size` octets
 * starting with the datagram's index (u32) and filled with its low octet.
 */
async function sendFromDataNetwork(addresses: string[], count: number, size: number): Promise<void> {
  const script = `
    const s = require('dgram').createSocket('udp4');
    const [addresses, count, size] = ${JSON.stringify([addresses, count, size])};
    (async () => {
      for (const address of addresses)
        for (let i = 0; i < count; i++) {
          const d = Buffer.alloc(size, i & 0xff);
          d.writeUInt32BE(i, 0);
          await new Promise((resolve, reject) => s.send(d, 7000, address, (e) => (e ? reject(e) : resolve())));
        }
      s.close();
    })();`;
  await run('ip', ['netns', 'exec', DN_NAMESPACE, process.execPath, '-e', script]);
}

/** Waits (polling) until the counters satisfy `done`; asserts it. */
async function settle(upf: Upf, done: (c: UpfCounters) => boolean, what: string): Promise<UpfCounters> {
  return until(
    what,
    () => {
      const c = upf.counters();
      return done(c) && c;
    },
    () => JSON.stringify(upf.counters()),
  );
}

describe('UPF downlink buffering for inactive sessions', { skip }, () => {
  const clock = manualClock(Date.now());
  const teids = createTeidAllocator();
  const reports: FlowReportInput[] = [];
  const paged: number[] = [];
  /** Downlink G-PDUs at the gNB socket: TEID, QFI and the inner packet. */
  const received: { teid: number; qfi: number | undefined; packet: Uint8Array }[] = [];
  let upf: Upf;
  let gnb: dgram.Socket;
  let imsiCounter = 0;

  /** An inactive session (no downlink tunnel yet) at `10.45.<n>.<m>`. */
  const session = (index: number) => {
    imsiCounter++;
    const ueIpv4 = `10.45.${1 + (index >> 8)}.${index & 0xff}`;
    const imsi = `0010100000${String(imsiCounter).padStart(5, '0')}`;
    const uplinkTeid = teids.allocate() ?? 0;
    const s = upf.establishSession({ imsi, ueIpv4, uplinkTeid, ambr: { uplinkBps: 0, downlinkBps: 0 } });
    assert.ok(s.ok, JSON.stringify(s));
    return { id: s.value.id, imsi, ueIpv4, uplinkTeid };
  };
  const release = (s: { id: number; uplinkTeid: number }) => {
    assert.ok(upf.release(s.id).ok);
    teids.release(s.uplinkTeid);
  };
  /** The UDP payloads the gNB got for a TEID, as their indexes (checking each one's fill). */
  const indexesAt = (teid: number): number[] =>
    received
      .filter((r) => r.teid === teid)
      .map((r) => {
        const payload = Buffer.from(r.packet.subarray(28));
        const index = payload.readUInt32BE(0);
        assert.ok(
          payload.subarray(4).every((octet) => octet === (index & 0xff)),
          'content intact',
        );
        return index;
      });
  const reportsOf = (imsi: string) =>
    reports
      .filter((r) => r.subscriberId === imsi)
      .map((r) => [r.direction, r.action, r.protocol, r.destinationPort, r.packets, r.bytes]);

  before(async () => {
    await run('ip', ['netns', 'add', DN_NAMESPACE]);
    upf = createUpf({
      settings: {
        n3Address: N3,
        n3Port: 2152,
        tunName: TUN,
        maxSessions: 256,
        maxFlows: 4096,
        errorIndicationsPerSecond: 10,
      },
      records: {
        recordFlowReports: (r) => (reports.push(...r), true),
        recordUsage: () => true,
        whenWritable: () => Promise.resolve(),
      },
      clock,
      timers: clock,
      onDownlinkData: (s) => paged.push(s.id),
    });
    upf.start();
    await placeN6(TUN, DN_NAMESPACE, { ipv4: DN, uePool: '10.45.0.0/16' });
    // Datagrams of 8,000 octets in one IP packet each, and bursts to many sessions without loss at
    // the TUN's queue.
    await run('ip', ['-n', DN_NAMESPACE, 'link', 'set', TUN, 'mtu', '9000', 'txqueuelen', '4000']);
    gnb = dgram.createSocket('udp4');
    gnb.on('message', (bytes) => {
      const decoded = decodeGtpu(bytes);
      if (decoded.ok && decoded.message.type === GtpuMessageType.gPdu)
        received.push({
          teid: decoded.message.teid,
          qfi: readPduSessionContainer(decoded.message)?.qfi,
          packet: decoded.message.payload,
        });
    });
    await new Promise<void>((resolve) => gnb.bind(2152, GNB, resolve));
    gnb.setRecvBufferSize(4 << 20);
  });

  after(async () => {
    gnb?.close();
    await upf?.stop();
    await run('ip', ['netns', 'del', DN_NAMESPACE]).catch(() => undefined);
  });

  it('buffers while inactive and sends the packets down the new tunnel in order once it is set; allow flows, paged once', async () => {
    const s = session(1);
    const before = upf.counters();
    await sendFromDataNetwork([s.ueIpv4], 10, 100);
    await settle(upf, (c) => c.downlinkBuffered === before.downlinkBuffered + 10, 'buffered');
    assert.equal(upf.counters().bufferedPackets, 10);
    clock.advance(100);
    assert.deepEqual(paged, [s.id], 'one notice for ten packets');
    assert.equal(received.length, 0, 'nothing reached the gNB while inactive');

    assert.ok(upf.updateDownlink(s.id, { gnbAddress: GNB, remoteTeid: 0x5001, qfi: 5 }).ok);
    await settle(upf, (c) => c.downlinkBufferFlushed === before.downlinkBufferFlushed + 10, 'flushed');
    await until(
      'ten packets at the gNB',
      () => received.length >= 10,
      () => `${received.length}`,
    );
    assert.deepEqual(indexesAt(0x5001), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.ok(received.every((r) => r.qfi === 5 && readIpv4(r.packet).destination === s.ueIpv4));
    // The next packet follows them down the same tunnel.
    await sendFromDataNetwork([s.ueIpv4], 1, 100);
    await until(
      'the eleventh packet at the gNB',
      () => received.length >= 11,
      () => `${received.length}`,
    );
    assert.deepEqual(indexesAt(0x5001), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
    const c = upf.counters();
    assert.deepEqual(
      [
        c.bufferedPackets,
        c.downlinkPackets - before.downlinkPackets,
        c.dropBufferFull - before.dropBufferFull,
      ],
      [0, 11, 0],
    );
    release(s);
    // Two flows: the second send came from another source port.
    assert.deepEqual(reportsOf(s.imsi).sort(), [
      ['downlink', 'allow', 17, 7000, 1, 128],
      ['downlink', 'allow', 17, 7000, 10, 10 * 128],
    ]);
  });

  it('holds at most 16 packets and 32 KiB per session: the rest are drop flows; what fits is sent whole', async () => {
    const byCount = session(2);
    const bySize = session(3);
    const before = upf.counters();
    await sendFromDataNetwork([byCount.ueIpv4], SESSION_PACKETS + 4, 100);
    // 8,028-octet IP packets (four cells each): four fit in 32 KiB, the fifth would not.
    await sendFromDataNetwork([bySize.ueIpv4], 6, 8000);
    const fit = Math.floor(SESSION_BYTES / 8028);
    await settle(
      upf,
      (c) =>
        c.downlinkBuffered - before.downlinkBuffered === SESSION_PACKETS + fit &&
        c.dropBufferFull - before.dropBufferFull === 4 + 6 - fit,
      'bounded',
    );
    assert.ok(upf.updateDownlink(byCount.id, { gnbAddress: GNB, remoteTeid: 0x5002 }).ok);
    assert.ok(upf.updateDownlink(bySize.id, { gnbAddress: GNB, remoteTeid: 0x5003 }).ok);
    await until(
      'the buffered packets at the gNB',
      () => indexesAt(0x5002).length + indexesAt(0x5003).length >= SESSION_PACKETS + fit,
      () => JSON.stringify({ 0x5002: indexesAt(0x5002), 0x5003: indexesAt(0x5003) }),
    );
    assert.deepEqual(
      indexesAt(0x5002),
      Array.from({ length: SESSION_PACKETS }, (_, i) => i),
    );
    assert.deepEqual(indexesAt(0x5003), [0, 1, 2, 3]);
    assert.ok(received.filter((r) => r.teid === 0x5003).every((r) => r.packet.length === 8028));
    release(byCount);
    release(bySize);
    assert.deepEqual(reportsOf(byCount.imsi).sort(), [
      ['downlink', 'allow', 17, 7000, SESSION_PACKETS, SESSION_PACKETS * 128],
      ['downlink', 'drop', 17, 7000, 4, 4 * 128],
    ]);
    assert.deepEqual(reportsOf(bySize.imsi).sort(), [
      ['downlink', 'allow', 17, 7000, fit, fit * 8028],
      ['downlink', 'drop', 17, 7000, 6 - fit, (6 - fit) * 8028],
    ]);
  });

  it('shares one pool of 4 MiB among all sessions; releasing a session drops what it held', async () => {
    // Four 8,028-octet packets take 16 cells: 128 sessions fill the pool, two more find it full.
    const perSession = 4;
    const sessions = Array.from({ length: POOL_CELLS / (perSession * Math.ceil(8028 / CELL)) + 2 }, (_, i) =>
      session(16 + i),
    );
    const before = upf.counters();
    await sendFromDataNetwork(
      sessions.map((s) => s.ueIpv4),
      perSession,
      8000,
    );
    const held = (sessions.length - 2) * perSession;
    await settle(
      upf,
      (c) =>
        c.downlinkBuffered - before.downlinkBuffered === held &&
        c.dropBufferFull - before.dropBufferFull === 2 * perSession,
      'pool full',
    );
    assert.equal(upf.counters().bufferedPackets, held);
    for (const s of sessions) release(s);
    const c = upf.counters();
    assert.deepEqual([c.bufferedPackets, c.dropBufferReleased - before.dropBufferReleased], [0, held]);
    // Each session: one drop flow with what it held or what the full pool refused.
    for (const s of sessions)
      assert.deepEqual(reportsOf(s.imsi), [['downlink', 'drop', 17, 7000, 4, 4 * 8028]]);
  });

  it(`drops what waited ${DOWNLINK_BUFFER_MS / 1000} s on the core's clock (drop flows), not before`, async () => {
    const s = session(200);
    const before = upf.counters();
    await sendFromDataNetwork([s.ueIpv4], 3, 100);
    await settle(upf, (c) => c.downlinkBuffered === before.downlinkBuffered + 3, 'buffered');
    // The packets take the time of the tick before them: at most one interval (1 s) earlier than now.
    clock.advance(DOWNLINK_BUFFER_MS - 2000);
    assert.deepEqual(
      [upf.counters().bufferedPackets, upf.counters().dropBufferExpired],
      [3, before.dropBufferExpired],
    );
    clock.advance(3000);
    const c = upf.counters();
    assert.deepEqual([c.bufferedPackets, c.dropBufferExpired - before.dropBufferExpired], [0, 3]);
    // Reactivation finds nothing to send.
    assert.ok(upf.updateDownlink(s.id, { gnbAddress: GNB, remoteTeid: 0x5004 }).ok);
    assert.equal(upf.counters().downlinkBufferFlushed, before.downlinkBufferFlushed);
    release(s);
    assert.deepEqual(reportsOf(s.imsi), [['downlink', 'drop', 17, 7000, 3, 3 * 128]]);
  });

  describe('a ping to an idle UE', () => {
    let gnbUp: GnbUserPlane;
    before(async () => {
      await run('ip', ['netns', 'add', UE_NAMESPACE]);
      await run('ip', ['-n', UE_NAMESPACE, 'link', 'set', 'lo', 'up']);
      gnbUp = createGnbUserPlane({ n3Address: GNB_UP });
    });
    after(async () => {
      gnbUp?.close();
      await run('ip', ['netns', 'del', UE_NAMESPACE]).catch(() => undefined);
    });

    it('is answered after the downlink data notice brings the tunnel back (as paging and a Service Request would)', async () => {
      const s = session(300);
      const tunnel = (downlinkTeid: number) =>
        gnbUp.bringUp(
          {
            pduSessionId: 1,
            ueIpv4: s.ueIpv4,
            qfi: 1,
            upfAddress: N3,
            uplinkTeid: s.uplinkTeid,
            downlinkTeid,
          },
          { namespace: UE_NAMESPACE },
        );
      const first = await tunnel(0x6001);
      assert.ok(first.ok, JSON.stringify(first));
      assert.ok(upf.updateDownlink(s.id, { gnbAddress: GNB_UP, remoteTeid: 0x6001 }).ok);
      // The device goes idle: the gNB's tunnel and the UE's TUN go, the UPF's downlink is deactivated.
      first.value.release();
      assert.ok(upf.deactivate(s.id).ok);
      paged.length = 0;
      const before = upf.counters();

      const ping = run('ip', [
        'netns',
        'exec',
        DN_NAMESPACE,
        'busybox',
        'ping',
        '-c',
        '1',
        '-W',
        '8',
        s.ueIpv4,
      ]);
      await settle(upf, (c) => c.downlinkBuffered === before.downlinkBuffered + 1, 'echo request buffered');
      clock.advance(100);
      assert.deepEqual(paged, [s.id]);
      // The UE answers paging; its Service Request brings a new gNB tunnel, whose TEID reaches the UPF
      // (Initial Context Setup Response, TS 23.502 4.2.3.2 steps 12-14) while the UE's TUN is still
      // being configured, as with the simulated gNB on N2: the gNB holds the flushed packet until then.
      const second = tunnel(0x6002);
      assert.ok(upf.updateDownlink(s.id, { gnbAddress: GNB_UP, remoteTeid: 0x6002 }).ok);
      const up = await second;
      assert.ok(up.ok, JSON.stringify(up));
      const { stdout } = await ping;
      assert.match(stdout, /1 packets transmitted, 1 packets received/);
      const c = upf.counters();
      assert.deepEqual(
        [c.downlinkBufferFlushed - before.downlinkBufferFlushed, c.uplinkPackets - before.uplinkPackets],
        [1, 1],
      );
      up.value.release();
      release(s);
      assert.deepEqual(reportsOf(s.imsi).sort(), [
        ['downlink', 'allow', 1, 0, 1, 84],
        ['uplink', 'allow', 1, 0, 1, 84],
      ]);
    });
  });
});
