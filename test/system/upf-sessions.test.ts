/**
 * Many sessions and many flows through the real forwarder (issue 17 items 2 and 5; docs/upf.md): every
 * session forwards an ICMP echo out and its reply back, releasing them all leaves no rule, flow or
 * session behind and their TEIDs and addresses are taken again; 100,000 distinct flows all reach the
 * records pipeline as flow reports, counted there. The benchmark (bench/upf.ts) runs the same with
 * 10,000 sessions. Needs root (namespace, TUN).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pino from 'pino';
import { decodeGtpu, encodeUplinkGPdu, GtpuMessageType } from '../helpers/gtpu-codec.ts';
import { createTeidAllocator } from '../../src/network/working-state/teid-allocator.ts';
import { loadUpfAddon } from '../../src/network/upf/upf-addon.ts';
import { createUpf, type Upf } from '../../src/network/upf/upf.ts';
import { createBatchingWriter } from '../../src/records/batching-writer.ts';
import { createRecordsIngestion, type RecordRows } from '../../src/records/ingestion.ts';
import { namespacesUnavailable, placeN6 } from '../helpers/netns.ts';
import { manualClock } from '../helpers/test-app.ts';
import { until } from '../helpers/until.ts';
import { icmpEcho, udpPacket } from '../network/upf/ip-packets.ts';

const run = promisify(execFile);
const load = loadUpfAddon();
const skip = namespacesUnavailable() ?? (load.ok ? undefined : load.error.message);

const x = 50 + (process.pid % 150);
const y = Math.floor(process.pid / 150) % 250;
const N3 = `127.${x}.${y}.1`;
const GNB = `127.${x}.${y}.2`;
const TUN = `pmns${process.pid % 100000}`;
const DN_NAMESPACE = `pmnses${process.pid % 100000}`;
const DN = '10.99.0.1';
const SESSIONS = 400;
const FLOWS = 100_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The real records pipeline (ingestion, batching writer with its bounded queue) over a store that counts. */
function countingRecords() {
  const stored = {
    flowReports: 0,
    udpPackets: 0,
    usageRows: 0,
    ports: new Set<number>(),
    /** Uplink UDP flows and their packets by subscriber. */
    udpBySubscriber: new Map<string, { flows: number; packets: number }>(),
  };
  const writer = createBatchingWriter<RecordRows>({
    logger: pino({ level: 'silent' }),
    options: { capacity: 20_000, batchSize: 2_000 },
    store: async (batch) => {
      await sleep(1);
      for (const row of batch.get('flow_reports') ?? []) {
        const report = row as RecordRows['flow_reports'];
        stored.flowReports++;
        if (report.protocol === 17 && report.direction === 'uplink') {
          stored.ports.add(report.source_port * 65536 + report.destination_port);
          stored.udpPackets += report.packets;
          const subscriber = stored.udpBySubscriber.get(report.subscriber_id) ?? { flows: 0, packets: 0 };
          subscriber.flows++;
          subscriber.packets += report.packets;
          stored.udpBySubscriber.set(report.subscriber_id, subscriber);
        }
      }
      stored.usageRows += (batch.get('subscriber_usage') ?? []).length;
    },
  });
  return { stored, ingestion: createRecordsIngestion({ writer, clock: { now: () => Date.now() } }) };
}

describe('UPF with many sessions and flows', { skip }, () => {
  const clock = manualClock(Date.now());
  const records = countingRecords();
  const teids = createTeidAllocator();
  let upf: Upf;
  let gnb: dgram.Socket;
  /** Sessions told to onDownlinkData (paging). */
  const paged: number[] = [];
  /** Downlink G-PDUs received by the gNB, by TEID. */
  const downlink = new Map<number, number>();

  before(async () => {
    await run('ip', ['netns', 'add', DN_NAMESPACE]);
    upf = createUpf({
      settings: {
        n3Address: N3,
        n3Port: 2152,
        tunName: TUN,
        maxSessions: 1024,
        maxFlows: 131_072,
        errorIndicationsPerSecond: 10,
      },
      records: records.ingestion,
      clock,
      timers: clock,
      onDownlinkData: (session) => paged.push(session.id),
    });
    upf.start();
    await placeN6(TUN, DN_NAMESPACE, { ipv4: DN, uePool: '10.45.0.0/16' });
    gnb = dgram.createSocket('udp4');
    gnb.on('message', (bytes) => {
      const decoded = decodeGtpu(bytes);
      if (decoded.ok && decoded.message.type === GtpuMessageType.gPdu) {
        downlink.set(decoded.message.teid, (downlink.get(decoded.message.teid) ?? 0) + 1);
      }
    });
    await new Promise<void>((resolve) => gnb.bind(2152, GNB, resolve));
    gnb.setRecvBufferSize(4 << 20);
  });

  after(async () => {
    gnb?.close();
    await upf?.stop();
    await records.ingestion.close();
    await run('ip', ['netns', 'del', DN_NAMESPACE]).catch(() => undefined);
  });

  const ueAddress = (i: number) => `10.45.${1 + (i >> 8)}.${i & 0xff}`;

  /** Establishes SESSIONS sessions on the given TEIDs, each with its downlink to the gNB. */
  function establishAll(uplinkTeids: number[]) {
    return uplinkTeids.map((uplinkTeid, i) => {
      const s = upf.establishSession({
        imsi: `00101${String(i).padStart(10, '0')}`,
        ueIpv4: ueAddress(i),
        uplinkTeid,
        ambr: { uplinkBps: 0, downlinkBps: 0 },
      });
      assert.ok(s.ok, `session ${i}: ${JSON.stringify(s)}`);
      assert.ok(upf.updateDownlink(s.value.id, { gnbAddress: GNB, remoteTeid: 0x10000 + i }).ok);
      return s.value;
    });
  }

  async function pingAll(uplinkTeids: number[], sequence: number) {
    const before = upf.counters();
    downlink.clear();
    uplinkTeids.forEach((teid, i) =>
      gnb.send(encodeUplinkGPdu(teid, icmpEcho(ueAddress(i), DN, i, sequence)), 2152, N3),
    );
    await until(
      'every reply at the gNB',
      () => upf.counters().downlinkPackets - before.downlinkPackets >= SESSIONS && downlink.size >= SESSIONS,
      () => JSON.stringify({ counters: upf.counters(), tunnels: downlink.size }),
    );
    const now = upf.counters();
    assert.equal(now.uplinkPackets - before.uplinkPackets, SESSIONS);
    assert.equal(now.downlinkPackets - before.downlinkPackets, SESSIONS);
    // Each reply came back in its own session's tunnel.
    assert.deepEqual(
      [...downlink.keys()].sort((a, b) => a - b),
      uplinkTeids.map((_, i) => 0x10000 + i),
    );
  }

  it(`establishes ${SESSIONS} sessions, forwards a packet each way on every one, releases all without a leak, and takes their TEIDs and addresses again`, async () => {
    const uplinkTeids = Array.from({ length: SESSIONS }, () => teids.allocate() ?? 0);
    const sessions = establishAll(uplinkTeids);
    assert.equal(upf.counters().sessions, SESSIONS);
    await pingAll(uplinkTeids, 1);
    assert.equal(upf.counters().openFlows, 2 * SESSIONS);

    const reportsBefore = upf.counters().flowReports;
    for (const s of sessions) assert.deepEqual(upf.release(s.id), { ok: true, value: undefined });
    const released = upf.counters();
    assert.deepEqual(
      [released.sessions, released.openFlows, released.endedFlows],
      [0, 0, 0],
      'no rule and no flow left in the forwarder',
    );
    assert.equal(released.flowReports + released.flowReportsPending - reportsBefore, 2 * SESSIONS);
    // A G-PDU on a released TEID is an unknown TEID now.
    gnb.send(encodeUplinkGPdu(uplinkTeids[0] ?? 0, icmpEcho(ueAddress(0), DN, 0, 9)), 2152, N3);
    await until(
      'the G-PDU on a released TEID dropped',
      () => upf.counters().dropUnknownTeid !== released.dropUnknownTeid,
      () => JSON.stringify(upf.counters()),
    );
    assert.equal(upf.counters().dropUnknownTeid, released.dropUnknownTeid + 1);

    // The SMF frees the TEIDs after release; the same TEIDs and addresses work again.
    for (const teid of uplinkTeids) teids.release(teid);
    const again = establishAll(uplinkTeids);
    await pingAll(uplinkTeids, 2);
    for (const s of again) assert.ok(upf.release(s.id).ok);
    for (const teid of uplinkTeids) teids.release(teid);
    assert.deepEqual([upf.counters().sessions, upf.counters().openFlows], [0, 0]);
    // Both rounds' flows (one each way per session) were written by the pipeline.
    await records.ingestion.flush();
    assert.equal(records.stored.flowReports, 4 * SESSIONS);
    assert.equal(records.stored.usageRows, 2 * SESSIONS, 'usage of every session at its release');
  });

  it('tells onDownlinkData of downlink data for an idle session once per idle period (the packets are buffered)', async () => {
    const teid = teids.allocate() ?? 0;
    const s = upf.establishSession({
      imsi: '001010000088888',
      ueIpv4: '10.45.201.1',
      uplinkTeid: teid,
      ambr: { uplinkBps: 0, downlinkBps: 0 },
    });
    assert.ok(s.ok);
    const id = s.value.id;
    assert.ok(upf.updateDownlink(id, { gnbAddress: GNB, remoteTeid: 0x7777 }).ok);
    assert.ok(upf.deactivate(id).ok);
    const before = upf.counters();
    // Uplink still passes while idle; the data network's echo replies are downlink data for it.
    const echo = async (sequence: number, buffered: number) => {
      gnb.send(encodeUplinkGPdu(teid, icmpEcho('10.45.201.1', DN, 77, sequence)), 2152, N3);
      await until(
        `${buffered} replies buffered`,
        () => upf.counters().downlinkBuffered >= before.downlinkBuffered + buffered,
        () => JSON.stringify(upf.counters()),
      );
      assert.equal(upf.counters().downlinkBuffered, before.downlinkBuffered + buffered);
    };
    await echo(1, 1);
    await echo(2, 2);
    assert.deepEqual(paged, []);
    clock.advance(100);
    assert.deepEqual(paged, [id], 'once for both packets');
    assert.equal(downlink.get(0x7777), undefined, 'nothing reached the gNB while idle');
    // Active again (the two buffered replies go down the tunnel), then idle again: the next downlink
    // data is told again.
    assert.ok(upf.updateDownlink(id, { gnbAddress: GNB, remoteTeid: 0x7777 }).ok);
    await until(
      'the two buffered replies at the gNB',
      () => (downlink.get(0x7777) ?? 0) >= 2,
      () => JSON.stringify(upf.counters()),
    );
    assert.equal(downlink.get(0x7777), 2);
    assert.ok(upf.deactivate(id).ok);
    await echo(3, 3);
    clock.advance(100);
    assert.deepEqual(paged, [id, id]);
    assert.equal(upf.counters().downlinkDataNotifications, 2);
    assert.ok(upf.release(id).ok);
    teids.release(teid);
  });

  it('keeps flows apart and whole while sessions are released between packets (the table under churn)', async () => {
    const count = 40;
    const imsi = (i: number) => `0010100000${String(70000 + i)}`;
    const address = (i: number) => `10.45.210.${i + 1}`;
    const uplinkTeids = Array.from({ length: count }, () => teids.allocate() ?? 0);
    const ids = uplinkTeids.map((uplinkTeid, i) => {
      const s = upf.establishSession({
        imsi: imsi(i),
        ueIpv4: address(i),
        uplinkTeid,
        ambr: { uplinkBps: 0, downlinkBps: 0 },
      });
      assert.ok(s.ok);
      return s.value.id;
    });
    const send = async (sessions: number[], ports: number) => {
      const before = upf.counters().uplinkPackets;
      for (const i of sessions) {
        for (let port = 0; port < ports; port++) {
          // To port 7: the 100,000-flow test counts port pairs to ports 9 and 10.
          const packet = udpPacket(address(i), DN, 20000 + port, 7, Buffer.alloc(8));
          gnb.send(encodeUplinkGPdu(uplinkTeids[i] ?? 0, packet), 2152, N3);
        }
      }
      const expected = before + sessions.length * ports;
      await until(
        `${expected} uplink packets`,
        () => upf.counters().uplinkPackets >= expected,
        () => JSON.stringify(upf.counters()),
        { everyMs: 5 },
      );
      assert.equal(upf.counters().uplinkPackets, expected);
    };
    const all = [...Array(count).keys()];
    const even = all.filter((i) => i % 2 === 0);
    const odd = all.filter((i) => i % 2 === 1);
    await send(all, 30);
    clock.advance(1000);
    for (const i of even) assert.ok(upf.release(ids[i] ?? 0).ok);
    // The odd sessions' 30 flows go on (a second packet each) and 10 new ones open beside them.
    await send(odd, 40);
    clock.advance(31_000);
    await records.ingestion.flush();
    for (const i of all) {
      assert.deepEqual(
        records.stored.udpBySubscriber.get(imsi(i)),
        i % 2 === 0 ? { flows: 30, packets: 30 } : { flows: 40, packets: 70 },
        `session ${i}`,
      );
    }
    for (const i of odd) assert.ok(upf.release(ids[i] ?? 0).ok);
    for (const teid of uplinkTeids) teids.release(teid);
    assert.deepEqual([upf.counters().openFlows, upf.counters().endedFlows], [0, 0]);
  });

  it(`counts ${FLOWS.toLocaleString('en')} concurrent flows and every one reaches the records pipeline as a flow report`, async () => {
    const teid = teids.allocate() ?? 0;
    const s = upf.establishSession({
      imsi: '001010000099999',
      ueIpv4: '10.45.200.1',
      uplinkTeid: teid,
      ambr: { uplinkBps: 0, downlinkBps: 0 },
    });
    assert.ok(s.ok);
    // Active, so that the data network's ICMP answers are forwarded (an inactive session would buffer
    // them until they expire, and their drop flow would end 30 s after that).
    assert.ok(upf.updateDownlink(s.value.id, { gnbAddress: GNB, remoteTeid: 0x6666 }).ok);
    await records.ingestion.flush();
    const storedBefore = records.stored.flowReports;
    const reportsBefore = upf.counters().flowReports;
    const portsBefore = records.stored.ports.size;
    const packetsBefore = records.stored.udpPackets;
    const before = upf.counters();
    const base = Buffer.from(encodeUplinkGPdu(teid, udpPacket('10.45.200.1', DN, 1024, 9, Buffer.alloc(8))));
    // Distinct (source port, destination port) per datagram; paced by what the forwarder received, so
    // that none is lost at the socket's receive buffer.
    for (let i = 0; i < FLOWS;) {
      for (const end = Math.min(FLOWS, i + 2000); i < end; i++) {
        const d = Buffer.from(base);
        d.writeUInt16BE(1024 + (i % 50_000), 36);
        d.writeUInt16BE(9 + Math.floor(i / 50_000), 38);
        d.writeUInt16BE(0, 42); // no UDP checksum (IPv4 allows it)
        gnb.send(d, 2152, N3);
      }
      await until(
        `${i} flows' packets counted`,
        () => upf.counters().uplinkPackets - before.uplinkPackets >= i,
        () => JSON.stringify(upf.counters()),
        { everyMs: 2 },
      );
    }
    const counted = upf.counters();
    assert.equal(
      counted.uplinkPackets - before.uplinkPackets,
      FLOWS,
      JSON.stringify({
        received: counted.n3Received - before.n3Received,
        n6: counted.dropN6Write - before.dropN6Write,
      }),
    );
    // The data network's kernel answers some with ICMP port unreachable (rate-limited): downlink flows.
    assert.ok(counted.openFlows >= FLOWS, `${counted.openFlows} open flows`);
    assert.equal(counted.flowTableFull, before.flowTableFull);

    // 31 s without packets: every flow ends; the pipeline's queue (20,000) is smaller than what ends,
    // so the reports wait for room in the forwarder's table and none is lost.
    clock.advance(31_000);
    await until(
      'every uplink flow reported',
      () => records.stored.ports.size - portsBefore >= FLOWS,
      () => `${records.stored.ports.size - portsBefore} of ${FLOWS}`,
    );
    await records.ingestion.flush();
    assert.equal(records.stored.ports.size - portsBefore, FLOWS, 'every uplink flow reported, each once');
    assert.equal(records.stored.udpPackets - packetsBefore, FLOWS);
    const done = upf.counters();
    assert.ok(done.flowReports - reportsBefore >= counted.openFlows);
    assert.equal(records.stored.flowReports - storedBefore, done.flowReports - reportsBefore, 'all stored');
    assert.deepEqual([done.openFlows, done.endedFlows, done.flowReportsPending], [0, 0, 0]);
    assert.ok(upf.release(s.value.id).ok);
    teids.release(teid);
  });
});
