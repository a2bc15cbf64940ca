import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeComplete } from '../../../src/network/asn1/complete.ts';
import { SECURITY_HEADER_TYPE } from '../../../src/network/nas/index.ts';
import { decodePathSwitchRequestUnsuccessfulTransfer } from '../../../src/network/ngap/generated/codec.ts';
import {
  buildUEContextModificationResponse,
  readPathSwitchRequestFailure,
  readUEContextModificationRequest,
} from '../../../src/network/ngap/generated/messages.ts';
import { readN2HandoverAnswer } from '../../../src/simulator/gnb-handover-n2-messages.ts';
import { namesOf, register, step, type Ids, type StepRadio } from './amf-steps.ts';
import {
  encodeTransfer,
  handoverCancel,
  handoverRequired,
  pathSwitchRequest,
  TRANSFERS,
} from './session-fuzz-messages.ts';
import { createRig, PSIS } from './session-fuzz-rig.ts';
import { createAmfHarness, TestUe, uplinkNasTransport, type AmfHarness } from './test-ue.ts';

/**
 * TS 33.501 6.9.5 at the AMF: from a re-keying's Security Mode Command until the radio answered the new
 * KgNB, no handover gets an {NH, NCC} (neither the radio's key nor the UE's follows either KAMF's chain):
 * Handover Required gets Handover Preparation Failure and Path Switch Request its Failure, both
 * interaction-with-other-procedure, in both halves of the window (the command out; the key sent). With
 * the key answered, the refusal ends (the Handover Required then fails only for its unknown target).
 */

const KEY_CHANGING = { choice: 'radioNetwork', value: 'interaction-with-other-procedure' } as const;

async function handoverRefusals(h: AmfHarness, radio: StepRadio, ue: TestUe, ids: Ids) {
  const session = [{ psi: 1, transfer: encodeTransfer(TRANSFERS.pathSwitchRequest) }];
  const prepared = await step(
    h,
    radio,
    ue,
    handoverRequired(
      ids,
      [{ psi: 1, transfer: encodeTransfer(TRANSFERS.handoverRequired) }],
      Uint8Array.of(0),
    ),
  );
  assert.equal(prepared.pdus.length, 1);
  const preparation = readN2HandoverAnswer(prepared.pdus[0]!);
  assert.ok(preparation?.kind === 'preparation-failure', JSON.stringify(namesOf(prepared.pdus)));
  const switched = await step(h, radio, ue, pathSwitchRequest(ids.ran + 100, ids.amf, session));
  assert.equal(switched.pdus.length, 1);
  const failure = readPathSwitchRequestFailure(switched.pdus[0]!);
  assert.ok(failure.ok, JSON.stringify(namesOf(switched.pdus)));
  const causes = (failure.message.pduSessionResourceReleasedListPsFail ?? []).map((item) => {
    const transfer = decodeComplete(
      item.pathSwitchRequestUnsuccessfulTransfer,
      true,
      decodePathSwitchRequestUnsuccessfulTransfer,
    );
    assert.ok(transfer.ok);
    return transfer.value.cause;
  });
  return { handover: preparation.cause, pathSwitch: causes };
}

describe('handovers while a re-keying changes the AS key (TS 33.501 6.9.5)', () => {
  it('are refused from the Security Mode Command until the new KgNB is answered', async () => {
    const h = await createAmfHarness({ nasRekeyCount: 3 });
    try {
      const radio = await h.radio();
      const ue = new TestUe();
      const { ids } = await register(h, radio, ue);
      // Uplink COUNTs 2 and 3: the second reaches nasRekeyCount, and the re-keying starts.
      await step(h, radio, ue, uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })));
      const due = await step(
        h,
        radio,
        ue,
        uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })),
      );
      const challenge = due.nas.find((m) => m.messageType === 'authenticationRequest');
      assert.ok(challenge?.messageType === 'authenticationRequest', JSON.stringify(due.nas));
      const command = await step(
        h,
        radio,
        ue,
        uplinkNasTransport(ids, ue.protect(ue.authenticationResponse(challenge))),
      );
      assert.deepEqual(
        command.nas.map((m) => m.messageType),
        ['securityModeCommand'],
      );

      // The command is out: refused.
      assert.deepEqual(await handoverRefusals(h, radio, ue, ids), {
        handover: KEY_CHANGING,
        pathSwitch: [KEY_CHANGING],
      });

      // Security Mode Complete under the new context: the key goes to the radio, still refused meanwhile.
      const complete = await step(
        h,
        radio,
        ue,
        uplinkNasTransport(
          ids,
          ue.protect(
            { messageType: 'securityModeComplete' },
            SECURITY_HEADER_TYPE.integrityProtectedAndCipheredWithNewSecurityContext,
          ),
        ),
      );
      const request = complete.pdus
        .map((pdu) => readUEContextModificationRequest(pdu))
        .find((read) => read.ok && read.message.securityKey !== undefined);
      assert.ok(request?.ok, JSON.stringify(namesOf(complete.pdus)));
      assert.deepEqual(await handoverRefusals(h, radio, ue, ids), {
        handover: KEY_CHANGING,
        pathSwitch: [KEY_CHANGING],
      });

      // Answered: no longer refused for the key (the Handover Required's target gNB 2 is not connected).
      await step(
        h,
        radio,
        ue,
        buildUEContextModificationResponse({ amfUeNgapId: ids.amf, ranUeNgapId: ids.ran }),
      );
      const after = await handoverRefusals(h, radio, ue, ids);
      assert.deepEqual(after.handover, { choice: 'radioNetwork', value: 'unknown-targetID' });
      assert.notDeepEqual(after.pathSwitch, [KEY_CHANGING]);
    } finally {
      await h.close();
    }
  });

  it('no re-keying starts while an N2 handover is prepared; it starts once the handover ended', async () => {
    // Registration and the rig's four sessions use uplink COUNTs 0..5 and downlink 0..5.
    const rig = await createRig('n2', { nasRekeyCount: 8 });
    const { h, ue, serving, other, ids } = rig;
    try {
      const challenges = () => ue.received.filter((m) => m.messageType === 'authenticationRequest').length;
      assert.equal(challenges(), 1);
      const transfer = encodeTransfer(TRANSFERS.handoverRequired);
      const from = other.received.length;
      await step(
        h,
        serving,
        ue,
        handoverRequired(
          ids,
          PSIS.map((psi) => ({ psi, transfer })),
          Uint8Array.of(0),
        ),
      );
      assert.deepEqual(
        other.received.slice(from).map((r) => r.messageType),
        ['HandoverRequest'],
        'the target asked',
      );
      // Uplink COUNTs 6, 7, 8: the last reaches nasRekeyCount, but no Security Mode Command may go now.
      for (let i = 0; i < 3; i++)
        await step(
          h,
          serving,
          ue,
          uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })),
        );
      assert.equal(challenges(), 1, 'no re-keying during the handover');

      await step(h, serving, ue, handoverCancel(ids));
      assert.equal(serving.received.at(-1)?.messageType, 'HandoverCancelAcknowledge');
      await step(
        h,
        serving,
        ue,
        uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })),
      );
      assert.equal(challenges(), 2, 're-keyed once the handover ended');
    } finally {
      await h.close();
    }
  });
});
