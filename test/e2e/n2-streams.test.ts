import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ueNgapIdsOf } from '../../src/network/ngap/ue-ngap-ids.ts';
import type { NgapExchange, SimulatedGnb } from '../../src/simulator/gnb.ts';
import { uplinkNasTransport } from '../../src/simulator/ue/ran-ue-messages.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * SCTP stream ids on N2 end to end (TS 38.412 7; docs/interop.md): the real service over udp and a
 * simulated gNB that opens its association with unequal stream counts in either direction, as real gNBs
 * do. Stream 0 carries the procedures without a UE only; each UE's messages go on one other stream, both
 * ways, for its whole UE-associated logical NG-connection; an answer on the radio's stream fits the streams
 * the AMF may use. The strict gNB (GnbOptions.strict) checks the AMF's side as it goes; tshark reads every
 * PDU the gNB received.
 */

/** The stream of each UE's PDUs in `exchanges`, by the id that names the UE on that side. */
function streamsByUe(exchanges: readonly NgapExchange[], key: 'ranUeNgapId' | 'amfUeNgapId') {
  const streams = new Map<number, Set<number>>();
  for (const exchange of exchanges) {
    if (exchange.pdu === undefined || exchange.messageType === 'ErrorIndication') continue;
    const id = ueNgapIdsOf(exchange.pdu)[key];
    if (id === undefined) continue;
    const seen = streams.get(id) ?? new Set<number>();
    seen.add(exchange.streamId);
    streams.set(id, seen);
  }
  return streams;
}

/** Non-UE PDUs (no UE NGAP id) went on stream 0, each UE's on one stream other than 0. */
function assertStreams(exchanges: readonly NgapExchange[], key: 'ranUeNgapId' | 'amfUeNgapId'): number[] {
  for (const exchange of exchanges) {
    if (exchange.pdu === undefined) continue;
    const { amfUeNgapId: amf, ranUeNgapId: ran } = ueNgapIdsOf(exchange.pdu);
    if (amf === undefined && ran === undefined)
      assert.equal(exchange.streamId, 0, `${exchange.messageType} without a UE on stream 0`);
  }
  const byUe = streamsByUe(exchanges, key);
  assert.ok(byUe.size > 0);
  const used: number[] = [];
  for (const [id, streams] of byUe) {
    assert.equal(streams.size, 1, `UE ${key} ${id}: one stream, not ${[...streams].join(', ')}`);
    const [stream] = [...streams];
    assert.notEqual(stream, 0, `UE ${key} ${id} on stream 0`);
    used.push(stream!);
  }
  return used;
}

async function registerThree(s: SessionService): Promise<void> {
  for (const n of [1, 2, 3]) await s.registered(n);
}

function assertNoViolations(gnb: SimulatedGnb): void {
  assert.deepEqual(gnb.streamViolations, []);
}

describe('N2 stream ids with unequal stream counts (TS 38.412 7)', () => {
  it('a gNB opening 8 streams towards the AMF and accepting 2 back: registrations work; the AMF answers a message on stream 5 on a stream it may use', async () => {
    const s = await startSessionService({ gnb: { streams: { outbound: 8, inbound: 2 }, strict: true } });
    try {
      const { gnb } = s;
      assert.ok(gnb.state.kind === 'ready');
      assert.deepEqual(gnb.state.up.streams, { outbound: 8, inbound: 2 });
      await registerThree(s);
      // The gNB spreads its UEs over its 7 UE streams; the AMF has one (stream 1) towards it.
      const gnbStreams = assertStreams(gnb.sent, 'ranUeNgapId');
      assert.ok(new Set(gnbStreams).size > 1, `the gNB's UEs on streams ${gnbStreams.join(', ')}`);
      assert.deepEqual(new Set(assertStreams(gnb.received, 'amfUeNgapId')), new Set([1]));
      // A message for a UE the AMF does not know, on a stream the AMF may not send on: TS 38.413 8.2.7.2
      // Error Indication, on a stream the association has towards the gNB.
      const answered = gnb.nextReceived('ErrorIndication');
      const unknown = uplinkNasTransport(
        { amfUeNgapId: 999_999, ranUeNgapId: 4242 },
        Uint8Array.of(0x7e, 0x00, 0x64, 0x6f),
        s.ues.cell,
      );
      assert.ok(gnb.send(unknown, 5).ok);
      const indication = await answered;
      assert.equal(indication.streamId, 1);
      assert.ok(indication.pdu !== undefined);
      assert.deepEqual(ueNgapIdsOf(indication.pdu), { amfUeNgapId: 999_999, ranUeNgapId: 4242 });
      assertNoViolations(gnb);
      await assertTsharkAgrees(s.received);
    } finally {
      await s.close();
    }
  });

  it('a gNB opening 2 streams towards the AMF and accepting 8 back: the AMF spreads its UEs over streams 1-7, one each', async () => {
    const s = await startSessionService({ gnb: { streams: { outbound: 2, inbound: 8 }, strict: true } });
    try {
      const { gnb } = s;
      assert.ok(gnb.state.kind === 'ready');
      assert.deepEqual(gnb.state.up.streams, { outbound: 2, inbound: 8 });
      await registerThree(s);
      assert.deepEqual(new Set(assertStreams(gnb.sent, 'ranUeNgapId')), new Set([1]));
      const amfStreams = assertStreams(gnb.received, 'amfUeNgapId');
      assert.equal(new Set(amfStreams).size, 3, `the AMF's UEs on streams ${amfStreams.join(', ')}`);
      assertNoViolations(gnb);
      await assertTsharkAgrees(s.received);
    } finally {
      await s.close();
    }
  });
});

describe('the strict gNB (docs/interop.md) against the real service', () => {
  it('registration, PDU session, idle, Service Request and traffic: no refused setup, no stream violation, no Error Indication', async () => {
    const s = await startSessionService({ gnb: { streams: 4, strict: true } });
    try {
      const { imsi, ue, sessions } = await s.registered(1);
      assert.equal((await sessions.establish({ type: 'IPv4' })).outcome, 'accepted');
      await s.until(
        async () => ((await s.sessionsOf(imsi))[0]?.status === 'active' ? true : undefined),
        'active',
      );
      const released = ue.next((e) => (e.type === 'released' ? true : undefined));
      assert.ok(s.ues.requestRelease(ue));
      await released;
      await s.until(
        async () => ((await s.sessionsOf(imsi))[0]?.status === 'inactive' ? true : undefined),
        'inactive',
      );
      const up = new Promise<void>((resolve) => {
        const off = s.ues.sessions.on((event) => {
          if (event.type === 'up' && event.session.ue === ue) {
            off();
            resolve();
          }
        });
      });
      assert.equal((await ue.serviceRequest('data', { uplinkData: [1] })).outcome, 'accepted');
      await up;
      await s.until(
        async () => ((await s.sessionsOf(imsi))[0]?.status === 'active' ? true : undefined),
        'active again',
      );
      // The user plane: the UPF forwards the session's downlink to the tunnel the gNB gave in its
      // Initial Context Setup Response (the forwarder here records rules; test/system/ carries packets).
      const [rules] = [...s.rules.sessions.values()];
      const [tunnel] = s.ues.sessions.of(ue);
      assert.ok(tunnel !== undefined);
      assert.equal(
        rules?.downlink?.startsWith(`${tunnel.downlink.address}:2152 teid ${tunnel.downlink.teid} `),
        true,
        `downlink ${rules?.downlink} is the gNB's ${JSON.stringify(tunnel.downlink)}`,
      );
      assert.deepEqual(s.ues.refusedSetups, []);
      assertNoViolations(s.gnb);
      assert.deepEqual(
        s.received.filter((e) => e.messageType === 'ErrorIndication').map((e) => e.messageType),
        [],
      );
      assert.ok(s.received.some((e) => e.messageType === 'InitialContextSetupRequest'));
      await assertTsharkAgrees(s.received);
    } finally {
      await s.close();
    }
  });
});
