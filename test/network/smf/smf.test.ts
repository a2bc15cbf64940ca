import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  QOS_FLOW_PARAMETER,
  QOS_RULE_OPERATION,
  type FiveGsmMessage,
  type NasMessageOf,
} from '../../../src/network/nas/index.ts';
import type { SubscriptionData } from '../../../src/network/ports/subscription-data.ts';
import { createSmf } from '../../../src/network/smf/smf.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { defaultSubscription, inMemorySmfPorts, setupResponseTransfer } from '../../helpers/smf-ports.ts';

/**
 * The SMF's state machine over in-memory ports (docs/sessions.md): paging for downlink data (TS 23.502
 * 4.2.3.3), the PDU session status of a Service Request (TS 24.501 5.6.1.4.1), T3591/T3592 (6.3.2.5,
 * 6.3.3.5) on manual time, and UE-requested modification (6.4.2).
 */

const SUPI = '001010000000001';
const T359X_MS = 16_000;

const subscription = (var5qi = 9, ambr = '1 Gbps'): SubscriptionData =>
  defaultSubscription(SUPI, { var5qi, ambr });

/** An SMF over in-memory ports (test/helpers/smf-ports.ts); `ue.connected` says whether N2 messages go. */
function harness() {
  const time = new ManualTime();
  let data = subscription();
  const ports = inMemorySmfPorts(time, () => data);
  const { ue, n1, n2, upf, pages, released } = ports;
  const smf = createSmf(ports.options);
  const context = {
    supi: SUPI,
    allowedNssai: [{ sst: 1 }],
    requestType: 1,
    dnn: 'internet',
    sNssai: { sst: 1 },
  };
  const send = (message: FiveGsmMessage): Promise<void> => smf.uplink(context, message);
  /** Establishes session `id` (its UPF session id is the `id`-th) and makes it active. */
  const establish = async (id: number): Promise<void> => {
    await send({
      messageType: 'pduSessionEstablishmentRequest',
      pduSessionId: id,
      pti: id,
      integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
      pduSessionType: 1,
    });
    smf.resourcesSetUp(SUPI, id, setupResponseTransfer(id));
  };
  const stateOf = (id: number) => smf.sessionsOf(SUPI).find((s) => s.pduSessionId === id)?.state;
  const advance = (ms: number): Promise<void> => time.advance(ms, () => Promise.resolve());
  const change = async (next: SubscriptionData): Promise<void> => {
    data = next;
    ports.changed('policy');
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { smf, ue, n1, n2, upf, pages, released, send, establish, stateOf, advance, change };
}

const ofType = <T extends FiveGsmMessage['messageType']>(messages: FiveGsmMessage[], type: T) =>
  messages.filter((m): m is NasMessageOf<T> => m.messageType === type);

describe('SMF: paging for downlink data and the Service Request (TS 23.502 4.2.3.3, TS 24.501 5.6.1.4.1)', () => {
  it('downlink data for an idle session pages once; the paged Service Request brings that session back', async () => {
    const h = harness();
    await h.establish(1);
    await h.establish(2);
    assert.equal(h.stateOf(1), 'active');
    h.ue.connected = false;
    h.smf.ueIdle(SUPI);
    assert.equal(h.stateOf(1), 'inactive');

    h.smf.downlinkData(1);
    h.smf.downlinkData(1); // the UPF may tell again: the UE is being paged already
    assert.deepEqual(h.pages, [SUPI]);

    h.ue.connected = true;
    // Paged, no Uplink data status: only the session with downlink data comes back, in Initial
    // Context Setup (no N2 message of its own).
    h.n2.length = 0;
    const accept = h.smf.statusReceived(SUPI, { pduSessionStatus: [1, 2], uplinkDataStatus: undefined });
    assert.deepEqual([accept.pduSessionStatus, accept.reactivationFailed], [[1, 2], []]);
    assert.deepEqual(
      accept.reactivate.map((item) => [item.pduSessionId, item.n1]),
      [[1, undefined]],
    );
    assert.deepEqual(h.n2, []);
    assert.equal(h.stateOf(1), 'setting-up');
    h.smf.resourcesSetUp(SUPI, 1, setupResponseTransfer(9));
    assert.equal(h.stateOf(1), 'active');
    assert.equal(h.stateOf(2), 'inactive');
  });

  it('downlink data for an active session, or an unknown UPF session, pages nobody', async () => {
    const h = harness();
    await h.establish(1);
    h.smf.downlinkData(1);
    h.smf.downlinkData(42);
    assert.deepEqual(h.pages, []);
  });

  it('unanswered paging: the downlink data is forgotten, the next packets page again', async () => {
    const h = harness();
    await h.establish(1);
    h.ue.connected = false;
    h.smf.ueIdle(SUPI);
    h.smf.downlinkData(1);
    h.smf.pagingFailed(SUPI);
    h.smf.downlinkData(1);
    assert.deepEqual(h.pages, [SUPI, SUPI]);
    // Not paged any more when it comes back by itself: nothing is reactivated without Uplink data status.
    h.smf.pagingFailed(SUPI);
    h.ue.connected = true;
    const accept = h.smf.statusReceived(SUPI, { pduSessionStatus: undefined, uplinkDataStatus: undefined });
    assert.deepEqual(accept.reactivate, []);
    assert.equal(h.stateOf(1), 'inactive');
  });

  it('a UE that cannot be paged: nothing is remembered, a later notification tries again', async () => {
    const h = harness();
    await h.establish(1);
    h.ue.connected = false;
    h.ue.pageable = false;
    h.smf.ueIdle(SUPI);
    h.smf.downlinkData(1);
    h.ue.pageable = true;
    h.smf.downlinkData(1);
    assert.deepEqual(h.pages, [SUPI]);
  });

  it('PDU session status: sessions the UE lacks are released locally; Uplink data status picks what comes back', async () => {
    const h = harness();
    await h.establish(1);
    await h.establish(2);
    await h.establish(3);
    h.ue.connected = false;
    h.smf.ueIdle(SUPI);
    h.ue.connected = true;
    h.n1.length = 0;
    const accept = h.smf.statusReceived(SUPI, { pduSessionStatus: [1, 3, 5], uplinkDataStatus: [3, 5] });
    // 2 is gone (no signalling: the UE already released it), 5 never existed.
    assert.deepEqual([accept.pduSessionStatus, accept.reactivationFailed], [[1, 3], [5]]);
    assert.deepEqual(h.released, [2]);
    assert.ok(h.upf.includes('release 2'));
    assert.deepEqual(h.n1, []);
    assert.deepEqual(
      h.smf.sessionsOf(SUPI).map((s) => s.pduSessionId),
      [1, 3],
    );
    assert.deepEqual(
      accept.reactivate.map((item) => item.pduSessionId),
      [3],
    );
  });

  it('a session released by the network while the UE was idle is missing from the status the UE is given', async () => {
    const h = harness();
    await h.establish(1);
    await h.establish(2);
    h.ue.connected = false;
    h.smf.ueIdle(SUPI);
    await h.send({ messageType: 'pduSessionReleaseRequest', pduSessionId: 2, pti: 7 }); // cannot reach the UE
    assert.deepEqual(h.smf.sessionsOf(SUPI), [{ pduSessionId: 1, state: 'inactive' }]);
    h.ue.connected = true;
    assert.deepEqual(h.smf.statusReceived(SUPI, { pduSessionStatus: [1, 2], uplinkDataStatus: undefined }), {
      pduSessionStatus: [1],
      reactivationFailed: [],
      reactivate: [],
    });
  });
});

describe('SMF: T3591 and T3592 (TS 24.501 6.3.2.5, 6.3.3.5)', () => {
  it('T3592: the Release Command goes again on each of four expiries; the fifth releases locally', async () => {
    const h = harness();
    await h.establish(1);
    await h.send({ messageType: 'pduSessionReleaseRequest', pduSessionId: 1, pti: 3 });
    assert.equal(h.n2.filter((m) => m.kind === 'release').length, 1);
    assert.equal(h.stateOf(1), 'releasing');
    await h.advance(4 * T359X_MS);
    const commands = ofType(h.n1, 'pduSessionReleaseCommand');
    assert.equal(commands.length, 4);
    assert.ok(commands.every((c) => c.pti === 3 && c.fiveGsmCause === 36));
    assert.equal(h.stateOf(1), 'releasing');
    await h.advance(T359X_MS);
    assert.equal(ofType(h.n1, 'pduSessionReleaseCommand').length, 4);
    assert.equal(h.stateOf(1), undefined);
  });

  it('T3592 stops at Release Complete', async () => {
    const h = harness();
    await h.establish(1);
    await h.send({ messageType: 'pduSessionReleaseRequest', pduSessionId: 1, pti: 3 });
    await h.send({ messageType: 'pduSessionReleaseComplete', pduSessionId: 1, pti: 3 });
    assert.equal(h.stateOf(1), undefined);
    await h.advance(10 * T359X_MS);
    assert.equal(ofType(h.n1, 'pduSessionReleaseCommand').length, 0);
  });

  it('T3591: a policy change`s Modification Command goes again four times; the fifth expiry releases the session (#31)', async () => {
    const h = harness();
    await h.establish(1);
    await h.change(subscription(8, '100 Mbps'));
    const modify = h.n2.filter((m) => m.kind === 'modify');
    assert.equal(modify.length, 1);
    assert.equal(modify[0]?.item.n1?.messageType, 'pduSessionModificationCommand');
    await h.advance(4 * T359X_MS);
    assert.equal(ofType(h.n1, 'pduSessionModificationCommand').length, 4);
    assert.equal(h.stateOf(1), 'active');
    await h.advance(T359X_MS);
    const release = h.n2.filter((m) => m.kind === 'release');
    assert.equal(release.length, 1);
    const command = release[0]?.item.n1;
    assert.ok(command?.messageType === 'pduSessionReleaseCommand');
    assert.equal(command.fiveGsmCause, 31);
    assert.deepEqual(h.released, [1]);
  });

  it('T3591 stops at Modification Complete; a Command Reject #43 releases the session locally', async () => {
    const h = harness();
    await h.establish(1);
    await h.establish(2);
    await h.change(subscription(8));
    await h.send({ messageType: 'pduSessionModificationComplete', pduSessionId: 1, pti: 0 });
    await h.send({
      messageType: 'pduSessionModificationCommandReject',
      pduSessionId: 2,
      pti: 0,
      fiveGsmCause: 43,
    });
    assert.deepEqual(h.released, [2]);
    await h.advance(10 * T359X_MS);
    assert.equal(ofType(h.n1, 'pduSessionModificationCommand').length, 0);
    assert.deepEqual(h.smf.sessionsOf(SUPI), [{ pduSessionId: 1, state: 'active' }]);
  });
});

describe('SMF: UE-requested PDU session modification (TS 24.501 6.4.2)', () => {
  const request = (
    extra: Partial<NasMessageOf<'pduSessionModificationRequest'>> = {},
    pduSessionId = 1,
  ): NasMessageOf<'pduSessionModificationRequest'> => ({
    messageType: 'pduSessionModificationRequest',
    pduSessionId,
    pti: 9,
    ...extra,
  });
  const flow = (
    fiveQi: number,
    operationCode = 3,
    qfi = 1,
    identifier: number = QOS_FLOW_PARAMETER.fiveQi,
  ) => ({
    requestedQosFlowDescriptions: [
      { qfi, operationCode, eBit: true, parameters: [{ identifier, contents: Uint8Array.of(fiveQi) }] },
    ],
  });
  const rule = (operationCode: number, identifier = 1) => ({
    requestedQosRules: [
      {
        identifier,
        operationCode,
        defaultRule: identifier === 1,
        packetFilters: [],
        precedence: 255,
        segregation: false,
        qfi: 1,
      },
    ],
  });

  it('no QoS change, or the policy`s own QoS again: Modification Command with the request`s PTI and the session`s values', async () => {
    const h = harness();
    await h.establish(1);
    await h.send(request({ integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 } }));
    await h.send(request({ ...flow(9), ...rule(QOS_RULE_OPERATION.modifyWithoutModifyingPacketFilters) }));
    const commands = h.n2.filter((m) => m.kind === 'modify').map((m) => m.item.n1);
    assert.equal(commands.length, 2);
    for (const command of commands) {
      assert.equal(command?.messageType, 'pduSessionModificationCommand');
      const c = command;
      assert.equal(c.pti, 9);
      assert.deepEqual(c.sessionAmbr, {
        downlink: { unit: 6, value: 1000 },
        uplink: { unit: 6, value: 1000 },
      });
    }
    assert.deepEqual(ofType(h.n1, 'pduSessionModificationReject'), []);
  });

  it('rejects with the cause of what is asked: #37 other QoS, #59 a 5QI not standardized, #83 deleting the default rule, #43 no such session', async () => {
    const h = harness();
    await h.establish(1);
    const cases: [NasMessageOf<'pduSessionModificationRequest'>, number][] = [
      [request(flow(8)), 37],
      [request(flow(9, 3, 2)), 37], // another QoS flow
      [request(flow(9, 1)), 37], // create a flow
      [request(flow(100, 3, 1, QOS_FLOW_PARAMETER.gfbrUplink)), 37], // a GBR on the non-GBR default flow
      [request(rule(QOS_RULE_OPERATION.create, 2)), 37],
      [request(rule(QOS_RULE_OPERATION.modifyAndAddPacketFilters)), 37],
      [request(flow(200)), 59],
      [request(rule(QOS_RULE_OPERATION.delete)), 83],
      [request(flow(9, 2)), 83],
      [request({}, 5), 43],
    ];
    for (const [message] of cases) await h.send(message);
    assert.deepEqual(
      ofType(h.n1, 'pduSessionModificationReject').map((r) => r.fiveGsmCause),
      cases.map(([, cause]) => cause),
    );
    assert.equal(h.n2.filter((m) => m.kind === 'modify').length, 0);
  });
});
