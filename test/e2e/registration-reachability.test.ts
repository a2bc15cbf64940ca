import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_AMF_TIMERS } from '../../src/network/amf/amf-settings.ts';
import { ManualTime, oneTurn } from '../helpers/manual-time.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { Page, RegistrationService } from './registration-service.ts';
import {
  assertShownRegistered,
  assertShownUnregistered,
  detailsOf,
  IMEI,
  imsiOf,
  logsOf,
  startRegistrationService,
  statusOf,
} from './registration-service.ts';

/**
 * Implicit deregistration end to end (TS 24.501 5.3.7; network.md section 5: mobile reachable = T3512 +
 * 4 min, implicit deregistration 4 min after that): an idle device that is never heard from again is
 * shown unregistered once both timers have run out, and not before; when it does come back, its
 * Service Request is refused (#9: the AMF no longer holds it) and it registers anew with a SUCI.
 *
 * The service runs on a manual time that the test moves; the device's own timers (its T3512 among them)
 * run on the system's, so it stays silent meanwhile, like a device out of coverage.
 */

describe('implicit deregistration of an idle device through the simulator against the real service', () => {
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

  it('unregistered only after the mobile reachable and implicit deregistration timers; back with a Service Request: #9, then registered', async () => {
    const imsi = imsiOf(71);
    await s.provision(imsi);
    const ue = s.ue({ imsi });
    assert.equal((await ue.register()).outcome, 'accepted');
    await assertShownRegistered(s, imsi, { radio: 'gnb-1', imei: IMEI, now: time.now() });
    const completes = async () =>
      (await s.get<Page<unknown>>('/api/v1/ran/events?message_type=UEContextReleaseComplete')).total_count;
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.equal(s.ues.requestRelease(ue), true);
    await released;
    await s.until(async () => ((await completes()) === 1 ? true : undefined), 'release complete stored');

    const { mobileReachableMs, implicitDeregistrationMs } = DEFAULT_AMF_TIMERS;
    await time.advance(mobileReachableMs + implicitDeregistrationMs - 1_000, oneTurn);
    assert.equal((await statusOf(s, imsi)).registered, true, 'idle, still reachable in the network’s eyes');
    await time.advance(1_000, oneTurn);
    await assertShownUnregistered(s, imsi);

    const back = await ue.serviceRequest();
    assert.deepEqual(back, {
      outcome: 'rejected',
      cause: 9,
      causeName: 'UE identity cannot be derived by the network (9)',
    });
    assert.equal(ue.state, 'deregistered');
    assert.equal(ue.guti, undefined);
    const again = ue.log.length;
    assert.equal((await ue.register()).outcome, 'accepted');
    const request = ue.log.slice(again).find((x) => x.messageType === 'registrationRequest');
    assert.ok(request !== undefined);
    await assertShownRegistered(s, imsi, { radio: 'gnb-1', imei: IMEI, now: time.now() });
    const rows = await s.until(async () => {
      const logged = await logsOf(s, imsi);
      return logged.filter((row) => row.event === 'Registration Complete').length === 2 ? logged : undefined;
    }, 'the second registration logged');
    assert.deepEqual(
      rows
        .filter((row) => row.event === 'Registration Request')
        .map((row) => detailsOf(row).suci !== undefined),
      [true, true],
      'both registrations with a SUCI',
    );
  });
});
