import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertTsharkAgrees } from './n2-service.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, logsOf, startRegistrationService, statusOf, statusUntil } from './registration-service.ts';

/**
 * Registrations that go wrong, end to end (TS 24.501 5.4.1.3, 5.5.1.2.5; network.md section 5): an unknown
 * subscriber, a wrong key, a card whose SQN is ahead of the network's, and devices that misbehave (stop
 * mid-procedure, send garbage or replay NAS). The service answers each as specified and keeps serving.
 */

describe('registration failures through the simulator against the real service', () => {
  let s: RegistrationService;
  before(async () => {
    s = await startRegistrationService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  it('an unknown subscriber: Registration Reject with cause 9', async () => {
    const ue = s.ue({ imsi: imsiOf(90) });
    assert.deepEqual(await ue.register(), {
      outcome: 'rejected',
      cause: 9,
      causeName: 'UE identity cannot be derived by the network (9)',
    });
  });

  it('a wrong key: the UE answers MAC failure (#20) and the network rejects the authentication', async () => {
    const imsi = imsiOf(11);
    await s.provision(imsi);
    const ue = s.ue({ imsi, key: Buffer.alloc(16, 0x5a) });
    assert.deepEqual(await ue.register(), { outcome: 'authentication-rejected' });
    assert.equal((await statusOf(s, imsi)).registered, false);
    const logs = await s.until(async () => {
      const rows = await logsOf(s, imsi);
      return rows.some((row) => row.event === 'Authentication Reject') ? rows : undefined;
    }, 'authentication reject logged');
    const failure = logs.find((row) => row.event === 'Authentication Failure');
    assert.match(failure?.details ?? '', /MAC failure \(20\)/);
  });

  it('a card ahead of the network: synch failure (#21) with AUTS, resynchronisation, registered', async () => {
    const imsi = imsiOf(12);
    await s.provision(imsi);
    const ue = s.ue({ imsi, sqn: Buffer.from('000000300000', 'hex') });
    assert.equal((await ue.register()).outcome, 'accepted');
    await statusUntil(s, imsi, (st) => st.registered, 'registered after resynchronisation');
    const uplink = ue.log.filter((e) => e.direction === 'uplink').map((e) => e.messageType);
    assert.deepEqual(uplink.slice(0, 3), [
      'registrationRequest',
      'authenticationFailure',
      'authenticationResponse',
    ]);
    // The network's next vector was fresh for the card: SQN above the one the card had.
    assert.ok(ue.usim.sqnMs.compare(Buffer.from('000000300000', 'hex')) > 0);
  });

  it('a UE that stops after the Security Mode Command, garbage and replayed NAS: nothing but its own failure', async () => {
    const silent = imsiOf(13);
    const noisy = imsiOf(14);
    await s.provision(silent);
    await s.provision(noisy);
    const quiet = s.ue({ imsi: silent, misbehaviour: { silentAfter: 'securityModeCommand' } });
    void quiet.register();
    await quiet.next((e) =>
      e.type === 'nas' && e.exchange.messageType === 'securityModeCommand' ? e : undefined,
    );
    const ue = s.ue({ imsi: noisy });
    assert.equal((await ue.register()).outcome, 'accepted');
    assert.equal(ue.replayLastUplink(), true);
    assert.equal(ue.sendGarbage(), true);
    // Still registered and served: a service request after going idle works.
    const released = ue.next((e) => (e.type === 'released' ? e : undefined));
    assert.equal(s.ues.requestRelease(ue), true);
    await released;
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    assert.equal((await statusOf(s, silent)).registered, false);
    assert.equal((await statusUntil(s, noisy, (st) => st.registered, 'registered')).registered, true);
  });
});
