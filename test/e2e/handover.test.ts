import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { XnHandover } from '../../src/simulator/gnb-handover.ts';
import { pathSwitchRequest, readPathSwitchAnswer } from '../../src/simulator/gnb-handover-messages.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import type { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import { ALL_ALGORITHMS } from '../../src/simulator/ue/ue-config.ts';
import type { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { ngapSecurityCapabilities } from '../../src/network/amf/n2/ngap-ue-values.ts';
import { encodeComplete } from '../../src/network/asn1/complete.ts';
import { encodeHandoverRequiredTransfer } from '../../src/network/ngap/generated/codec.ts';
import { plmnIdentity, tac } from '../../src/network/ngap/ngap-values.ts';
import { bitStringOf } from '../../src/network/asn1/bit-string.ts';
import { assertTsharkAgrees, OPERATOR_PLMN } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * Xn handover end to end (TS 23.502 4.9.1.2.2) through the real service: a registered UE with a PDU
 * session moves from gnb-1 to gnb-2 and back. The target's Path Switch Request is acknowledged with the
 * next {NH, NCC}; the UE, deriving its own keys from its USIM, agrees with the target's KgNB* (the second
 * handover is vertical: it uses the NH the AMF chained, so the UE's NH and the AMF's are the same); the
 * UPF's downlink rule moves to the target; the API shows the new radio and cell; a triggered positioning
 * session reports the cell change; radio events hold the procedure, and tshark reads every PDU the
 * service sent. A Path Switch Request naming an unknown AMF UE NGAP ID fails and changes nothing. (N2
 * handover: n2-handover.test.ts; here only a Handover Required with no session that can move.)
 */

const CELL_B: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8001, tac: 1 };

interface RadioEvent {
  id: number;
  message_type: string;
  direction: string;
}

describe('Xn handover with path switch (real service)', () => {
  let s: SessionService;
  let gnb2: SimulatedGnb;
  let ues2: GnbUes;
  let xnA: XnHandover;
  let xnB: XnHandover;
  before(async () => {
    s = await startSessionService();
    ({ gnb: gnb2, ues: ues2 } = await s.anotherGnb(2, CELL_B, '127.0.0.3'));
    xnA = new XnHandover(s.gnb, s.ues, { pci: 1, arfcnDl: 632628 });
    xnB = new XnHandover(gnb2, ues2, { pci: 2, arfcnDl: 632628 });
    for (const [cellIdentity, latitude] of [
      ['000004001', 53.5461],
      ['000008001', 53.56],
    ] as const) {
      assert.equal(
        await s.request('POST', '/api/beta/cell-positions', {
          mcc: '001',
          mnc: '01',
          rat: 'nr',
          cell_identity: cellIdentity,
          latitude,
          longitude: 9.97,
          uncertainty_semi_major: 300,
        }),
        201,
      );
    }
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  it('moves the UE, its session downlink and its serving cell to the target; keys agree with the AMF', async () => {
    const { imsi, ue, sessions } = await s.registered(1);
    const supi = `imsi-${imsi}`;
    const established = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    assert.equal(established.outcome, 'accepted');
    const upfSession = await s.until(async () => {
      const rule = [...s.rules.sessions.values()].find((r) => r.downlink?.startsWith('127.0.0.2:') === true);
      return rule;
    }, 'the downlink towards gnb-1');

    const created = await s.t.request({
      method: 'POST',
      url: '/api/beta/location',
      token: s.token,
      payload: { request_type: 'triggered', supi, report_count: 2 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json<{ result: { id: string } }>().result;
    const reportedCell = async () =>
      (
        await s.get<{ status: number; last_result: { ncgi?: { nrCellId: string } } | null }>(
          `/api/beta/positioning/sessions/${id}`,
        )
      ).last_result?.ncgi?.nrCellId;
    await s.until(async () => ((await reportedCell()) === '000004001' ? true : undefined), 'first report');

    const first = await xnA.handOver(ue, xnB);
    assert.equal(first.outcome, 'switched');
    assert.ok(first.outcome === 'switched');
    // Horizontal: NCC 0 (no NH handed out yet); the AMF's first NH comes with NCC 1.
    assert.equal(first.ncc, 0);
    assert.deepEqual(first.ueKgnbStar, first.kgnbStar);
    assert.equal(first.answer.ncc, 1);
    assert.deepEqual(first.answer.switched, [1]);
    assert.deepEqual(first.answer.released, []);
    assert.equal(ue.connected, true);
    assert.equal(ue.radio, ues2);

    // The UPF's downlink rule for the session now points at gnb-2's N3 address and its new TEID.
    const [admitted] = ues2.sessions.of(ue);
    assert.ok(admitted !== undefined);
    assert.equal(upfSession.downlink, `127.0.0.3:2152 teid ${admitted.downlink.teid} qfi 1`);
    assert.deepEqual(s.ues.sessions.of(ue), [], 'the source released its side');

    // The subscriber read names the target radio; the serving cell (not in that read) is the session's.
    await s.until(async () => {
      const read = await s.get<{ status: { last_seen_radio: string } }>(`/api/v1/subscribers/${imsi}`);
      return read.status.last_seen_radio === 'gnb-2' ? read : undefined;
    }, 'the subscriber seen through gnb-2');
    await s.until(async () => ((await reportedCell()) === '000008001' ? true : undefined), 'handover report');

    // NAS keeps working through the target: a second session comes up on gnb-2.
    const second = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    assert.equal(second.outcome, 'accepted');

    // Back to gnb-1: vertical, from the NH of the first Acknowledge; the UE chains its own NH to agree.
    const back = await xnB.handOver(ue, xnA);
    assert.ok(back.outcome === 'switched');
    assert.equal(back.ncc, 1);
    assert.ok(back.ueKgnbStar !== undefined);
    assert.deepEqual(back.ueKgnbStar, back.kgnbStar);
    assert.equal(back.answer.ncc, 2);
    assert.deepEqual(back.answer.switched.sort(), [1, 2]);
    assert.equal(ue.radio, s.ues);

    await s.t.records.flush();
    const events = await s.get<{ items: RadioEvent[] }>(
      '/api/v1/ran/events?protocol=NGAP&message_type=PathSwitchRequest',
    );
    assert.equal(events.items.length, 2);
    const acks = await s.get<{ items: RadioEvent[] }>(
      '/api/v1/ran/events?protocol=NGAP&message_type=PathSwitchRequestAcknowledge',
    );
    assert.equal(acks.items.length, 2);
    const [ack] = acks.items;
    assert.ok(ack !== undefined);
    assert.equal(ack.direction, 'outbound');
    const detail = await s.get<{ decoded: Record<string, unknown> }>(`/api/v1/ran/events/${ack.id}`);
    assert.match(JSON.stringify(detail.decoded), /next_hop|nextHop|NextHop/i);
  });

  it('a Path Switch Request for an unknown AMF UE NGAP ID gets Path Switch Request Failure; nothing moves', async () => {
    const rulesBefore = JSON.stringify([...s.rules.sessions.entries()]);
    const answered = gnb2.next((event) =>
      event.type === 'received' && event.exchange.pdu !== undefined
        ? readPathSwitchAnswer(event.exchange.pdu)
        : undefined,
    );
    const sent = gnb2.send(
      pathSwitchRequest({
        ranUeNgapId: 4242,
        sourceAmfUeNgapId: 999_999,
        cell: CELL_B,
        ueSecurityCapabilities: ngapSecurityCapabilities(ALL_ALGORITHMS),
        sessions: [
          {
            ue: { sTmsi: undefined } as never,
            pduSessionId: 5,
            pduSessionType: 'ipv4',
            qfis: [1],
            uplink: { address: '127.0.0.1', teid: 1 },
            downlink: { address: '127.0.0.3', teid: 77 },
          },
        ],
      }),
      1,
    );
    assert.equal(sent.ok, true);
    const answer = await answered;
    assert.deepEqual(answer, { kind: 'failure', ranUeNgapId: 4242, amfUeNgapId: 999_999, released: [5] });
    assert.equal(JSON.stringify([...s.rules.sessions.entries()]), rulesBefore);
  });

  it('Handover Required for a UE without a session to hand over gets Handover Preparation Failure', async () => {
    const { ue } = await s.registered(3);
    let link: ReturnType<GnbUes['link']>;
    for (let ran = 1; ran < 100 && link?.ue !== ue; ran += 1) link = s.ues.link(ran);
    assert.ok(link?.ue === ue && link.amfUeNgapId !== undefined);
    const ids = { amfUeNgapId: link.amfUeNgapId, ranUeNgapId: link.ranUeNgapId };
    const answered = s.gnb.nextReceived('HandoverPreparationFailure');
    const plmn = plmnIdentity(OPERATOR_PLMN.mcc, OPERATOR_PLMN.mnc);
    const sent = s.gnb.send(
      {
        choice: 'initiatingMessage',
        value: {
          procedureCode: 12,
          name: 'HandoverPreparation',
          criticality: 'reject',
          value: {
            protocolIEs: [
              { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amfUeNgapId },
              { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ranUeNgapId },
              { id: 29, name: 'HandoverType', criticality: 'reject', value: 'intra5gs' },
              {
                id: 15,
                name: 'Cause',
                criticality: 'ignore',
                value: { choice: 'radioNetwork', value: 'handover-desirable-for-radio-reason' },
              },
              {
                id: 105,
                name: 'TargetID',
                criticality: 'reject',
                value: {
                  choice: 'targetRANNodeID',
                  value: {
                    globalRANNodeID: {
                      choice: 'globalGNB-ID',
                      value: { pLMNIdentity: plmn, gNBID: { choice: 'gNB-ID', value: bitStringOf(2, 22) } },
                    },
                    selectedTAI: { pLMNIdentity: plmn, tAC: tac(1) },
                  },
                },
              },
              {
                id: 61,
                name: 'PDUSessionResourceListHORqd',
                criticality: 'reject',
                value: [
                  {
                    pDUSessionID: 1,
                    handoverRequiredTransfer: encodeComplete({}, true, encodeHandoverRequiredTransfer),
                  },
                ],
              },
              {
                id: 101,
                name: 'SourceToTarget-TransparentContainer',
                criticality: 'reject',
                value: Uint8Array.of(0),
              },
            ],
          },
        },
      },
      1,
    );
    assert.equal(sent.ok, true);
    const failure = await answered;
    assert.ok(
      failure.pdu?.choice === 'unsuccessfulOutcome' && failure.pdu.value.name === 'HandoverPreparation',
    );
    const ies = failure.pdu.value.value.protocolIEs;
    assert.deepEqual(
      ies.map((ie) => [ie.name, ie.value]),
      [
        ['AMF-UE-NGAP-ID', ids.amfUeNgapId],
        ['RAN-UE-NGAP-ID', ids.ranUeNgapId],
        ['Cause', { choice: 'radioNetwork', value: 'ho-failure-in-target-5GC-ngran-node-or-target-system' }],
      ],
    );
    assert.equal(ue.connected, true, 'the UE stays where it is');
  });

  it('repeated PDU session ids fail the request; UE security capabilities that differ get the AMF’s own back', async () => {
    const { ue, sessions } = await s.registered(4);
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    let link: ReturnType<GnbUes['link']>;
    for (let ran = 1; ran < 100 && link?.ue !== ue; ran += 1) link = s.ues.link(ran);
    assert.ok(link?.ue === ue && link.amfUeNgapId !== undefined);
    const [own] = s.ues.sessions.of(ue);
    assert.ok(own !== undefined);
    const rule = await s.until(
      async () =>
        [...s.rules.sessions.values()].find(
          (r) => r.downlink === `127.0.0.2:2152 teid ${own.downlink.teid} qfi 1`,
        ),
      'the downlink towards gnb-1',
    );
    const moved = { ...own, downlink: { address: '127.0.0.3', teid: 0xbeef } };
    const ask = async (items: (typeof own)[], capabilities: ReturnType<typeof ngapSecurityCapabilities>) => {
      const answered = gnb2.next((event) =>
        event.type === 'received' && event.exchange.pdu !== undefined ? event.exchange : undefined,
      );
      gnb2.send(
        pathSwitchRequest({
          ranUeNgapId: 7000 + items.length,
          sourceAmfUeNgapId: link.amfUeNgapId ?? 0,
          cell: CELL_B,
          ueSecurityCapabilities: capabilities,
          sessions: items,
        }),
        1,
      );
      return answered;
    };
    const held = ngapSecurityCapabilities(ALL_ALGORITHMS);
    const repeated = await ask([moved, moved], held);
    assert.equal(
      repeated.pdu === undefined ? undefined : readPathSwitchAnswer(repeated.pdu)?.kind,
      'failure',
    );
    assert.equal(rule.downlink, `127.0.0.2:2152 teid ${own.downlink.teid} qfi 1`, 'nothing switched');

    const fewer = ngapSecurityCapabilities({ ea: [1], ia: [1], eea: [], eia: [] });
    const acknowledged = await ask([moved], fewer);
    assert.ok(
      acknowledged.pdu?.choice === 'successfulOutcome' && acknowledged.pdu.value.name === 'PathSwitchRequest',
    );
    const capabilities = acknowledged.pdu.value.value.protocolIEs.find(
      (ie) => ie.name === 'UESecurityCapabilities',
    );
    assert.ok(capabilities?.name === 'UESecurityCapabilities');
    const { nRencryptionAlgorithms, nRintegrityProtectionAlgorithms } = capabilities.value;
    assert.deepEqual(
      { nRencryptionAlgorithms, nRintegrityProtectionAlgorithms },
      {
        nRencryptionAlgorithms: held.nRencryptionAlgorithms,
        nRintegrityProtectionAlgorithms: held.nRintegrityProtectionAlgorithms,
      },
    );
    assert.equal(rule.downlink, `127.0.0.3:2152 teid ${0xbeef} qfi 1`);
  });
});
