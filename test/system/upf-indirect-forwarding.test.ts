/**
 * The UPF's indirect data forwarding rule (TS 23.502 4.9.1.3.2 step 11, 4.9.1.3.3; docs/upf.md
 * "Indirect data forwarding") with real packets: a "source gNB" socket sends G-PDUs and an End Marker
 * to the forwarding TEID, a "target gNB" socket gets them in its DL forwarding tunnel, in order, with
 * their QFI. The forwarder's TUN stays in this namespace, down: forwarding is N3 to N3. Needs root (TUN).
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import {
  decodeGtpu,
  encodeGtpu,
  GtpuMessageType,
  pduSessionContainer,
  readPduSessionContainer,
  type GtpuMessage,
} from '../helpers/gtpu-codec.ts';
import { loadUpfAddon } from '../../src/network/upf/upf-addon.ts';
import { createUpf, type Upf, type UpfRecords } from '../../src/network/upf/upf.ts';
import { namespacesUnavailable } from '../helpers/netns.ts';
import { manualClock } from '../helpers/test-app.ts';
import { udpPacket } from '../network/upf/ip-packets.ts';

const load = loadUpfAddon();
const skip = namespacesUnavailable() ?? (load.ok ? undefined : load.error.message);

// Addresses and names from the process id, so files run at the same time never collide.
const x = 50 + (process.pid % 150);
const y = 1 + (Math.floor(process.pid / 150) % 250);
const N3 = `127.${x}.${y}.1`;
const SOURCE = `127.${x}.${y}.2`;
const TARGET = `127.${x}.${y}.3`;
const TUN = `pmnf${process.pid % 100000}`;

const records: UpfRecords = {
  recordFlowReports: () => true,
  recordUsage: () => true,
  whenWritable: () => Promise.resolve(),
};

/** A gNB's N3 socket: keeps what it receives and lets a test wait for a count of messages. */
async function gnbSocket(address: string) {
  const socket = dgram.createSocket('udp4');
  const received: GtpuMessage[] = [];
  let waiter: { n: number; resolve: () => void } | undefined;
  socket.on('message', (bytes) => {
    const decoded = decodeGtpu(bytes);
    assert.ok(decoded.ok, `an undecodable datagram: ${bytes.toString('hex')}`);
    received.push(decoded.message);
    if (waiter !== undefined && received.length >= waiter.n) waiter.resolve();
  });
  await new Promise<void>((resolve) => socket.bind(2152, address, resolve));
  return {
    received,
    send: (bytes: Uint8Array) => socket.send(bytes, 2152, N3),
    /** Resolves once `n` messages came in all (rejects after 20 s, which only a defect reaches). */
    count(n: number): Promise<void> {
      if (received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${received.length} of ${n} messages`)), 20_000);
        waiter = {
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
    close: () => socket.close(),
  };
}

/** A downlink packet numbered `n` in its UDP payload (what the source still holds for the UE). */
const numbered = (n: number): Uint8Array =>
  udpPacket('10.99.0.1', '10.45.0.2', 5000, 6000, Buffer.from(`seq ${n}`));

const sequenceOf = (m: GtpuMessage): number =>
  Number(Buffer.from(m.payload.subarray(28)).toString().slice(4));

describe('UPF indirect data forwarding', { skip }, () => {
  let upf: Upf;
  let source: Awaited<ReturnType<typeof gnbSocket>>;
  let target: Awaited<ReturnType<typeof gnbSocket>>;
  const clock = manualClock(Date.now());
  let nextTeid = 0x100;

  function session(): number {
    nextTeid += 1;
    const established = upf.establishSession({
      imsi: '001010000000001',
      ueIpv4: `10.45.1.${nextTeid % 250}`,
      uplinkTeid: nextTeid,
      ambr: { uplinkBps: 0, downlinkBps: 0 },
    });
    assert.ok(established.ok);
    return established.value.id;
  }

  before(async () => {
    upf = createUpf({
      settings: {
        n3Address: N3,
        n3Port: 2152,
        tunName: TUN,
        maxSessions: 16,
        maxFlows: 64,
        errorIndicationsPerSecond: 100,
      },
      records,
      clock,
      timers: clock,
    });
    upf.start();
    source = await gnbSocket(SOURCE);
    target = await gnbSocket(TARGET);
  });

  after(async () => {
    source?.close();
    target?.close();
    await upf?.stop();
  });

  it('sends what the source forwards on to the target, in order, with its QFI, then the End Marker', async () => {
    const id = session();
    const tunnels = upf.counters().forwardingTunnels;
    const counted = upf.counters();
    const created = upf.createForwarding(id, { gnbAddress: TARGET, remoteTeid: 0xabc, qfi: 5 });
    assert.ok(created.ok);
    const teid = created.value;
    assert.equal(upf.counters().forwardingTunnels, tunnels + 1);
    const before = target.received.length;
    // The source forwards with its own PDU Session Container (QFI 9) or none (the flow's QFI 5).
    for (let n = 0; n < 200; n++)
      source.send(
        encodeGtpu({
          type: GtpuMessageType.gPdu,
          teid,
          ...(n % 2 === 0 && { extensions: [pduSessionContainer(0, 9)] }),
          payload: numbered(n),
        }),
      );
    source.send(encodeGtpu({ type: GtpuMessageType.endMarker, teid }));
    await target.count(before + 201);
    const got = target.received.slice(before);
    const pdus = got.slice(0, 200);
    assert.ok(pdus.every((m) => m.type === GtpuMessageType.gPdu && m.teid === 0xabc));
    assert.deepEqual(
      pdus.map(sequenceOf),
      Array.from({ length: 200 }, (_, n) => n),
      'every packet once, in order',
    );
    assert.deepEqual(readPduSessionContainer(pdus[0] as GtpuMessage), { pduType: 0, qfi: 9 });
    assert.deepEqual(readPduSessionContainer(pdus[1] as GtpuMessage), { pduType: 0, qfi: 5 });
    assert.deepEqual(
      [got[200]?.type, got[200]?.teid],
      [GtpuMessageType.endMarker, 0xabc],
      'the End Marker after the forwarded packets',
    );
    const c = upf.counters();
    assert.equal(c.forwardedPackets - counted.forwardedPackets, 200);
    assert.equal(c.forwardedEndMarkers - counted.forwardedEndMarkers, 1);
    assert.equal(c.uplinkPackets, counted.uplinkPackets, 'forwarded packets are not uplink');
    assert.deepEqual(upf.removeForwarding(id), { ok: true, value: undefined });
    assert.equal(upf.counters().forwardingTunnels, tunnels);
    // Its TEID is unknown now: the source gets an Error Indication, the target nothing.
    const sourceBefore = source.received.length;
    source.send(encodeGtpu({ type: GtpuMessageType.gPdu, teid, payload: numbered(999) }));
    await source.count(sourceBefore + 1);
    assert.equal(source.received.at(-1)?.type, GtpuMessageType.errorIndication);
    assert.equal(target.received.length, before + 201);
    assert.ok(upf.release(id).ok);
  });

  it("goes with its session's release, and a new one replaces the old", async () => {
    const id = session();
    const tunnels = upf.counters().forwardingTunnels;
    const first = upf.createForwarding(id, { gnbAddress: TARGET, remoteTeid: 1 });
    const second = upf.createForwarding(id, { gnbAddress: TARGET, remoteTeid: 2 });
    assert.ok(first.ok && second.ok);
    assert.notEqual(first.value, second.value);
    assert.equal(upf.counters().forwardingTunnels, tunnels + 1);
    assert.ok(upf.release(id).ok);
    assert.equal(upf.counters().forwardingTunnels, tunnels);
  });

  it('refuses an unknown session and a bad target', () => {
    assert.deepEqual(upf.createForwarding(9999, { gnbAddress: TARGET, remoteTeid: 1 }), {
      ok: false,
      error: 'unknown-session',
    });
    const id = session();
    const tunnels = upf.counters().forwardingTunnels;
    assert.deepEqual(upf.createForwarding(id, { gnbAddress: 'gnb', remoteTeid: 1 }), {
      ok: false,
      error: 'invalid',
    });
    assert.deepEqual(upf.createForwarding(id, { gnbAddress: '::1', remoteTeid: 1 }), {
      ok: false,
      error: 'family-mismatch',
    });
    assert.equal(upf.counters().forwardingTunnels, tunnels);
    assert.ok(upf.release(id).ok);
  });
});
