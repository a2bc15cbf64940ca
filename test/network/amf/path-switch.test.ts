import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeNasMessage } from '../../../src/network/nas/index.ts';
import { readPathSwitchRequestAcknowledge } from '../../../src/network/ngap/generated/messages.ts';
import { readPathSwitchAnswer } from '../../../src/simulator/gnb-handover-messages.ts';
import { register, step } from './amf-steps.ts';
import {
  countingUserPlane,
  encodeTransfer,
  pathSwitchRequest,
  setupResponse,
  TRANSFERS,
} from './session-fuzz-messages.ts';
import { createAmfHarness, IMSI, TestUe, uplinkNasTransport } from './test-ue.ts';

/** Xn handover's Path Switch Request at the AMF (TS 38.413 8.4.4), over the AMF harness with an SMF. */
describe('Path Switch Request', () => {
  it('from the radio already serving the UE under its own RAN UE NGAP ID is acknowledged, not left unanswered', async () => {
    // Found by the session fuzz (session-fuzz.test.ts, family 6): the SMF switched the tunnels, but the
    // connection could not "move" to the pair it already had, so no answer came and the NH chain stood.
    const h = await createAmfHarness({}, {}, { userPlane: countingUserPlane() });
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await register(h, radio, ue);
    const establishment = encodeNasMessage({
      messageType: 'pduSessionEstablishmentRequest',
      pduSessionId: 1,
      pti: 1,
      integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
      pduSessionType: 1,
    });
    await step(
      h,
      radio,
      ue,
      uplinkNasTransport(
        ids,
        ue.protect({
          messageType: 'ulNasTransport',
          payloadContainerType: 1,
          payloadContainer: establishment,
          pduSessionId: 1,
          requestType: 1,
          dnn: 'internet',
          sNssai: { sst: 1, sd: 0x010203 },
        }),
      ),
    );
    await step(
      h,
      radio,
      ue,
      setupResponse(ids, [{ psi: 1, transfer: encodeTransfer(TRANSFERS.setupResponse) }]),
    );
    assert.deepEqual(h.smf!.sessionsOf(IMSI), [{ pduSessionId: 1, state: 'active' }]);

    const switched = [{ psi: 1, transfer: encodeTransfer(TRANSFERS.pathSwitchRequest) }];
    const first = await step(h, radio, ue, pathSwitchRequest(ids.ran, ids.amf, switched));
    assert.equal(first.pdus.length, 1, 'one answer');
    const answer = readPathSwitchAnswer(first.pdus[0]!);
    assert.ok(answer?.kind === 'acknowledge');
    assert.deepEqual(
      [answer.amfUeNgapId, answer.ranUeNgapId, answer.switched, answer.ncc],
      [ids.amf, ids.ran, [1], 1],
    );
    // Allowed NSSAI is mandatory (criticality reject) in the Acknowledge (TS 38.413 9.2.3.9): the UE's
    // allowed slice.
    const read = readPathSwitchRequestAcknowledge(first.pdus[0]!);
    assert.ok(read.ok, JSON.stringify(read));
    assert.deepEqual(
      read.message.allowedNssai.map((item) => [...item.sNSSAI.sST, ...(item.sNSSAI.sD ?? [])]),
      [[1, 1, 2, 3]],
    );
    // The connection is still there under the same pair: a second switch is acknowledged with the next NCC.
    const second = await step(h, radio, ue, pathSwitchRequest(ids.ran, ids.amf, switched));
    const again = readPathSwitchAnswer(second.pdus[0]!);
    assert.ok(again?.kind === 'acknowledge');
    assert.equal(again.ncc, 2);
    assert.deepEqual(h.amf.counts(), { ues: 1, connections: 1 });
    await h.close();
  });
});
