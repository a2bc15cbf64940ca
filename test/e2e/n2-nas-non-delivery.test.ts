import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { ManualTime, oneTurn } from '../helpers/manual-time.ts';
import { tshark } from '../helpers/tshark.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, logsOf, startRegistrationService, statusUntil } from './registration-service.ts';

/**
 * NAS Non Delivery Indication (TS 38.413 8.6.4) from the simulated gNB against the real service: the
 * radio does not deliver the AMF's Authentication Request and sends it back with a cause; the AMF's
 * T3560 (its default, 6 s, on a manual time the test moves) retransmits it, the UE gets it and
 * registers. The radio event carries the cause; tshark reads the indication the gNB sent and every PDU
 * the service sent.
 */
interface RadioEvent {
  message_type: string;
  direction: string;
  details: string;
}

describe('NAS Non Delivery Indication through the simulator against the real service', () => {
  let s: RegistrationService;
  let time: ManualTime;
  const sent: NgapExchange[] = [];
  before(async () => {
    time = new ManualTime();
    s = await startRegistrationService({ time });
    s.gnb1.on((event) => {
      if (event.type === 'sent') sent.push(event.exchange);
    });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  it('an Authentication Request not delivered: indicated with its cause, retransmitted by T3560, registered', async () => {
    const imsi = imsiOf(71);
    await s.provision(imsi);
    const ue = s.ue({ imsi }, { timers: time });
    const cause = { choice: 'radioNetwork', value: 'interaction-with-other-procedure' } as const;
    s.ues.withholdNextNas(ue, cause);
    const registering = ue.register();
    await s.until(async () => (s.ues.nonDeliveries.length > 0 ? true : undefined), 'the indication sent');
    assert.deepEqual(
      s.ues.nonDeliveries.map((n) => n.cause),
      [cause],
    );
    // The UE never saw the challenge: only the AMF's T3560 can carry the registration on.
    assert.equal(ue.log.filter((x) => x.direction === 'downlink').length, 0);
    await time.advance(6_000, oneTurn);
    assert.equal((await registering).outcome, 'accepted');
    await statusUntil(s, imsi, (st) => st.registered, 'registered after the retransmission');
    const rows = await s.until(async () => {
      const logged = await logsOf(s, imsi);
      return logged.some((row) => row.event === 'Registration Complete') ? logged : undefined;
    }, 'registration complete logged');
    assert.equal(rows.filter((row) => row.event === 'Authentication Request').length, 2);

    await s.t.records.flush();
    const [event, ...more] = (
      await s.get<{ items: RadioEvent[] }>('/api/v1/ran/events?message_type=NASNonDeliveryIndication')
    ).items;
    assert.equal(more.length, 0);
    assert.equal(event?.direction, 'inbound');
    assert.match(event.details, /interaction-with-other-procedure/);

    const indications = sent.filter((x) => x.messageType === 'NASNonDeliveryIndication');
    assert.equal(indications.length, 1);
    const [verdict] = await tshark(
      'ngap',
      indications.map((x) => x.bytes),
    );
    assert.equal(verdict?.malformed, false);
    assert.equal(verdict.expert, '');
    assert.match(verdict.info, /NASNonDeliveryIndication/);
  });
});
