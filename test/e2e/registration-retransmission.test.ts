import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { ManualTime, oneTurn } from '../helpers/manual-time.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, logsOf, startRegistrationService, statusUntil } from './registration-service.ts';

/**
 * NAS retransmission from the device side (TS 24.501 5.5.1.2.7 c, 5.5.2.2.6 b) through the simulator
 * against the real service: a message of the exchange is lost on the radio, the UE's timer expires, and
 * the UE tries again until the procedure completes. The UE's timers are shortened (the AMF's are the
 * service's defaults, 6 s, so its own retransmission cannot be what rescues the procedure).
 *
 * The service, the AMF and the UEs share one manual time: once the message is lost, the test moves it
 * past the UE's timers instead of waiting for them, and never as far as the AMF's.
 */

const TIMERS = { t3510: 3_000, t3511: 300, registrationAttempts: 5, t3521: 1_000 };

/** The UE's uplink NAS message types, in order. */
const uplinks = (ue: SimulatedUe): string[] =>
  ue.log.filter((x) => x.direction === 'uplink').map((x) => x.messageType);

describe('UE NAS retransmission through the simulator against the real service', () => {
  let s: RegistrationService;
  let time: ManualTime;
  before(async () => {
    time = new ManualTime();
    s = await startRegistrationService({ time });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  it('the Authentication Request is lost: T3510 expires, after T3511 the UE asks again and registers', async () => {
    const imsi = imsiOf(61);
    await s.provision(imsi);
    const ue = s.ue({ imsi }, { procedureTimers: TIMERS, timers: time });
    // The radio loses the AMF's first answer.
    const deliver = ue.downlink.bind(ue);
    let lost = 0;
    ue.downlink = (pdu) => {
      if (lost++ === 0) return;
      deliver(pdu);
    };
    const registering = ue.register();
    await s.until(async () => (lost > 0 ? true : undefined), 'the Authentication Request lost');
    assert.deepEqual(uplinks(ue), ['registrationRequest']);
    // T3510 expires, T3511 runs out, the UE sends its Registration Request again.
    await time.advance(TIMERS.t3510 + TIMERS.t3511, oneTurn);
    const outcome = await registering;
    assert.equal(outcome.outcome, 'accepted');
    assert.deepEqual(uplinks(ue).slice(0, 2), ['registrationRequest', 'registrationRequest']);
    assert.equal(uplinks(ue).filter((t) => t === 'registrationRequest').length, 2);
    await statusUntil(s, imsi, (st) => st.registered, 'registered after the second attempt');
    // The service logged both attempts and both challenges (the first one never arrived).
    const rows = await s.until(async () => {
      const logged = await logsOf(s, imsi);
      return logged.some((row) => row.event === 'Registration Complete') ? logged : undefined;
    }, 'registration complete logged');
    const count = (event: string) => rows.filter((row) => row.event === event).length;
    assert.equal(count('Registration Request'), 2);
    assert.equal(count('Authentication Request'), 2);
    assert.equal(count('Authentication Response'), 1);
  });

  it('the Deregistration Request is lost on the way: T3521 retransmits it and the AMF accepts', async () => {
    const imsi = imsiOf(62);
    await s.provision(imsi);
    const ue = s.ue({ imsi }, { procedureTimers: TIMERS, timers: time });
    assert.equal((await ue.register()).outcome, 'accepted');
    await statusUntil(s, imsi, (st) => st.registered, 'registered');
    const connection = ue.connection;
    assert.ok(connection !== undefined && connection.open);
    const send = connection.uplink.bind(connection);
    let lost = 0;
    connection.uplink = (pdu) => (lost++ === 0 ? true : send(pdu));
    const deregistering = ue.deregister();
    await s.until(async () => (lost > 0 ? true : undefined), 'the Deregistration Request lost');
    assert.equal(uplinks(ue).filter((t) => t === 'deregistrationRequestUeOriginating').length, 1);
    // T3521 expires: the UE sends its Deregistration Request again.
    await time.advance(TIMERS.t3521, oneTurn);
    const outcome = await deregistering;
    assert.deepEqual(outcome, { outcome: 'accepted' });
    assert.equal(uplinks(ue).filter((t) => t === 'deregistrationRequestUeOriginating').length, 2);
    assert.equal(ue.state, 'deregistered');
    await statusUntil(s, imsi, (st) => !st.registered, 'deregistered');
  });
});
