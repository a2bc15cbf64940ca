import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { parseBitrate } from '../../src/network/common/bitrate-text.ts';
import { N2Handover } from '../../src/simulator/gnb-handover-n2.ts';
import {
  handoverCancel,
  handoverRequestAcknowledge,
  handoverRequired,
  readN2HandoverAnswer,
  uplinkRanStatusTransfer,
} from '../../src/simulator/gnb-handover-n2-messages.ts';
import { globalRanNodeId } from '../../src/simulator/gnb-config.ts';
import {
  readErrorIndication,
  readHandoverRequest,
  readUEContextReleaseCommand,
} from '../../src/network/ngap/generated/messages.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import type { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import type { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { assertTsharkAgrees, gnbConfig } from './n2-service.ts';
import { OPERATOR_PLMN } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * Intra-AMF N2 handover end to end (TS 23.502 4.9.1.3, TS 38.413 8.4.1-8.4.6) through the real service,
 * between two simulated gNBs: Handover Required -> Handover Request with the next {NH, NCC} (the UE,
 * deriving its own keys from its USIM, agrees with the target's KgNB*) -> Acknowledge -> Command ->
 * Uplink / Downlink RAN Status Transfer -> Notify: the UPF's downlink moves to the target, the source's
 * context is released with successful-handover, the API shows the target radio and NAS goes on through
 * it. Failure paths (unknown target, Handover Failure, no session admitted, a session refused, Handover
 * Cancel before and after the Command) leave nothing behind: connections, handovers and the UPF's rules
 * are counted. tshark reads every PDU the service sent.
 */

const CELL_B: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8001, tac: 1 };

interface RadioEvent {
  id: number;
  message_type: string;
  direction: string;
  details: string;
}

/** The UE's connection at `ues`: its RAN and AMF UE NGAP IDs. */
function idsAt(ues: GnbUes, ue: SimulatedUe): { amfUeNgapId: number; ranUeNgapId: number } {
  for (let ran = 1; ran < 1000; ran += 1) {
    const link = ues.link(ran);
    if (link?.ue === ue && link.amfUeNgapId !== undefined)
      return { amfUeNgapId: link.amfUeNgapId, ranUeNgapId: ran };
  }
  assert.fail('the UE has no connection there');
}

describe('N2 handover (real service)', () => {
  let s: SessionService;
  let gnb2: SimulatedGnb;
  let ues2: GnbUes;
  let n2A: N2Handover;
  let n2B: N2Handover;
  /** The service's log lines at `info` and above (the level operators run at). */
  const logLines: string[] = [];
  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    s = await startSessionService({ logger: pino({ level: 'info' }, sink) });
    ({ gnb: gnb2, ues: ues2 } = await s.anotherGnb(2, CELL_B, '127.0.0.3'));
    n2A = new N2Handover(s.gnb, s.ues, { pci: 1, arfcnDl: 632628 });
    n2B = new N2Handover(gnb2, ues2, { pci: 2, arfcnDl: 632628 });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  /** Registers subscriber `n` with one session whose downlink the UPF holds towards gnb-1. */
  async function withSession(n: number) {
    const registered = await s.registered(n);
    const { ue, sessions } = registered;
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    const [own] = s.ues.sessions.of(ue);
    assert.ok(own !== undefined);
    const downlink = `127.0.0.2:2152 teid ${own.downlink.teid} qfi 1`;
    await s.until(
      async () => [...s.rules.sessions.values()].find((r) => r.downlink === downlink),
      'the downlink towards gnb-1',
    );
    return registered;
  }

  /** What must be back to where it was after a failed or cancelled handover. */
  it('moves the UE and its session downlink to the target; keys agree; the source is released', async () => {
    const { imsi, ue, sessions } = await s.registered(1);
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    const upfSession = await s.until(
      async () => [...s.rules.sessions.values()].find((r) => r.downlink?.startsWith('127.0.0.2:') === true),
      'the downlink towards gnb-1',
    );
    const connections = s.held().connections;
    const releasedAtSource = s.gnb.nextReceived('UEContextReleaseCommand');

    const first = await n2A.handOver(ue, n2B);
    assert.ok(first.outcome === 'handed-over');
    // The AMF's first NH comes with NCC 1; the UE chains its own NH to it and gets the same KgNB*.
    assert.equal(first.ncc, 1);
    assert.ok(first.ueKgnbStar !== undefined);
    assert.deepEqual(first.ueKgnbStar, first.kgnbStar);
    assert.deepEqual(first.command.handedOver, [1]);
    assert.deepEqual(first.command.released, []);
    // No direct path named by the source: indirect forwarding (TS 23.502 4.9.1.3.2 step 11). The target
    // offers its DL forwarding tunnel, the UPF forwards to it, and the source is given the UPF's.
    const [offered] = first.offered;
    assert.ok(offered !== undefined);
    const [forwarding] = first.command.forwarding;
    assert.ok(forwarding !== undefined && forwarding.tunnel.address === '127.0.0.1');
    assert.deepEqual(forwarding.qfis, [1]);
    assert.ok(
      [...s.rules.forwarding.values()].includes(
        `teid ${forwarding.tunnel.teid} to 127.0.0.3:2152 teid ${offered.tunnel.teid}`,
      ),
      'the UPF forwards to the target’s tunnel',
    );
    assert.deepEqual(n2B.statusTransfers, [first.ranUeNgapId], 'the PDCP status reached the target');
    assert.equal(ue.connected, true);
    assert.equal(ue.radio, ues2);

    // The UPF's downlink now points at gnb-2's N3 address and the TEID it gave in its Acknowledge.
    const [admitted] = ues2.sessions.of(ue);
    assert.ok(admitted !== undefined);
    assert.equal(upfSession.downlink, `127.0.0.3:2152 teid ${admitted.downlink.teid} qfi 1`);
    assert.deepEqual(s.ues.sessions.of(ue), [], 'the source released its side');
    const release = await releasedAtSource;
    assert.ok(release.pdu?.choice === 'initiatingMessage' && release.pdu.value.name === 'UEContextRelease');
    const cause = release.pdu.value.value.protocolIEs.find((ie) => ie.name === 'Cause');
    assert.deepEqual(cause?.value, { choice: 'radioNetwork', value: 'successful-handover' });
    await s.until(async () => (s.held().connections === connections ? true : undefined), 'one connection');
    assert.deepEqual(s.held(), { connections, handovers: 0, smfHandovers: 0 });

    await s.until(async () => {
      const read = await s.get<{ status: { last_seen_radio: string } }>(`/api/v1/subscribers/${imsi}`);
      return read.status.last_seen_radio === 'gnb-2' ? read : undefined;
    }, 'the subscriber seen through gnb-2');
    const [apiSession] = await s.sessionsOf(imsi);
    assert.equal(apiSession?.status, 'active');

    // NAS goes on through the target's connection: a second session comes up on gnb-2.
    const second = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    assert.equal(second.outcome, 'accepted');
    assert.equal(ues2.sessions.of(ue).length, 2);

    // And back: the AMF's NH chain moves on (NCC 2), both sessions go.
    const back = await n2B.handOver(ue, n2A);
    assert.ok(back.outcome === 'handed-over');
    assert.equal(back.ncc, 2);
    assert.deepEqual(back.ueKgnbStar, back.kgnbStar);
    assert.deepEqual(back.command.handedOver.sort(), [1, 2]);
    assert.equal(ue.radio, s.ues);
    const [again] = s.ues.sessions.of(ue).filter((session) => session.pduSessionId === 1);
    assert.ok(again !== undefined);
    assert.equal(upfSession.downlink, `127.0.0.2:2152 teid ${again.downlink.teid} qfi 1`);

    await s.t.records.flush();
    const eventsOf = async (type: string): Promise<RadioEvent[]> =>
      (await s.get<{ items: RadioEvent[] }>(`/api/v1/ran/events?protocol=NGAP&message_type=${type}`)).items;
    for (const [type, direction] of [
      ['HandoverRequired', 'inbound'],
      ['HandoverRequest', 'outbound'],
      ['HandoverRequestAcknowledge', 'inbound'],
      ['HandoverCommand', 'outbound'],
      ['UplinkRANStatusTransfer', 'inbound'],
      ['DownlinkRANStatusTransfer', 'outbound'],
      ['HandoverNotify', 'inbound'],
    ] as const) {
      const events = await eventsOf(type);
      assert.equal(events.length, 2, type);
      assert.ok(
        events.every((event) => event.direction === direction),
        type,
      );
    }
    // The source's messages name the subscriber (network.md section 3).
    for (const type of ['HandoverRequired', 'HandoverCommand']) {
      const [event] = await eventsOf(type);
      assert.match(event?.details ?? '', new RegExp(`"imsi":"${imsi}"`), type);
    }
    // The NH given to the target is never stored (network.md section 4).
    const [request] = await eventsOf('HandoverRequest');
    assert.ok(request !== undefined);
    assert.deepEqual((JSON.parse(request.details) as { redacted: string[] }).redacted, ['SecurityKey']);
    const detail = await s.get<{ decoded: unknown }>(`/api/v1/ran/events/${request.id}`);
    assert.match(JSON.stringify(detail.decoded), /"next_hop_nh":\{"redacted":true\}/);
  });

  it('a target the AMF does not know, or not serving the TAI: Preparation Failure; status outside a handover: Error Indication', async () => {
    const { ue } = await s.registered(2);
    const before = s.holding();
    const ids = idsAt(s.ues, ue);
    const answered = s.gnb.next((event) =>
      event.type === 'received' && event.exchange.pdu !== undefined
        ? readN2HandoverAnswer(event.exchange.pdu)
        : undefined,
    );
    s.gnb.send(
      handoverRequired({
        ids,
        target: globalRanNodeId(gnbConfig(9)),
        sourceCell: s.ues.cell,
        targetCell: CELL_B,
        pduSessionIds: [1],
      }),
      1,
    );
    assert.deepEqual(await answered, {
      kind: 'preparation-failure',
      ...ids,
      cause: { choice: 'radioNetwork', value: 'unknown-targetID' },
    });
    await s.nothingLeft(before);

    // A known target, but a selected TAI it does not serve (gnb-2 serves TAC 1 only).
    const refused = s.gnb.next((event) =>
      event.type === 'received' && event.exchange.pdu !== undefined
        ? readN2HandoverAnswer(event.exchange.pdu)
        : undefined,
    );
    s.gnb.send(
      handoverRequired({
        ids,
        target: globalRanNodeId(gnbConfig(2)),
        sourceCell: s.ues.cell,
        targetCell: { ...CELL_B, tac: 2 },
        pduSessionIds: [1],
      }),
      1,
    );
    assert.deepEqual(await refused, {
      kind: 'preparation-failure',
      ...ids,
      cause: { choice: 'radioNetwork', value: 'ho-target-not-allowed' },
    });
    await s.nothingLeft(before);

    // Uplink RAN Status Transfer with no handover prepared: Error Indication (TS 38.413 10.4).
    const indicated = s.gnb.nextReceived('ErrorIndication');
    s.gnb.send(uplinkRanStatusTransfer(ids, 1), 1);
    const indication = await indicated;
    assert.ok(indication.pdu !== undefined);
    const read = readErrorIndication(indication.pdu);
    assert.ok(read.ok);
    assert.deepEqual(read.message.cause, {
      choice: 'protocol',
      value: 'message-not-compatible-with-receiver-state',
    });
  });

  it('a Handover Required naming an AMF UE NGAP ID the AMF does not know: Preparation Failure, unknown-local-UE-NGAP-ID', async () => {
    const before = s.holding();
    const ids = { amfUeNgapId: 999_999, ranUeNgapId: 4242 };
    const answered = s.gnb.next((event) =>
      event.type === 'received' && event.exchange.pdu !== undefined
        ? readN2HandoverAnswer(event.exchange.pdu)
        : undefined,
    );
    s.gnb.send(
      handoverRequired({
        ids,
        target: globalRanNodeId(gnbConfig(2)),
        sourceCell: s.ues.cell,
        targetCell: CELL_B,
        pduSessionIds: [1],
      }),
      1,
    );
    assert.deepEqual(await answered, {
      kind: 'preparation-failure',
      ...ids,
      cause: { choice: 'radioNetwork', value: 'unknown-local-UE-NGAP-ID' },
    });
    await s.nothingLeft(before);
  });

  it('Handover Failure from the target: the source hears its cause; the UE and its downlink stay', async () => {
    const { ue } = await withSession(3);
    const before = s.holding();
    n2B.behaviour = 'fail';
    try {
      const outcome = await n2A.handOver(ue, n2B);
      assert.deepEqual(outcome, {
        outcome: 'failed',
        cause: { choice: 'radioNetwork', value: 'no-radio-resources-available-in-target-cell' },
      });
    } finally {
      n2B.behaviour = 'admit';
    }
    assert.equal(ue.radio, s.ues);
    await s.nothingLeft(before);
    // A session the target refuses (a slice it does not serve) and nothing else: no session admitted.
    n2B.refusedSessions.add(1);
    try {
      const outcome = await n2A.handOver(ue, n2B);
      assert.equal(outcome.outcome, 'failed');
    } finally {
      n2B.refusedSessions.clear();
    }
    await s.nothingLeft(before);
    assert.equal(ues2.sessions.of(ue).length, 0, 'the target holds no tunnel');
  });

  it('a session the target refuses goes in the Command’s To Release list; the others move', async () => {
    const { imsi, ue, sessions } = await s.registered(4);
    for (let i = 0; i < 2; i += 1)
      assert.equal(
        (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
        'accepted',
      );
    n2B.refusedSessions.add(2);
    try {
      const outcome = await n2A.handOver(ue, n2B);
      assert.ok(outcome.outcome === 'handed-over');
      assert.deepEqual(outcome.command.handedOver, [1]);
      assert.deepEqual(outcome.command.released, [2]);
    } finally {
      n2B.refusedSessions.clear();
    }
    // The refused session is kept, its user plane down until a Service Request brings it back.
    const api = await s.until(async () => {
      const read = await s.sessionsOf(imsi);
      return read.find((session) => session.id === 2)?.status === 'inactive' ? read : undefined;
    }, 'session 2 inactive');
    assert.equal(api.find((session) => session.id === 1)?.status, 'active');
    assert.deepEqual(s.held().handovers, 0);
  });

  it('direct forwarding: the target’s DL forwarding tunnel goes to the source in the Command', async () => {
    const { ue } = await withSession(6);
    const outcome = await n2A.handOver(ue, n2B, { directForwarding: true });
    assert.ok(outcome.outcome === 'handed-over');
    const [admitted] = ues2.sessions.of(ue);
    assert.ok(admitted !== undefined);
    const [offered] = outcome.offered;
    assert.ok(offered !== undefined);
    assert.deepEqual(outcome.command.forwarding, [{ pduSessionId: 1, tunnel: offered.tunnel, qfis: [1] }]);
    assert.equal(offered.tunnel.address, '127.0.0.3');
    assert.notEqual(offered.tunnel.teid, admitted.downlink.teid, 'a tunnel of its own');
    assert.deepEqual(s.held().handovers, 0);
  });

  it('the source’s Uplink RAN Status Transfer after the target’s Notify still reaches the target, unrefused', async () => {
    const { ue } = await withSession(10);
    const refusals = () => s.received.filter((e) => e.messageType === 'ErrorIndication').length;
    const before = refusals();
    const outcome = await n2A.handOver(ue, n2B, { statusAfterNotify: true });
    assert.ok(outcome.outcome === 'handed-over');
    // TS 38.413 8.4.6: the container goes to the target, which serves the UE by now.
    await s.until(
      async () => n2B.statusTransfers.includes(outcome.ranUeNgapId) || undefined,
      'the Downlink RAN Status Transfer at the target',
    );
    assert.equal(refusals(), before, 'no Error Indication to the source');
  });

  it('Handover Cancel before and after the Command: Acknowledge, the target’s context released', async () => {
    const { ue } = await withSession(5);
    const before = s.holding();

    const releasedAtTarget = gnb2.nextReceived('UEContextReleaseCommand');
    assert.deepEqual(await n2A.handOver(ue, n2B, { stop: 'cancel-after-command' }), { outcome: 'cancelled' });
    const release = await releasedAtTarget;
    assert.ok(release.pdu?.choice === 'initiatingMessage' && release.pdu.value.name === 'UEContextRelease');
    const cause = release.pdu.value.value.protocolIEs.find((ie) => ie.name === 'Cause');
    assert.deepEqual(cause?.value, { choice: 'radioNetwork', value: 'handover-cancelled' });
    await s.nothingLeft(before);
    assert.equal(ues2.sessions.of(ue).length, 0, 'the target released the tunnels it had set up');

    assert.deepEqual(await n2A.handOver(ue, n2B, { stop: 'cancel-after-required' }), {
      outcome: 'cancelled',
    });
    await s.nothingLeft(before);
    await s.until(
      async () => (ues2.sessions.of(ue).length === 0 ? true : undefined),
      'no tunnel at the target',
    );

    // The UE is still served at the source, and a later handover goes through.
    const done = await n2A.handOver(ue, n2B);
    assert.equal(done.outcome, 'handed-over');
  });

  it('an Acknowledge that comes after Handover Cancel: the target’s context is released, handover-cancelled', async () => {
    const { ue } = await withSession(7);
    const before = s.holding();
    const ids = idsAt(s.ues, ue);
    // The target is driven by hand here: it answers only after the source has cancelled.
    n2B.behaviour = 'silent';
    try {
      const asked = gnb2.nextReceived('HandoverRequest');
      s.gnb.send(
        handoverRequired({
          ids,
          target: globalRanNodeId(gnbConfig(2)),
          sourceCell: s.ues.cell,
          targetCell: CELL_B,
          pduSessionIds: [1],
        }),
        1,
      );
      const request = await asked;
      assert.ok(request.pdu !== undefined);
      const read = readHandoverRequest(request.pdu);
      assert.ok(read.ok);
      // The target hears the RRC INACTIVE assistance the source was given (TS 38.413 9.2.3.4, 9.3.1.15).
      const assistance = read.message.coreNetworkAssistanceInformationForInactive;
      assert.ok(assistance !== undefined, 'Core Network Assistance Information for RRC INACTIVE');
      assert.ok(assistance.tAIListForInactive.length > 0);
      const acknowledged = s.gnb.next((event) =>
        event.type === 'received' && event.exchange.pdu !== undefined
          ? readN2HandoverAnswer(event.exchange.pdu)
          : undefined,
      );
      s.gnb.send(handoverCancel(ids, { choice: 'radioNetwork', value: 'handover-cancelled' }), 1);
      assert.deepEqual(await acknowledged, { kind: 'cancel-acknowledge', ...ids });

      const released = gnb2.nextReceived('UEContextReleaseCommand');
      const late = { amfUeNgapId: read.message.amfUeNgapId, ranUeNgapId: 777 };
      gnb2.send(
        handoverRequestAcknowledge(
          late,
          [
            {
              pduSessionId: 1,
              downlink: { address: '127.0.0.3', teid: 4711 },
              qfis: [1],
              forwarding: undefined,
            },
          ],
          [],
        ),
        1,
      );
      const release = await released;
      assert.ok(release.pdu !== undefined);
      const command = readUEContextReleaseCommand(release.pdu);
      assert.ok(command.ok);
      const pair = command.message.ueNgapIds;
      assert.ok(pair.choice === 'uE-NGAP-ID-pair');
      assert.deepEqual({ amfUeNgapId: pair.value.aMFUENGAPID, ranUeNgapId: pair.value.rANUENGAPID }, late);
      assert.deepEqual(command.message.cause, { choice: 'radioNetwork', value: 'handover-cancelled' });
    } finally {
      n2B.behaviour = 'admit';
    }
    await s.nothingLeft(before);
    assert.equal(ue.radio, s.ues);
  });

  it('a successful handover writes no log line at info: its record is the radio events, as for a path switch', async () => {
    const { imsi, ue } = await withSession(8);
    const before = logLines.length;
    assert.equal((await n2A.handOver(ue, n2B)).outcome, 'handed-over');
    assert.equal((await n2B.handOver(ue, n2A)).outcome, 'handed-over');
    // A line per handover costs a write at every handover (docs/performance.md, "N2 handover").
    const about = logLines.slice(before).filter((line) => line.includes(imsi));
    assert.deepEqual(about, [], 'no line names the handed-over UE');
  });

  it('Handover Request carries the UE-AMBR of the UE context (the source radio’s), not a fresh subscription read', async () => {
    const { ue } = await withSession(9);
    const profiles = () => s.t.db.updateTable('profiles').where('name', '=', 'default');
    const held = await s.t.db
      .selectFrom('profiles')
      .select(['bitrate_uplink', 'bitrate_downlink'])
      .where('name', '=', 'default')
      .executeTakeFirstOrThrow();
    // Changed past the API, so no profile change reaches the AMF: its UE context keeps the UE-AMBR the
    // source radio was given at Initial Context Setup (TS 23.502 4.9.1.3.2 step 9 takes it from there).
    await profiles().set({ bitrate_uplink: '3 Mbps', bitrate_downlink: '7 Mbps' }).execute();
    try {
      const asked = gnb2.nextReceived('HandoverRequest');
      assert.equal((await n2A.handOver(ue, n2B)).outcome, 'handed-over');
      const request = await asked;
      assert.ok(request.pdu !== undefined);
      const read = readHandoverRequest(request.pdu);
      assert.ok(read.ok);
      const { uEAggregateMaximumBitRateDL, uEAggregateMaximumBitRateUL } =
        read.message.ueAggregateMaximumBitRate;
      assert.deepEqual(
        { downlink: uEAggregateMaximumBitRateDL, uplink: uEAggregateMaximumBitRateUL },
        { downlink: parseBitrate(held.bitrate_downlink), uplink: parseBitrate(held.bitrate_uplink) },
      );
    } finally {
      await profiles().set(held).execute();
    }
  });
});
