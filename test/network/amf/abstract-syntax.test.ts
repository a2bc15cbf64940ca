import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { encodeNasMessage } from '../../../src/network/nas/index.ts';
import type { Criticality, NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { checkIes } from '../../../src/network/ngap/ie-check.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { answered, settle } from './amf-steps.ts';
import { causeAndDiagnostics, emittedPdus } from './emitted.ts';
import { createHarness, type Harness, type TestRadio } from './n2-harness.ts';
import { ngReset, ngResetAcknowledgeFromRadio, ngSetupRequest } from './messages.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  initialUeMessage,
  TestUe,
  uplinkNasTransport,
  type AmfHarness,
} from './test-ue.ts';
import { type AnyIe, withIes } from '../../helpers/ngap-ies.ts';

// TS 38.413 clause 10.3: IEs a message does not define (10.3.4.2), missing (10.3.5), repeated or out of
// the order of the ASN.1 (10.3.6), judged from the generated object-set tables for every message the
// AMF handles. Every PDU the AMF sends here is dissected by tshark at the end.

const emitted = emittedPdus();
after(() => emitted.check());

/** No NGAP object set of V17.4.0 defines IE id 999. */
const UNKNOWN_ID = 999;
const unknownIe = (criticality: Criticality): AnyIe => ({
  id: UNKNOWN_ID,
  name: null,
  criticality,
  value: Uint8Array.of(0x2a),
});

const appended = (ie: AnyIe) => (ies: AnyIe[]) => [...ies, ie];
/** The first IE with `id` once more, right after itself. */
const repeated = (id: number) => (ies: AnyIe[]) => ies.flatMap((ie) => (ie.id === id ? [ie, ie] : [ie]));
const swapped = (ies: AnyIe[]) => [ies[1]!, ies[0]!, ...ies.slice(2)];

async function exchange(h: Harness, radio: TestRadio, pdu: NGAPPDU, streamId = 0) {
  const from = radio.received.length;
  radio.send(pdu, streamId);
  await h.settled();
  const answers = radio.received.slice(from);
  emitted.add(answers);
  return answers;
}

const notUnderstood = (criticality: Criticality, iEID = UNKNOWN_ID) => ({
  iECriticality: criticality,
  iEID,
  typeOfError: 'not-understood',
});

describe('the IE check against the object set (ie-check.ts)', () => {
  it('tells unknown ids (each once), missing mandatory IEs, and order or repetition', () => {
    const ngSetup = (ids: number[]) => ids.map((id) => ({ id, criticality: 'reject' as const }));
    assert.deepEqual(checkIes('NGSetupRequest', ngSetup([27, 102, 21])), {
      notComprehended: [],
      missing: [],
      falselyConstructed: false,
    });
    assert.deepEqual(checkIes('NGSetupRequest', ngSetup([27, 999, 999, 21])), {
      notComprehended: [{ id: 999, criticality: 'reject' }],
      missing: [{ id: 102, criticality: 'reject' }],
      falselyConstructed: false,
    });
    assert.equal(checkIes('NGSetupRequest', ngSetup([102, 27, 21]))?.falselyConstructed, true);
    assert.equal(checkIes('NGSetupRequest', ngSetup([27, 102, 27, 21]))?.falselyConstructed, true);
    assert.equal(checkIes('NoSuchMessage', []), undefined);
  });

  it('still tells missing mandatory IEs when one is repeated or out of order', () => {
    const ngSetup = (ids: number[]) => ids.map((id) => ({ id, criticality: 'reject' as const }));
    assert.deepEqual(checkIes('NGSetupRequest', ngSetup([27, 27, 21])), {
      notComprehended: [],
      missing: [{ id: 102, criticality: 'reject' }],
      falselyConstructed: true,
    });
    assert.deepEqual(checkIes('NGSetupRequest', ngSetup([102, 27, 21]))?.missing, []);
  });

  it('checks each container afresh: the same one grown, or against another message, is not given the last result', () => {
    const ngSetup = (ids: number[]) => ids.map((id) => ({ id, criticality: 'reject' as const }));
    const container = ngSetup([27, 102]);
    assert.deepEqual(checkIes('NGSetupRequest', container)?.missing, [{ id: 21, criticality: 'ignore' }]);
    container.push({ id: 21, criticality: 'reject' });
    assert.deepEqual(checkIes('NGSetupRequest', container)?.missing, []);
    assert.deepEqual(checkIes('NGSetupResponse', container)?.notComprehended.length, 3);
    assert.deepEqual(checkIes('NGSetupRequest', ngSetup([27, 102]))?.missing.length, 1);
  });
});

describe('NG Setup Request: IEs not comprehended, repeated or out of order (class 1 with a failure message)', () => {
  async function setup(pdu: NGAPPDU) {
    const h = await createHarness();
    const radio = await h.connect();
    const answers = await exchange(h, radio, pdu);
    return { h, answers };
  }

  it('an unknown IE of criticality reject: NG Setup Failure, the IE not understood in Criticality Diagnostics, no radio', async () => {
    const { h, answers } = await setup(withIes(ngSetupRequest(), appended(unknownIe('reject'))));
    assert.deepEqual(
      answers.map((a) => a.messageType),
      ['NGSetupFailure'],
    );
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu), {
      cause: { choice: 'protocol', value: 'abstract-syntax-error-reject' },
      // 9.3.1.3: no procedure code or triggering message in the procedure's own failure message.
      diagnostics: { procedureCriticality: 'reject', iEsCriticalityDiagnostics: [notUnderstood('reject')] },
    });
    assert.equal(h.state.radios().length, 0);
    await h.close();
  });

  it('an unknown IE of criticality ignore: accepted as if it were absent, nothing reported', async () => {
    const { h, answers } = await setup(withIes(ngSetupRequest(), appended(unknownIe('ignore'))));
    assert.deepEqual(
      answers.map((a) => a.messageType),
      ['NGSetupResponse'],
    );
    assert.equal(causeAndDiagnostics(answers[0]?.pdu).diagnostics, undefined);
    assert.equal(h.state.radios().length, 1);
    await h.close();
  });

  it('an unknown IE of criticality notify: accepted, the IE reported in the response', async () => {
    const { h, answers } = await setup(withIes(ngSetupRequest(), appended(unknownIe('notify'))));
    assert.deepEqual(
      answers.map((a) => a.messageType),
      ['NGSetupResponse'],
    );
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu).diagnostics, {
      procedureCriticality: 'reject',
      iEsCriticalityDiagnostics: [notUnderstood('notify')],
    });
    assert.equal(h.state.radios().length, 1);
    await h.close();
  });

  for (const [what, change] of [
    ['a repeated IE (Supported TA List twice)', repeated(102)],
    [
      'IEs out of order (Supported TA List before Global RAN Node ID)',
      (ies: AnyIe[]) => [ies[1]!, ies[0]!, ies[2]!],
    ],
  ] as const) {
    it(`${what}: NG Setup Failure, falsely constructed message (10.3.6), no radio`, async () => {
      const { h, answers } = await setup(withIes(ngSetupRequest(), change));
      assert.deepEqual(
        answers.map((a) => a.messageType),
        ['NGSetupFailure'],
      );
      assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu), {
        cause: { choice: 'protocol', value: 'abstract-syntax-error-falsely-constructed-message' },
        diagnostics: { procedureCriticality: 'reject' },
      });
      assert.equal(h.state.radios().length, 0);
      await h.close();
    });
  }

  it('lists every IE at fault of criticality reject or notify, not understood and missing; none of ignore', async () => {
    const request = withIes(ngSetupRequest(), (ies) => [
      ...ies.filter((ie) => ie.id !== 102 && ie.id !== 21),
      unknownIe('notify'),
      { ...unknownIe('ignore'), id: 998 },
    ]);
    const { h, answers } = await setup(request);
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu).diagnostics, {
      procedureCriticality: 'reject',
      iEsCriticalityDiagnostics: [
        notUnderstood('notify'),
        { iECriticality: 'reject', iEID: 102, typeOfError: 'missing' },
      ],
    });
    await h.close();
  });
});

describe('NG Reset and its acknowledge: a class 1 procedure without a failure message, and a response', () => {
  async function ready() {
    const h = await createHarness();
    const radio = await h.connect();
    await exchange(h, radio, ngSetupRequest({ name: 'gnb-1' }));
    return { h, radio };
  }

  it('an NG Reset with an unknown IE of criticality reject: Error Indication naming the procedure, nothing reset', async () => {
    const { h, radio } = await ready();
    const answers = await exchange(h, radio, withIes(ngReset(), appended(unknownIe('reject'))));
    assert.deepEqual(
      answers.map((a) => a.messageType),
      ['ErrorIndication'],
    );
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu), {
      cause: { choice: 'protocol', value: 'abstract-syntax-error-reject' },
      diagnostics: {
        procedureCode: 20,
        triggeringMessage: 'initiating-message',
        procedureCriticality: 'reject',
        iEsCriticalityDiagnostics: [notUnderstood('reject')],
      },
    });
    await h.close();
  });

  it('an acknowledge with an unknown IE of criticality reject is not processed (local error handling), unanswered', async () => {
    const { h, radio } = await ready();
    assert.equal(h.n2.reset('001:01:000001'), true);
    await h.settled();
    emitted.add(radio.received.splice(0));
    assert.deepEqual(
      await exchange(h, radio, withIes(ngResetAcknowledgeFromRadio(), appended(unknownIe('reject')))),
      [],
    );
    // The reset is still awaiting its acknowledge: a good one is taken, not called unexpected.
    assert.deepEqual(await exchange(h, radio, ngResetAcknowledgeFromRadio()), []);
    await h.close();
  });

  it('an acknowledge with an unknown IE of criticality notify is processed, then reported by Error Indication', async () => {
    const { h, radio } = await ready();
    assert.equal(h.n2.reset('001:01:000001'), true);
    await h.settled();
    emitted.add(radio.received.splice(0));
    const answers = await exchange(
      h,
      radio,
      withIes(ngResetAcknowledgeFromRadio(), appended(unknownIe('notify'))),
    );
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu), {
      cause: { choice: 'protocol', value: 'abstract-syntax-error-ignore-and-notify' },
      diagnostics: {
        procedureCode: 20,
        triggeringMessage: 'successful-outcome',
        procedureCriticality: 'reject',
        iEsCriticalityDiagnostics: [notUnderstood('notify')],
      },
    });
    assert.equal(answers.length, 1);
    await h.close();
  });
});

describe('UE-associated messages (class 2): Error Indication on the message stream, with the UE NGAP ids it named', () => {
  const RAN = 1;
  async function ueRadio(): Promise<{ h: AmfHarness; radio: TestRadio; ue: TestUe }> {
    const h = await createAmfHarness();
    const radio = await h.radio();
    emitted.add(radio.received.splice(0));
    return { h, radio, ue: new TestUe({ ranUeNgapId: RAN }) };
  }
  const registration = (ue: TestUe) => initialUeMessage(RAN, encodeNasMessage(ue.registrationRequest()));

  async function send(h: AmfHarness, radio: TestRadio, ue: TestUe, pdu: NGAPPDU) {
    const from = radio.received.length;
    radio.send(pdu, 1);
    await settle(h);
    emitted.add(radio.received.slice(from));
    return { ...answered(radio, ue, from), streams: radio.received.slice(from).map((r) => r.streamId) };
  }

  function errorIndicationIds(pdu: NGAPPDU | undefined) {
    assert.ok(pdu?.choice === 'initiatingMessage' && pdu.value.name === 'ErrorIndication');
    const ies = pdu.value.value.protocolIEs;
    return { amf: ieValue(ies, 'AMF-UE-NGAP-ID'), ran: ieValue(ies, 'RAN-UE-NGAP-ID') };
  }

  it('Initial UE Message with an unknown IE of criticality reject: Error Indication, no UE connection', async () => {
    const { h, radio, ue } = await ueRadio();
    const { pdus, nas, streams } = await send(
      h,
      radio,
      ue,
      withIes(registration(ue), appended(unknownIe('reject'))),
    );
    assert.deepEqual(nas, []);
    assert.deepEqual(streams, [1]);
    assert.deepEqual(causeAndDiagnostics(pdus[0]), {
      cause: { choice: 'protocol', value: 'abstract-syntax-error-reject' },
      diagnostics: {
        procedureCode: 15,
        triggeringMessage: 'initiating-message',
        procedureCriticality: 'ignore',
        iEsCriticalityDiagnostics: [notUnderstood('reject')],
      },
    });
    assert.deepEqual(errorIndicationIds(pdus[0]), { amf: undefined, ran: RAN });
    assert.equal(h.amf.counts().connections, 0);
    await h.close();
  });

  it('Initial UE Message with an unknown IE of criticality ignore: processed, nothing reported', async () => {
    const { h, radio, ue } = await ueRadio();
    const { pdus, nas } = await send(h, radio, ue, withIes(registration(ue), appended(unknownIe('ignore'))));
    assert.deepEqual(
      nas.map((m) => m.messageType),
      ['authenticationRequest'],
    );
    assert.equal(pdus.length, 1);
    await h.close();
  });

  it('Initial UE Message with an unknown IE of criticality notify: processed, then Error Indication ignore-and-notify', async () => {
    const { h, radio, ue } = await ueRadio();
    const { pdus, nas } = await send(h, radio, ue, withIes(registration(ue), appended(unknownIe('notify'))));
    assert.deepEqual(
      nas.map((m) => m.messageType),
      ['authenticationRequest'],
    );
    // Sent once the message is handed over; the NAS answer follows when authentication data arrive.
    const report = pdus.filter((p) => p.choice === 'initiatingMessage' && p.value.name === 'ErrorIndication');
    assert.equal(report.length, 1);
    assert.deepEqual(causeAndDiagnostics(report[0]), {
      cause: { choice: 'protocol', value: 'abstract-syntax-error-ignore-and-notify' },
      diagnostics: {
        procedureCode: 15,
        triggeringMessage: 'initiating-message',
        procedureCriticality: 'ignore',
        iEsCriticalityDiagnostics: [notUnderstood('notify')],
      },
    });
    await h.close();
  });

  for (const [what, change] of [
    ['a repeated NAS-PDU', repeated(38)],
    ['NAS-PDU before RAN UE NGAP ID', swapped],
  ] as const) {
    it(`Initial UE Message with ${what}: Error Indication, falsely constructed message, not processed`, async () => {
      const { h, radio, ue } = await ueRadio();
      const { pdus, nas } = await send(h, radio, ue, withIes(registration(ue), change));
      assert.deepEqual(nas, []);
      assert.deepEqual(causeAndDiagnostics(pdus[0]), {
        cause: { choice: 'protocol', value: 'abstract-syntax-error-falsely-constructed-message' },
        diagnostics: {
          procedureCode: 15,
          triggeringMessage: 'initiating-message',
          procedureCriticality: 'ignore',
        },
      });
      assert.equal(h.amf.counts().connections, 0);
      await h.close();
    });
  }

  it('Uplink NAS Transport with an unknown IE of criticality reject or a repeated IE: Error Indication with both ids, the NAS message not processed', async () => {
    const { h, radio, ue } = await ueRadio();
    const first = await send(h, radio, ue, registration(ue));
    const challenge = first.nas[0]!;
    assert.equal(challenge.messageType, 'authenticationRequest');
    const ids = { amf: amfUeNgapIdOf(first.pdus[0]!)!, ran: RAN };
    const response = uplinkNasTransport(ids, encodeNasMessage(ue.authenticationResponse(challenge)));

    const rejected = await send(h, radio, ue, withIes(response, appended(unknownIe('reject'))));
    assert.deepEqual(rejected.nas, []);
    assert.deepEqual(causeAndDiagnostics(rejected.pdus[0]).cause, {
      choice: 'protocol',
      value: 'abstract-syntax-error-reject',
    });
    assert.deepEqual(causeAndDiagnostics(rejected.pdus[0]).diagnostics?.procedureCode, 46);
    assert.deepEqual(errorIndicationIds(rejected.pdus[0]), ids);

    const falsely = await send(h, radio, ue, withIes(response, repeated(10)));
    assert.deepEqual(falsely.nas, []);
    assert.deepEqual(causeAndDiagnostics(falsely.pdus[0]).cause, {
      choice: 'protocol',
      value: 'abstract-syntax-error-falsely-constructed-message',
    });
    assert.deepEqual(errorIndicationIds(falsely.pdus[0]), ids);

    // Neither reached the NAS layer: the Authentication Response, sent right, is still awaited.
    const accepted = await send(h, radio, ue, response);
    assert.deepEqual(
      accepted.nas.map((m) => m.messageType),
      ['securityModeCommand'],
    );
    await h.close();
  });

  it('Handover Required with an unknown IE of criticality reject: Handover Preparation Failure with the ids it named', async () => {
    const { h, radio, ue } = await ueRadio();
    const required: NGAPPDU = withIes(
      {
        choice: 'initiatingMessage',
        value: {
          procedureCode: 12,
          name: 'HandoverPreparation',
          criticality: 'reject',
          value: {
            protocolIEs: [
              { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: 5 },
              { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: 9 },
            ],
          },
        },
      },
      appended(unknownIe('reject')),
    );
    const { pdus, streams } = await send(h, radio, ue, required);
    const failure = pdus[0];
    assert.ok(failure?.choice === 'unsuccessfulOutcome' && failure.value.name === 'HandoverPreparation');
    assert.deepEqual(streams, [1]);
    const ies = failure.value.value.protocolIEs;
    assert.deepEqual([ieValue(ies, 'AMF-UE-NGAP-ID'), ieValue(ies, 'RAN-UE-NGAP-ID')], [5, 9]);
    assert.deepEqual(causeAndDiagnostics(failure), {
      cause: { choice: 'protocol', value: 'abstract-syntax-error-reject' },
      diagnostics: {
        procedureCriticality: 'reject',
        // The unknown IE, and the mandatory IEs of criticality reject the request lacked (10.3.5).
        iEsCriticalityDiagnostics: [
          notUnderstood('reject'),
          ...[29, 105, 61, 101].map((iEID) => ({ iECriticality: 'reject', iEID, typeOfError: 'missing' })),
        ],
      },
    });
    await h.close();
  });
});
