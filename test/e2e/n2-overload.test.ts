import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatedGnb } from '../../src/simulator/gnb.ts';
import type { AmfOverload } from '../../src/simulator/gnb-overload.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN } from './n2-service.ts';
import type { Page, RegistrationService } from './registration-service.ts';
import { imsiOf, startRegistrationService, statusUntil } from './registration-service.ts';

/**
 * Overload Start / Overload Stop through the real service (TS 38.413 8.7.7, 8.7.8; docs/n2.md,
 * "Overload"): with `maxUeContexts` 2, the third device's Registration Request is refused with #22 and
 * the radios hear Overload Start (reject RRC connection establishments for signalling); the simulated
 * gNB then rejects the next device's establishment itself, so the AMF sees no Initial UE Message; a radio
 * that connects meanwhile hears it after NG Setup. Once a device deregisters (the contexts at the
 * low-water mark), Overload Stop, and the next device registers. The API shows both messages as radio
 * events and radio logs, and `pmn_amf_overloaded`.
 */

interface RadioLog {
  event: string;
  level: string;
  ran_id: string;
}

describe('Overload Start / Stop through the simulator against the real service', () => {
  let s: RegistrationService;
  before(async () => {
    s = await startRegistrationService({ amf: { maxUeContexts: 2 } });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  async function metric(name: string): Promise<number> {
    const response = await s.t.request({ method: 'GET', url: '/api/v1/metrics', token: s.token });
    assert.equal(response.statusCode, 200);
    const line = new RegExp(`^${name} (\\d+)$`, 'm').exec(response.body);
    assert.ok(line, `${name} is exposed`);
    return Number(line[1]);
  }

  /** Waits (bounded, as the records do) until `gnb` holds an Overload Start, or none (`stopped`). */
  const overloadOf = (gnb: SimulatedGnb, stopped = false): Promise<AmfOverload | 'stopped'> =>
    s.until(
      async () => {
        await Promise.resolve();
        if (stopped) return gnb.overload === undefined ? 'stopped' : undefined;
        return gnb.overload;
      },
      stopped ? 'Overload Stop' : 'Overload Start',
    );

  const initialUeMessages = (): number =>
    s.gnb1.sent.filter((x) => x.messageType === 'InitialUEMessage').length;

  it('at the UE context limit the radios are told to reject signalling, and told again when it is over', async () => {
    const imsis = [91, 92, 93, 94].map(imsiOf);
    for (const imsi of imsis) await s.provision(imsi);
    const [first, second, third, fourth] = imsis.map((imsi) => s.ue({ imsi }));
    assert.ok(first && second && third && fourth);
    assert.equal((await first.register()).outcome, 'accepted');
    assert.equal((await second.register()).outcome, 'accepted');
    assert.equal(s.gnb1.overload, undefined);
    assert.equal(await metric('pmn_amf_overloaded'), 0);

    const refused = await third.register();
    assert.equal(refused.outcome === 'rejected' && refused.cause, 22, 'congestion (#22)');
    assert.deepEqual(await overloadOf(s.gnb1), {
      action: 'reject-rrc-cr-signalling',
      reductionPercent: undefined,
    });
    assert.equal(await metric('pmn_amf_overloaded'), 1);

    // The gNB honours it: the fourth device's RRC establishment (mo-Signalling) never reaches the AMF.
    const sentBefore = initialUeMessages();
    const rrcRejected = await fourth.register();
    assert.equal(rrcRejected.outcome, 'failed');
    assert.equal(initialUeMessages(), sentBefore, 'no Initial UE Message sent');
    assert.deepEqual(s.ues.overloadRejections, [
      { cause: 'mo-Signalling', action: 'reject-rrc-cr-signalling' },
    ]);
    assert.equal(await metric('pmn_ue_context_limit_rejects_total'), 1, 'the AMF refused only the third');

    // A radio that completes NG Setup while the AMF is overloaded hears Overload Start after its response.
    const gnb2 = s.gnb(gnbConfig(2, { name: 'gnb-2' }));
    new GnbUes(gnb2, { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4002, tac: 1 });
    await gnb2.connect();
    assert.equal((await gnb2.ngSetup()).outcome, 'accepted');
    assert.deepEqual(await overloadOf(gnb2), {
      action: 'reject-rrc-cr-signalling',
      reductionPercent: undefined,
    });
    const afterSetup = gnb2.received.map((x) => x.messageType);
    assert.ok(afterSetup.indexOf('OverloadStart') > afterSetup.indexOf('NGSetupResponse'));

    // The first device deregisters over its open connection: one context left, the low-water mark (1).
    assert.ok(first.connected, 'still connected after its registration');
    assert.deepEqual(await first.deregister(), { outcome: 'accepted' });
    assert.equal(await overloadOf(s.gnb1, true), 'stopped');
    assert.equal(await overloadOf(gnb2, true), 'stopped');
    for (const gnb of [s.gnb1, gnb2])
      assert.deepEqual(
        gnb.received.map((x) => x.messageType).filter((type) => type.startsWith('Overload')),
        ['OverloadStart', 'OverloadStop'],
        'one of each: no flapping',
      );
    assert.equal(await metric('pmn_amf_overloaded'), 0);
    assert.equal((await fourth.register()).outcome, 'accepted');
    await statusUntil(s, imsis[3]!, (st) => st.registered, 'fourth registered');

    // network.md 3 and 4: both messages in the radio events, and in the radio logs of each radio.
    for (const type of ['OverloadStart', 'OverloadStop']) {
      const events = await s.until(async () => {
        const page = await s.get<Page<{ id: number }>>(`/api/v1/ran/events?message_type=${type}`);
        return page.items.length >= 2 ? page.items : undefined;
      }, `${type} radio events`);
      assert.equal(events.length, 2);
    }
    const logs = await s.until(async () => {
      const page = await s.get<Page<RadioLog>>('/api/v1/logs/radio?per_page=100');
      const rows = page.items.filter((row) => row.event.startsWith('Overload'));
      return rows.length >= 4 ? rows : undefined;
    }, 'Overload radio logs');
    const levels = new Set(logs.map((row) => `${row.event}:${row.level}`));
    assert.deepEqual([...levels].sort(), ['Overload Start:warn', 'Overload Stop:info']);
    await gnb2.shutdown();
  });
});
