import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  buildLocationReport,
  buildLocationReportingFailureIndication,
  buildNASNonDeliveryIndication,
  buildPDUSessionResourceModifyIndication,
  buildPDUSessionResourceNotify,
  buildSecondaryRATDataUsageReport,
  buildUEContextModificationFailure,
  buildUEContextModificationResponse,
  buildUERadioCapabilityCheckResponse,
  buildUERadioCapabilityInfoIndication,
  readHandoverRequest,
} from '../../src/network/ngap/generated/messages.ts';
import { MESSAGE_IES } from '../../src/network/ngap/generated/ies.ts';
import type { Cause, Criticality, NGAPPDU } from '../../src/network/ngap/generated/types.ts';
import { globalRanNodeId } from '../../src/simulator/gnb-config.ts';
import {
  handoverCancel,
  handoverFailure,
  handoverNotify,
  handoverRequestAcknowledge,
  handoverRequired,
  uplinkRanStatusTransfer,
} from '../../src/simulator/gnb-handover-n2-messages.ts';
import type { NgapExchange, SimulatedGnb } from '../../src/simulator/gnb.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import {
  ueContextReleaseComplete,
  userLocationInformation,
  type ServingCell,
} from '../../src/simulator/ue/ran-ue-messages.ts';
import { causeAndDiagnostics } from '../network/amf/emitted.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';
import { type AnyIe, withIes } from '../helpers/ngap-ies.ts';

/**
 * TS 38.413 clause 10 for every NGAP message the AMF receives in the procedures of N2 handover and the
 * radio-initiated UE procedures beside it, table-driven through the real service:
 * - a mandatory IE of criticality reject missing (10.3.5) or an unknown IE of criticality reject
 *   (10.3.4.2): an initiating message of a procedure with a failure message gets that failure, with
 *   Criticality Diagnostics (no procedure code or triggering message, 9.3.1.3); one without a failure
 *   message (class 1 or 2) gets Error Indication naming the procedure and the IE; a response message
 *   ends its procedure by local error handling, unanswered ("If a response message is received ...
 *   the receiving node shall consider the procedure as unsuccessfully terminated and initiate local
 *   error handling");
 * - an unknown IE of criticality ignore: processed as if absent; notify: processed and reported;
 * - the message for a UE the AMF does not know, or in the wrong state (10.4, 10.6): Error Indication
 *   with unknown-local-UE-NGAP-ID / message-not-compatible-with-receiver-state (Handover Preparation
 *   Failure for a Handover Required, 8.4.1.3).
 * After each, the AMF holds the same UE contexts, no handover, and the UPF the same rules. tshark reads
 * every PDU the service sent.
 */

const CELL_B: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8001, tac: 1 };

interface Ids {
  amfUeNgapId: number;
  ranUeNgapId: number;
}

/** No NGAP object set of V17.4.0 defines IE id 999. */
const UNKNOWN_ID = 999;

const withUnknownIe = (pdu: NGAPPDU, criticality: Criticality): NGAPPDU =>
  withIes(pdu, (ies) => [...ies, { id: UNKNOWN_ID, name: null, criticality, value: Uint8Array.of(0x2a) }]);
const withoutIe = (pdu: NGAPPDU, id: number): NGAPPDU =>
  withIes(pdu, (ies) => ies.filter((ie) => ie.id !== id));

const CAUSE: Cause = { choice: 'radioNetwork', value: 'unspecified' };
/** Any octets: the messages are judged before their transparent containers are opened. */
const OPAQUE = Uint8Array.of(0x00);

/**
 * How TS 38.413 answers the message: `failure` its procedure's unsuccessful outcome (Handover
 * Preparation Failure), `indication` an Error Indication, `none` local error handling (a response).
 */
type Answer = 'failure' | 'indication' | 'none';

interface Case {
  message: string;
  procedureCode: number;
  triggeringMessage: 'initiating-message' | 'successful-outcome' | 'unsuccessful-outcome';
  procedureCriticality: Criticality;
  /** The answer to an abstract syntax error of criticality reject. */
  rejected: Answer;
  /** A mandatory IE of criticality reject other than the UE's ids (undefined: the message has none). */
  mandatoryReject: number | undefined;
  build: (ids: Ids) => NGAPPDU;
}

const CASES: Case[] = [
  {
    message: 'HandoverRequired',
    procedureCode: 12,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'reject',
    rejected: 'failure',
    mandatoryReject: 105, // TargetID
    build: (ids) =>
      handoverRequired({
        ids,
        target: globalRanNodeId(gnbConfig(2)),
        sourceCell: CELL_B,
        targetCell: CELL_B,
        pduSessionIds: [1],
      }),
  },
  {
    message: 'HandoverRequestAcknowledge',
    procedureCode: 13,
    triggeringMessage: 'successful-outcome',
    procedureCriticality: 'reject',
    rejected: 'none',
    mandatoryReject: 106, // TargetToSource-TransparentContainer
    build: (ids) =>
      handoverRequestAcknowledge(
        ids,
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
  },
  {
    message: 'HandoverFailure',
    procedureCode: 13,
    triggeringMessage: 'unsuccessful-outcome',
    procedureCriticality: 'reject',
    rejected: 'none',
    mandatoryReject: undefined,
    build: (ids) => handoverFailure(ids.amfUeNgapId, CAUSE),
  },
  {
    message: 'HandoverNotify',
    procedureCode: 11,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'ignore',
    rejected: 'indication',
    mandatoryReject: 10, // AMF-UE-NGAP-ID
    build: (ids) => handoverNotify(ids, CELL_B),
  },
  {
    message: 'HandoverCancel',
    procedureCode: 10,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'reject',
    rejected: 'indication',
    mandatoryReject: 10,
    build: (ids) => handoverCancel(ids, { choice: 'radioNetwork', value: 'handover-cancelled' }),
  },
  {
    message: 'UplinkRANStatusTransfer',
    procedureCode: 49,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'ignore',
    rejected: 'indication',
    mandatoryReject: 84, // RANStatusTransfer-TransparentContainer
    build: (ids) => uplinkRanStatusTransfer(ids, 1),
  },
  {
    message: 'UEContextModificationResponse',
    procedureCode: 40,
    triggeringMessage: 'successful-outcome',
    procedureCriticality: 'reject',
    rejected: 'none',
    mandatoryReject: undefined,
    build: (ids) => buildUEContextModificationResponse(ids),
  },
  {
    message: 'UEContextModificationFailure',
    procedureCode: 40,
    triggeringMessage: 'unsuccessful-outcome',
    procedureCriticality: 'reject',
    rejected: 'none',
    mandatoryReject: undefined,
    build: (ids) => buildUEContextModificationFailure({ ...ids, cause: CAUSE }),
  },
  {
    message: 'UERadioCapabilityInfoIndication',
    procedureCode: 44,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'ignore',
    rejected: 'indication',
    mandatoryReject: 10,
    build: (ids) => buildUERadioCapabilityInfoIndication({ ...ids, ueRadioCapability: OPAQUE }),
  },
  {
    message: 'UERadioCapabilityCheckResponse',
    procedureCode: 43,
    triggeringMessage: 'successful-outcome',
    procedureCriticality: 'reject',
    rejected: 'none',
    mandatoryReject: 30, // IMSVoiceSupportIndicator
    build: (ids) => buildUERadioCapabilityCheckResponse({ ...ids, imsVoiceSupportIndicator: 'supported' }),
  },
  {
    message: 'PDUSessionResourceModifyIndication',
    procedureCode: 27,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'reject',
    rejected: 'indication',
    mandatoryReject: 63, // PDUSessionResourceModifyListModInd
    build: (ids) =>
      buildPDUSessionResourceModifyIndication({
        ...ids,
        pduSessionResourceModifyListModInd: [
          { pDUSessionID: 1, pDUSessionResourceModifyIndicationTransfer: OPAQUE },
        ],
      }),
  },
  {
    message: 'PDUSessionResourceNotify',
    procedureCode: 30,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'ignore',
    rejected: 'indication',
    mandatoryReject: 10,
    build: (ids) => buildPDUSessionResourceNotify(ids),
  },
  {
    message: 'SecondaryRATDataUsageReport',
    procedureCode: 52,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'ignore',
    rejected: 'indication',
    mandatoryReject: undefined,
    build: (ids) =>
      buildSecondaryRATDataUsageReport({
        ...ids,
        pduSessionResourceSecondaryRatUsageList: [
          { pDUSessionID: 1, secondaryRATDataUsageReportTransfer: OPAQUE },
        ],
      }),
  },
  {
    message: 'NASNonDeliveryIndication',
    procedureCode: 19,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'ignore',
    rejected: 'indication',
    mandatoryReject: 10,
    build: (ids) =>
      buildNASNonDeliveryIndication({ ...ids, nasPdu: Uint8Array.of(0x7e, 0x00, 0x67), cause: CAUSE }),
  },
  {
    message: 'LocationReport',
    procedureCode: 18,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'ignore',
    rejected: 'indication',
    mandatoryReject: 10,
    build: (ids) =>
      buildLocationReport({
        ...ids,
        userLocationInformation: userLocationInformation(CELL_B),
        locationReportingRequestType: { eventType: 'direct', reportArea: 'cell' },
      }),
  },
  {
    message: 'LocationReportingFailureIndication',
    procedureCode: 17,
    triggeringMessage: 'initiating-message',
    procedureCriticality: 'ignore',
    rejected: 'indication',
    mandatoryReject: 10,
    build: (ids) => buildLocationReportingFailureIndication({ ...ids, cause: CAUSE }),
  },
];

const UNKNOWN_LOCAL: Cause = { choice: 'radioNetwork', value: 'unknown-local-UE-NGAP-ID' };
const REJECT: Cause = { choice: 'protocol', value: 'abstract-syntax-error-reject' };

describe('TS 38.413 clause 10 for the messages of N2 handover and the radio-initiated UE procedures', () => {
  let s: SessionService;
  /** A UE registered at gnb-1 with a session, so that a leak shows in its rules. */
  let ue: Ids;
  /** The UE itself, for a Service Request after a local release. */
  let device: SimulatedUe;
  /** The target: driven by hand here (it answers no Handover Request by itself). */
  let gnb2: SimulatedGnb;
  before(async () => {
    s = await startSessionService();
    ({ gnb: gnb2 } = await s.anotherGnb(2, CELL_B, '127.0.0.3'));
    const { sessions, ue: registered } = await s.registered(1);
    device = registered;
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    ue = idsOfOnlyUe();
    await downlinkAtGnb1();
  });

  /** The UPF's downlink towards gnb-1 is set once the radio answered: the baseline of every count. */
  const downlinkAtGnb1 = () =>
    s.until(
      async () => [...s.rules.sessions.values()].find((r) => r.downlink?.startsWith('127.0.0.2:') === true),
      'the downlink towards gnb-1',
    );

  /**
   * TS 38.413 10.6 after the AMF's Error Indication about the UE's ids: both nodes released the UE's
   * connection locally (no UE Context Release), the AMF holds one connection less, the UE is CM-IDLE
   * with its session's user plane deactivated (no downlink at the UPF, nothing else changed), and gnb-1
   * forgot it too. A Service Request brings it back for the next case.
   */
  async function releasedLocally(before: ReturnType<SessionService['holding']>): Promise<void> {
    await s.until(
      async () => (s.held().connections === before.connections - 1 ? true : undefined),
      'the UE’s connection released',
    );
    assert.deepEqual(s.held(), { connections: before.connections - 1, handovers: 0, smfHandovers: 0 });
    await s.until(
      async () => ([...s.rules.sessions.values()].every((r) => r.downlink === undefined) ? true : undefined),
      'the user plane deactivated',
    );
    assert.equal(s.ues.link(ue.ranUeNgapId), undefined, 'gnb-1 released the UE too');
    assert.equal(s.ues.localReleases.at(-1)?.ranUeNgapId, ue.ranUeNgapId);
    assert.equal(device.connected, false);
    assert.ok(
      !s.received.some(
        (x) =>
          x.messageType === 'UEContextReleaseCommand' && idOf(x.pdu, 'AMF-UE-NGAP-ID') === ue.amfUeNgapId,
      ),
      'a local release: no UE Context Release Command',
    );
    await backByServiceRequest(before);
  }

  /**
   * The UE back through a Service Request: the AMF holds `before`'s connections again and the UPF its
   * rules, but for the downlink TEID gnb-1 gave anew.
   */
  async function backByServiceRequest(before: ReturnType<SessionService['holding']>): Promise<void> {
    assert.deepEqual(await device.serviceRequest('data', { uplinkData: [1] }), { outcome: 'accepted' });
    ue = idsOfOnlyUe();
    await downlinkAtGnb1();
    const anyTeid = (rules: string) => rules.replace(/(127\.0\.0\.2:2152 teid )\d+/g, '$1*');
    assert.deepEqual(s.held(), { connections: before.connections, handovers: 0, smfHandovers: 0 });
    assert.equal(anyTeid(s.holding().rules), anyTeid(before.rules));
  }
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  function idsOfOnlyUe(): Ids {
    for (let ran = 1; ran < 1000; ran += 1) {
      const link = s.ues.link(ran);
      if (link?.amfUeNgapId !== undefined) return { amfUeNgapId: link.amfUeNgapId, ranUeNgapId: ran };
    }
    assert.fail('no UE at gnb-1');
  }

  /** Ids the AMF never assigned: a fresh RAN UE NGAP ID each, to tell the answers apart. */
  let nextStranger = 5000;
  const stranger = (): Ids => ({ amfUeNgapId: 900_000 + nextStranger, ranUeNgapId: nextStranger++ });

  /**
   * What the AMF sent gnb-1 in answer to `pdu`: a Handover Cancel for ids no one holds follows it on
   * the same stream, and everything received before that one's Error Indication is the answer
   * (stream order, no waiting on time for a silence).
   */
  async function answersTo(pdu: NGAPPDU, gnb: SimulatedGnb = s.gnb): Promise<NgapExchange[]> {
    const probe = stranger();
    const got: NgapExchange[] = [];
    const stop = gnb.on((event) => {
      if (event.type === 'received') got.push(event.exchange);
    });
    try {
      const probed = gnb.next((event) =>
        event.type === 'received' && ranIdOf(event.exchange.pdu) === probe.ranUeNgapId ? true : undefined,
      );
      gnb.send(pdu, 1);
      gnb.send(handoverCancel(probe, CAUSE), 1);
      await probed;
    } finally {
      stop();
    }
    return got.filter((exchange) => ranIdOf(exchange.pdu) !== probe.ranUeNgapId);
  }

  const ranIdOf = (pdu: NGAPPDU | undefined) => idOf(pdu, 'RAN-UE-NGAP-ID');
  function idOf(pdu: NGAPPDU | undefined, name: 'AMF-UE-NGAP-ID' | 'RAN-UE-NGAP-ID'): number | undefined {
    if (pdu === undefined || pdu.choice === null) return undefined;
    const ies = (pdu.value.value as { protocolIEs?: AnyIe[] }).protocolIEs ?? [];
    const value = ies.find((ie) => ie.name === name)?.value;
    return typeof value === 'number' ? value : undefined;
  }

  /** The same UE contexts, no handover at the AMF or the SMF, the UPF's rules unchanged. */

  /** Message type, cause and Criticality Diagnostics of each answer. */
  const summary = (answers: NgapExchange[]) =>
    answers.map((answer) => ({ type: answer.messageType, ...causeAndDiagnostics(answer.pdu) }));

  const failureType = (c: Case) => (c.message === 'HandoverRequired' ? 'HandoverPreparationFailure' : '?');
  const diagnosed = (c: Case, ies: object[]) => ({
    type: c.rejected === 'failure' ? failureType(c) : 'ErrorIndication',
    cause: REJECT,
    diagnostics:
      c.rejected === 'failure'
        ? { procedureCriticality: c.procedureCriticality, iEsCriticalityDiagnostics: ies }
        : {
            procedureCode: c.procedureCode,
            triggeringMessage: c.triggeringMessage,
            procedureCriticality: c.procedureCriticality,
            iEsCriticalityDiagnostics: ies,
          },
  });
  /** The answer to the message, well formed, for ids the AMF does not know (10.6). */
  const unknownUe = (c: Case) => ({
    type: c.rejected === 'failure' ? failureType(c) : 'ErrorIndication',
    cause: UNKNOWN_LOCAL,
    diagnostics: undefined,
  });

  for (const c of CASES) {
    describe(c.message, () => {
      it('for a UE the AMF does not know: unknown-local-UE-NGAP-ID, nothing left', async () => {
        const before = s.holding();
        const ids = stranger();
        const answers = await answersTo(c.build(ids));
        assert.deepEqual(summary(answers), [unknownUe(c)]);
        // 8.2.7.2 / 9.2.3.4: the answer names the ids the message named.
        const pdu = answers[0]?.pdu;
        assert.equal(idOf(pdu, 'AMF-UE-NGAP-ID'), ids.amfUeNgapId);
        // Handover Failure names no RAN UE NGAP ID (9.2.3.6), so none comes back.
        assert.equal(
          idOf(pdu, 'RAN-UE-NGAP-ID'),
          c.message === 'HandoverFailure' ? undefined : ids.ranUeNgapId,
        );
        await s.nothingLeft(before);
      });

      if (c.mandatoryReject !== undefined) {
        const missing = c.mandatoryReject;
        it(`without mandatory IE ${missing} (criticality reject): ${c.rejected === 'none' ? 'not processed, unanswered' : 'rejected, the IE missing in Criticality Diagnostics'}`, async () => {
          const before = s.holding();
          const answers = await answersTo(withoutIe(c.build(stranger()), missing));
          assert.deepEqual(
            summary(answers),
            c.rejected === 'none'
              ? []
              : [diagnosed(c, [{ iECriticality: 'reject', iEID: missing, typeOfError: 'missing' }])],
          );
          await s.nothingLeft(before);
        });
      }

      // 10.3.5 "Ignore IE": the procedure goes on with the IEs present; for these unknown ids it ends
      // as the well-formed message does.
      const ignoreIes = (MESSAGE_IES.get(c.message) ?? []).filter(
        (ie) => ie.presence === 'mandatory' && ie.criticality === 'ignore',
      );
      for (const { id, name } of ignoreIes) {
        it(`without mandatory IE ${name} (criticality ignore): processed on the other IEs`, async () => {
          const before = s.holding();
          const answers = await answersTo(withoutIe(c.build(stranger()), id));
          assert.deepEqual(summary(answers), [unknownUe(c)]);
          await s.nothingLeft(before);
        });
      }

      it(`an unknown IE of criticality reject: ${c.rejected === 'none' ? 'not processed, unanswered' : 'rejected, not-understood'}`, async () => {
        const before = s.holding();
        const answers = await answersTo(withUnknownIe(c.build(stranger()), 'reject'));
        assert.deepEqual(
          summary(answers),
          c.rejected === 'none'
            ? []
            : [diagnosed(c, [{ iECriticality: 'reject', iEID: UNKNOWN_ID, typeOfError: 'not-understood' }])],
        );
        await s.nothingLeft(before);
      });

      it('an unknown IE of criticality ignore: processed as if absent', async () => {
        const before = s.holding();
        const answers = await answersTo(withUnknownIe(c.build(stranger()), 'ignore'));
        assert.deepEqual(summary(answers), [unknownUe(c)]);
        await s.nothingLeft(before);
      });

      it('an unknown IE of criticality notify: processed, the IE reported in the answer', async () => {
        const before = s.holding();
        const answers = await answersTo(withUnknownIe(c.build(stranger()), 'notify'));
        const notify = { iECriticality: 'notify', iEID: UNKNOWN_ID, typeOfError: 'not-understood' };
        assert.deepEqual(summary(answers), [
          {
            ...unknownUe(c),
            diagnostics:
              c.rejected === 'failure'
                ? { procedureCriticality: c.procedureCriticality, iEsCriticalityDiagnostics: [notify] }
                : {
                    procedureCode: c.procedureCode,
                    triggeringMessage: c.triggeringMessage,
                    procedureCriticality: c.procedureCriticality,
                    iEsCriticalityDiagnostics: [notify],
                  },
          },
        ]);
        await s.nothingLeft(before);
      });
    });
  }

  describe('an unknown IE of criticality reject in a message naming a UE the AMF serves', () => {
    for (const c of CASES) {
      it(`${c.message}: ${c.rejected === 'none' ? 'unanswered' : 'rejected'}, not processed; the UE and its session stay`, async () => {
        const before = s.holding();
        const answers = await answersTo(withUnknownIe(c.build(ue), 'reject'));
        assert.deepEqual(
          summary(answers),
          c.rejected === 'none'
            ? []
            : [diagnosed(c, [{ iECriticality: 'reject', iEID: UNKNOWN_ID, typeOfError: 'not-understood' }])],
        );
        await s.nothingLeft(before);
        assert.deepEqual(idsOfOnlyUe(), ue);
      });
    }
  });

  describe('the UE’s AMF UE NGAP ID with another RAN UE NGAP ID (10.6): inconsistent-remote-UE-NGAP-ID, both nodes release the UE locally', () => {
    // Handover Request Acknowledge and Handover Failure name a target's ids, never the UE's source
    // connection: for those ids unknown-local-UE-NGAP-ID (below).
    for (const c of CASES.filter((c) => c.procedureCode !== 13)) {
      it(c.message, async () => {
        const before = s.holding();
        const answers = await answersTo(c.build({ ...ue, ranUeNgapId: ue.ranUeNgapId + 4000 }));
        assert.deepEqual(summary(answers), [
          { ...unknownUe(c), cause: { choice: 'radioNetwork', value: 'inconsistent-remote-UE-NGAP-ID' } },
        ]);
        await releasedLocally(before);
      });
    }
  });

  describe('the UE’s RAN UE NGAP ID with an AMF UE NGAP ID the AMF did not assign (10.6): unknown-local-UE-NGAP-ID, both nodes release the UE locally', () => {
    for (const c of CASES.filter((c) => c.procedureCode !== 13)) {
      it(c.message, async () => {
        const before = s.holding();
        const answers = await answersTo(c.build({ ...ue, amfUeNgapId: ue.amfUeNgapId + 900_000 }));
        assert.deepEqual(summary(answers), [unknownUe(c)]);
        await releasedLocally(before);
      });
    }
  });

  it('UE Context Release Complete for ids the AMF does not hold: the last message, so no Error Indication; the UE’s connection under its RAN UE NGAP ID released locally (10.6)', async () => {
    const before = s.holding();
    const wrong = { ...ue, amfUeNgapId: ue.amfUeNgapId + 900_000 };
    const answers = await answersTo(ueContextReleaseComplete(wrong, s.ues.cell));
    assert.deepEqual(summary(answers), []);
    await s.until(
      async () => (s.held().connections === before.connections - 1 ? true : undefined),
      'the UE’s connection released',
    );
    // gnb-1 heard no Error Indication: it still holds the UE, which a Service Request cannot leave.
    assert.notEqual(s.ues.link(ue.ranUeNgapId), undefined);
    // Its UE Context Release Request names a connection the AMF no longer holds: Error Indication,
    // and gnb-1 releases locally in turn (10.6); a Service Request then brings the UE back.
    const indicated = s.gnb.nextReceived('ErrorIndication');
    assert.ok(s.ues.requestRelease(device));
    assert.deepEqual(causeAndDiagnostics((await indicated).pdu).cause, UNKNOWN_LOCAL);
    await s.until(async () => (device.connected ? undefined : true), 'gnb-1 released the UE');
    await backByServiceRequest(before);
  });

  it('Handover Cancel with no handover in progress: acknowledged (8.4.6.2, the source wants none), nothing else', async () => {
    const before = s.holding();
    const answers = await answersTo(handoverCancel(ue, CAUSE));
    assert.deepEqual(
      answers.map((a) => a.messageType),
      ['HandoverCancelAcknowledge'],
    );
    await s.nothingLeft(before);
    assert.deepEqual(idsOfOnlyUe(), ue);
  });

  it('during a handover’s preparation: Notify and Acknowledge from the wrong node, status before the Command, refused; the handover goes on, then ends clean', async () => {
    const before = s.holding();
    const asked = gnb2.nextReceived('HandoverRequest');
    s.gnb.send(CASES[0]!.build(ue), 1);
    const request = await asked;
    assert.ok(request.pdu !== undefined);
    const read = readHandoverRequest(request.pdu);
    assert.ok(read.ok);
    const atTarget = { amfUeNgapId: read.message.amfUeNgapId, ranUeNgapId: 777 };
    const NOT_IN_STATE: Cause = { choice: 'protocol', value: 'message-not-compatible-with-receiver-state' };
    const only = (cause: Cause) => [{ type: 'ErrorIndication', cause, diagnostics: undefined }];

    // The UE has not arrived: no Acknowledge yet, the target's connection is not the UE's (8.4.3).
    assert.deepEqual(summary(await answersTo(handoverNotify(atTarget, CELL_B), gnb2)), only(UNKNOWN_LOCAL));
    // The target's ids from the source's radio: not a connection of that radio (10.6).
    assert.deepEqual(summary(await answersTo(CASES[1]!.build(atTarget))), only(UNKNOWN_LOCAL));
    assert.deepEqual(
      summary(await answersTo(handoverFailure(atTarget.amfUeNgapId, CAUSE))),
      only(UNKNOWN_LOCAL),
    );
    // The source's status before it was given the Command, and the source's Notify.
    assert.deepEqual(summary(await answersTo(uplinkRanStatusTransfer(ue, 1))), only(NOT_IN_STATE));
    assert.deepEqual(summary(await answersTo(handoverNotify(ue, CELL_B))), only(NOT_IN_STATE));
    assert.equal(s.held().handovers, 1, 'the handover is still being prepared');

    // The target cannot take the UE after all: the source hears it, nothing is left anywhere.
    const heard = s.gnb.nextReceived('HandoverPreparationFailure');
    const failed = await answersTo(handoverFailure(read.message.amfUeNgapId, CAUSE), gnb2);
    assert.deepEqual(summary(failed), []);
    assert.deepEqual(causeAndDiagnostics((await heard).pdu).cause, CAUSE);
    await s.nothingLeft(before);
    assert.deepEqual(idsOfOnlyUe(), ue);
  });

  describe('the UE known, the message out of its state', () => {
    const NOT_IN_STATE: Cause = { choice: 'protocol', value: 'message-not-compatible-with-receiver-state' };
    for (const [message, build, cause] of [
      [
        'Handover Notify with no handover in progress',
        (ids: Ids) => handoverNotify(ids, CELL_B),
        NOT_IN_STATE,
      ],
      [
        'Uplink RAN Status Transfer with no handover prepared',
        (ids: Ids) => uplinkRanStatusTransfer(ids, 1),
        NOT_IN_STATE,
      ],
    ] as const) {
      it(`${message}: Error Indication, ${cause.value}; the UE stays`, async () => {
        const before = s.holding();
        const answers = await answersTo(build(ue));
        assert.deepEqual(summary(answers), [{ type: 'ErrorIndication', cause, diagnostics: undefined }]);
        await s.nothingLeft(before);
        assert.deepEqual(idsOfOnlyUe(), ue);
      });
    }

    // The UE's own AMF UE NGAP ID at its source is not one of a handover's target (8.4.2): the ids are
    // erroneous, and both nodes release the UE's connection locally (10.6).
    for (const [message, build] of [
      ['Handover Request Acknowledge naming the UE outside a handover', (ids: Ids) => CASES[1]!.build(ids)],
      [
        'Handover Failure naming the UE outside a handover',
        (ids: Ids) => handoverFailure(ids.amfUeNgapId, CAUSE),
      ],
    ] as const) {
      it(`${message}: Error Indication, unknown-local-UE-NGAP-ID; both nodes release the UE locally`, async () => {
        const before = s.holding();
        const answers = await answersTo(build(ue));
        assert.deepEqual(summary(answers), [
          { type: 'ErrorIndication', cause: UNKNOWN_LOCAL, diagnostics: undefined },
        ]);
        await releasedLocally(before);
      });
    }
  });
});
