import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeComplete, encodeComplete } from '../../../src/network/asn1/complete.ts';
import {
  decodeHandoverPreparationUnsuccessfulTransfer,
  decodePDUSessionResourceSetupRequestTransfer,
  encodeHandoverRequestAcknowledgeTransfer,
  encodeHandoverRequiredTransfer,
  encodeHandoverResourceAllocationUnsuccessfulTransfer,
} from '../../../src/network/ngap/generated/codec.ts';
import { createSmf } from '../../../src/network/smf/smf.ts';
import { gtpTunnel } from '../../../src/simulator/ue/gnb-sessions.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { defaultSubscription, inMemorySmfPorts, setupResponseTransfer } from '../../helpers/smf-ports.ts';

/**
 * The SMF's side of an N2 handover (TS 23.502 4.9.1.3; src/network/smf/handover.ts) over in-memory
 * ports: which sessions go, the transfers each way, what the UPF is told at execution, and that cancel
 * and a new preparation leave nothing of the old one.
 */

const SUPI = '001010000000001';
const ALIGNED = true;

function harness() {
  const time = new ManualTime();
  const ports = inMemorySmfPorts(time, () => defaultSubscription(SUPI, {}));
  const smf = createSmf(ports.options);
  const establish = async (id: number): Promise<void> => {
    await smf.uplink(
      { supi: SUPI, allowedNssai: [{ sst: 1 }], requestType: 1, dnn: 'internet', sNssai: { sst: 1 } },
      {
        messageType: 'pduSessionEstablishmentRequest',
        pduSessionId: id,
        pti: id,
        integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
        pduSessionType: 1,
      },
    );
    smf.resourcesSetUp(SUPI, id, setupResponseTransfer(id));
  };
  const stateOf = (id: number) => smf.sessionsOf(SUPI).find((s) => s.pduSessionId === id)?.state;
  return { smf, upf: ports.upf, establish, stateOf };
}

const required = (direct = false) =>
  encodeComplete(
    direct ? { directForwardingPathAvailability: 'direct-path-available' } : {},
    ALIGNED,
    encodeHandoverRequiredTransfer,
  );
const acknowledge = (teid: number) =>
  encodeComplete(
    {
      dLNGUUPTNLInformation: gtpTunnel({ address: '127.0.0.3', teid }),
      qosFlowSetupResponseList: [{ qosFlowIdentifier: 1 }],
    },
    ALIGNED,
    encodeHandoverRequestAcknowledgeTransfer,
  );
const causeOf = (transfer: Uint8Array) => {
  const decoded = decodeComplete(transfer, ALIGNED, decodeHandoverPreparationUnsuccessfulTransfer);
  assert.ok(decoded.ok);
  return decoded.value.cause;
};

describe('SMF: N2 handover (TS 23.502 4.9.1.3)', () => {
  it('active sessions go with their setup transfer; unknown, repeated and unreadable ones do not', async () => {
    const h = harness();
    await h.establish(1);
    await h.establish(2);
    const prepared = h.smf.handoverRequired(SUPI, [
      { pduSessionId: 1, transfer: required() },
      { pduSessionId: 1, transfer: required() },
      { pduSessionId: 2, transfer: Uint8Array.of(0xff) },
      { pduSessionId: 9, transfer: required() },
    ]);
    assert.deepEqual(
      prepared.toSetUp.map((item) => item.pduSessionId),
      [1],
    );
    const [item] = prepared.toSetUp;
    assert.ok(item !== undefined);
    const setup = decodeComplete(item.transfer, ALIGNED, decodePDUSessionResourceSetupRequestTransfer);
    assert.ok(setup.ok);
    // No direct path named: the target is told data forwarding is not possible (9.3.4.1).
    const ies = JSON.stringify(setup.value);
    assert.match(ies, /data-forwarding-not-possible/);
    assert.deepEqual(
      prepared.notHandedOver.map((x) => [x.pduSessionId, causeOf(x.transfer)]),
      [
        [1, { choice: 'radioNetwork', value: 'multiple-PDU-session-ID-instances' }],
        [2, { choice: 'protocol', value: 'semantic-error' }],
        [9, { choice: 'radioNetwork', value: 'unknown-PDU-session-ID' }],
      ],
    );
    assert.equal(h.smf.handoversInProgress(), 1);
  });

  it('execution switches the admitted session; one the target failed is deactivated; cancel keeps all', async () => {
    const h = harness();
    await h.establish(1);
    await h.establish(2);
    h.smf.handoverRequired(SUPI, [
      { pduSessionId: 1, transfer: required() },
      { pduSessionId: 2, transfer: required() },
    ]);
    const lists = h.smf.handoverAcknowledged(
      SUPI,
      [{ pduSessionId: 1, transfer: acknowledge(77) }],
      [
        {
          pduSessionId: 2,
          transfer: encodeComplete(
            { cause: { choice: 'radioNetwork', value: 'slice-not-supported' } },
            ALIGNED,
            encodeHandoverResourceAllocationUnsuccessfulTransfer,
          ),
        },
      ],
    );
    assert.deepEqual(
      lists.handedOver.map((x) => x.pduSessionId),
      [1],
    );
    assert.deepEqual(
      lists.toRelease.map((x) => [x.pduSessionId, causeOf(x.transfer)]),
      [[2, { choice: 'radioNetwork', value: 'slice-not-supported' }]],
    );
    // Nothing moves before Handover Notify.
    const before = h.upf.length;
    h.smf.handoverExecuted(SUPI);
    assert.deepEqual(h.upf.slice(before), ['downlink 1', 'deactivate 2']);
    assert.equal(h.stateOf(1), 'active');
    assert.equal(h.stateOf(2), 'inactive');
    assert.equal(h.smf.handoversInProgress(), 0);

    // A cancelled preparation changes nothing, and its kept tunnel is not used by a later execution.
    await h.establish(3);
    h.smf.handoverRequired(SUPI, [{ pduSessionId: 3, transfer: required() }]);
    h.smf.handoverAcknowledged(SUPI, [{ pduSessionId: 3, transfer: acknowledge(88) }], []);
    h.smf.handoverCancelled(SUPI);
    assert.equal(h.smf.handoversInProgress(), 0);
    const after = h.upf.length;
    h.smf.handoverExecuted(SUPI);
    assert.deepEqual(h.upf.slice(after), ['deactivate 1', 'deactivate 3'], 'no kept tunnel left');
  });
});
