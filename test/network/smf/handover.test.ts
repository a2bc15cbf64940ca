import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeComplete, encodeComplete } from '../../../src/network/asn1/complete.ts';
import {
  decodeHandoverCommandTransfer,
  decodeHandoverPreparationUnsuccessfulTransfer,
  decodePDUSessionResourceSetupRequestTransfer,
  encodeHandoverRequestAcknowledgeTransfer,
  encodeHandoverRequiredTransfer,
  encodeHandoverResourceAllocationUnsuccessfulTransfer,
} from '../../../src/network/ngap/generated/codec.ts';
import { INDIRECT_FORWARDING_HOLD_MS } from '../../../src/network/smf/handover.ts';
import { tunnelOf } from '../../../src/network/smf/n2-transfers.ts';
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

function harness(options: { forwarding?: boolean } = {}) {
  const time = new ManualTime();
  const ports = inMemorySmfPorts(time, () => defaultSubscription(SUPI, {}));
  if (options.forwarding === false && ports.options.userPlane !== undefined) {
    // A user plane that cannot forward (the port's forwarding methods are optional).
    delete ports.options.userPlane.createForwarding;
    delete ports.options.userPlane.removeForwarding;
  }
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
  return { smf, upf: ports.upf, forwarding: ports.forwarding, time, establish, stateOf };
}

const required = (direct = false) =>
  encodeComplete(
    direct ? { directForwardingPathAvailability: 'direct-path-available' } : {},
    ALIGNED,
    encodeHandoverRequiredTransfer,
  );
/** The target's answer: its downlink tunnel and, when `forwardingTeid` is given, a DL forwarding one. */
const acknowledge = (teid: number, forwardingTeid?: number) =>
  encodeComplete(
    forwardingTeid === undefined
      ? {
          dLNGUUPTNLInformation: gtpTunnel({ address: '127.0.0.3', teid }),
          qosFlowSetupResponseList: [{ qosFlowIdentifier: 1 }],
        }
      : {
          dLNGUUPTNLInformation: gtpTunnel({ address: '127.0.0.3', teid }),
          dLForwardingUPTNLInformation: gtpTunnel({ address: '127.0.0.3', teid: forwardingTeid }),
          qosFlowSetupResponseList: [
            { qosFlowIdentifier: 1, dataForwardingAccepted: 'data-forwarding-accepted' as const },
          ],
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
    // No direct path named: forwarding goes through the UPF, so the target may offer it (9.3.4.1).
    const ies = JSON.stringify(setup.value);
    assert.doesNotMatch(ies, /data-forwarding-not-possible|direct-path-available/);
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

  it('without a direct path, the source forwards to a UPF tunnel that sends on to the target’s; it goes after Notify and the hold', async () => {
    const h = harness();
    await h.establish(1);
    h.smf.handoverRequired(SUPI, [{ pduSessionId: 1, transfer: required() }]);
    const lists = h.smf.handoverAcknowledged(SUPI, [{ pduSessionId: 1, transfer: acknowledge(77, 99) }], []);
    const [item] = lists.handedOver;
    assert.ok(item !== undefined);
    const transfer = decodeComplete(item.transfer, ALIGNED, decodeHandoverCommandTransfer);
    assert.ok(transfer.ok);
    const [made] = h.forwarding.values();
    assert.ok(made !== undefined, 'a UPF forwarding tunnel');
    assert.ok(
      h.upf.includes(`forward 1 ${made} 127.0.0.3 99 1`),
      'towards the target’s DL forwarding tunnel',
    );
    // 9.3.4.10: the source forwards to the UPF's N3 address and the TEID it gave, the flows the target accepted.
    assert.deepEqual(
      tunnelOf(transfer.value.dLForwardingUPTNLInformation ?? gtpTunnel({ address: '0.0.0.0', teid: 0 })),
      { address: '127.0.0.1', teid: made },
    );
    assert.deepEqual(
      transfer.value.qosFlowToBeForwardedList?.map((flow) => flow.qosFlowIdentifier),
      [1],
    );

    h.smf.handoverExecuted(SUPI);
    assert.equal(h.forwarding.size, 1, 'kept for what the source still forwards');
    await h.time.advance(INDIRECT_FORWARDING_HOLD_MS - 1, () => Promise.resolve());
    assert.equal(h.forwarding.size, 1);
    await h.time.advance(1, () => Promise.resolve());
    assert.equal(h.forwarding.size, 0, 'removed after the hold');
  });

  it('a handover back within the hold keeps its own forwarding tunnel; cancel and a new preparation remove theirs at once', async () => {
    const h = harness();
    await h.establish(1);
    h.smf.handoverRequired(SUPI, [{ pduSessionId: 1, transfer: required() }]);
    h.smf.handoverAcknowledged(SUPI, [{ pduSessionId: 1, transfer: acknowledge(77, 99) }], []);
    h.smf.handoverExecuted(SUPI);
    h.smf.handoverRequired(SUPI, [{ pduSessionId: 1, transfer: required() }]);
    h.smf.handoverAcknowledged(SUPI, [{ pduSessionId: 1, transfer: acknowledge(78, 98) }], []);
    const second = h.forwarding.get(1);
    await h.time.advance(INDIRECT_FORWARDING_HOLD_MS, () => Promise.resolve());
    assert.equal(h.forwarding.get(1), second, 'the first handover’s timer leaves the second’s tunnel');
    h.smf.handoverCancelled(SUPI);
    assert.equal(h.forwarding.size, 0, 'cancel removes it at once');

    h.smf.handoverRequired(SUPI, [{ pduSessionId: 1, transfer: required() }]);
    h.smf.handoverAcknowledged(SUPI, [{ pduSessionId: 1, transfer: acknowledge(79, 97) }], []);
    assert.equal(h.forwarding.size, 1);
    h.smf.handoverRequired(SUPI, [{ pduSessionId: 1, transfer: required() }]);
    assert.equal(h.forwarding.size, 0, 'a new preparation replaces the last and its tunnel');
    h.smf.ueGone(SUPI);
    assert.equal(h.smf.handoversInProgress(), 0);
  });

  it('a direct path, or a user plane that cannot forward, makes no UPF tunnel', async () => {
    const direct = harness();
    await direct.establish(1);
    direct.smf.handoverRequired(SUPI, [{ pduSessionId: 1, transfer: required(true) }]);
    const lists = direct.smf.handoverAcknowledged(
      SUPI,
      [{ pduSessionId: 1, transfer: acknowledge(77, 99) }],
      [],
    );
    const transfer = decodeComplete(
      lists.handedOver[0]?.transfer ?? new Uint8Array(),
      ALIGNED,
      decodeHandoverCommandTransfer,
    );
    assert.ok(transfer.ok);
    assert.deepEqual(
      tunnelOf(transfer.value.dLForwardingUPTNLInformation ?? gtpTunnel({ address: '0.0.0.0', teid: 0 })),
      { address: '127.0.0.3', teid: 99 },
    );
    assert.equal(direct.forwarding.size, 0);

    const plain = harness({ forwarding: false });
    await plain.establish(1);
    const prepared = plain.smf.handoverRequired(SUPI, [{ pduSessionId: 1, transfer: required() }]);
    const setup = decodeComplete(
      prepared.toSetUp[0]?.transfer ?? new Uint8Array(),
      ALIGNED,
      decodePDUSessionResourceSetupRequestTransfer,
    );
    assert.ok(setup.ok);
    assert.match(JSON.stringify(setup.value), /data-forwarding-not-possible/);
    const answer = plain.smf.handoverAcknowledged(
      SUPI,
      [{ pduSessionId: 1, transfer: acknowledge(77, 99) }],
      [],
    );
    const command = decodeComplete(
      answer.handedOver[0]?.transfer ?? new Uint8Array(),
      ALIGNED,
      decodeHandoverCommandTransfer,
    );
    assert.ok(command.ok);
    assert.equal(command.value.dLForwardingUPTNLInformation, undefined, 'a tunnel offered anyway is unused');
  });
});
