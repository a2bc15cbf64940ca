import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Cause, NGAPPDU } from '../../src/network/ngap/generated/types.ts';
import { handoverCancel } from '../../src/simulator/gnb-handover-n2-messages.ts';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { ueNgapIdsOf } from '../../src/network/ngap/ue-ngap-ids.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * TS 38.413 10.6 with the radio reporting: a gNB that finds the ids of the AMF's signalling for a UE
 * erroneous sends Error Indication `unknown-local-UE-NGAP-ID` / `inconsistent-remote-UE-NGAP-ID` with
 * them, and "both nodes shall initiate a local release" of the connection: the AMF holds one connection
 * less (no UE Context Release Command), the UPF's downlink towards the gNB goes, and the UE comes back
 * by Service Request. An Error Indication with another cause is recorded only. None is answered
 * (8.2.7). tshark reads every PDU the AMF sent and the gNB's Error Indications.
 */

interface Ids {
  amfUeNgapId: number;
  ranUeNgapId: number;
}

describe('Error Indication from the radio about a UE’s ids (TS 38.413 10.6)', () => {
  let s: SessionService;
  let device: SimulatedUe;
  let ue: Ids;
  /** The Error Indications the gNB sent, for tshark too. */
  const indications: NgapExchange[] = [];

  before(async () => {
    s = await startSessionService();
    s.gnb.on((event) => {
      if (event.type === 'sent' && event.exchange.messageType === 'ErrorIndication')
        indications.push(event.exchange);
    });
    const { sessions, ue: registered } = await s.registered(1);
    device = registered;
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    ue = idsOfOnlyUe();
    await downlinkAtGnb();
  });

  after(async () => {
    assert.ok(indications.length > 0, 'the gNB’s Error Indications were seen');
    await assertTsharkAgrees([...s.received, ...indications]);
    await s.close();
  });

  const downlinkAtGnb = () =>
    s.until(
      async () => [...s.rules.sessions.values()].find((r) => r.downlink?.startsWith('127.0.0.2:') === true),
      'the downlink towards the gNB',
    );

  function idsOfOnlyUe(): Ids {
    for (let ran = 1; ran < 1000; ran += 1) {
      const link = s.ues.link(ran);
      if (link?.amfUeNgapId !== undefined) return { amfUeNgapId: link.amfUeNgapId, ranUeNgapId: ran };
    }
    assert.fail('no UE at the gNB');
  }

  /**
   * What the AMF sent the gNB after the UE's Error Indication: a Handover Cancel for ids no one holds
   * follows on the UE's stream, and everything received before its Error Indication is the answer
   * (stream order: the AMF handled the indication before the probe).
   */
  async function indicated(cause: Cause): Promise<NgapExchange[]> {
    const probe = { amfUeNgapId: 990_000, ranUeNgapId: 9_000 };
    const got: NgapExchange[] = [];
    const stop = s.gnb.on((event) => {
      if (event.type === 'received') got.push(event.exchange);
    });
    try {
      const probed = s.gnb.next((event) =>
        event.type === 'received' && ranIdOf(event.exchange.pdu) === probe.ranUeNgapId ? true : undefined,
      );
      assert.ok(s.ues.indicateError(device, cause));
      s.gnb.send(
        handoverCancel(probe, { choice: 'radioNetwork', value: 'unspecified' }),
        s.gnb.ueStream(ue.ranUeNgapId),
      );
      await probed;
    } finally {
      stop();
    }
    return got.filter((exchange) => ranIdOf(exchange.pdu) !== probe.ranUeNgapId);
  }

  const ranIdOf = (pdu: NGAPPDU | undefined) =>
    pdu === undefined ? undefined : ueNgapIdsOf(pdu).ranUeNgapId;

  for (const value of ['unknown-local-UE-NGAP-ID', 'inconsistent-remote-UE-NGAP-ID'] as const) {
    it(`${value}: both nodes release the UE’s connection locally; the UE comes back by Service Request`, async () => {
      const before = s.holding();
      const answers = await indicated({ choice: 'radioNetwork', value });
      assert.deepEqual(
        answers.map((a) => a.messageType),
        [],
        'an Error Indication is not answered, and a local release sends no UE Context Release Command',
      );
      assert.deepEqual(s.held(), { connections: before.connections - 1, handovers: 0, smfHandovers: 0 });
      await s.until(
        async () =>
          [...s.rules.sessions.values()].every((r) => r.downlink === undefined) ? true : undefined,
        'the user plane deactivated',
      );
      assert.equal(s.ues.link(ue.ranUeNgapId), undefined, 'the gNB released its side too');
      assert.equal(device.connected, false);

      assert.deepEqual(await device.serviceRequest('data', { uplinkData: [1] }), { outcome: 'accepted' });
      ue = idsOfOnlyUe();
      await downlinkAtGnb();
      assert.deepEqual(s.held(), { connections: before.connections, handovers: 0, smfHandovers: 0 });
    });
  }

  it('another cause: recorded only, nothing released, nothing answered', async () => {
    const before = s.holding();
    const answers = await indicated({ choice: 'protocol', value: 'semantic-error' });
    assert.deepEqual(
      answers.map((a) => a.messageType),
      [],
    );
    assert.deepEqual(s.holding(), before);
    assert.notEqual(s.ues.link(ue.ranUeNgapId), undefined);
    assert.equal(device.connected, true);
  });
});
