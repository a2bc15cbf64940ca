import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateHomeNetworkKey, PROTECTION_SCHEME } from '../../src/crypto/suci.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { Page, RegistrationService, SubscriberLog } from './registration-service.ts';
import {
  detailsOf,
  imsiOf,
  logsOf,
  startRegistrationService,
  statusOf,
  statusUntil,
} from './registration-service.ts';

/**
 * A UE that, like a real one, treats a reject cause TS 24.501 5.5.1.2.5 does not list as an abnormal case
 * and registers again after T3511 (5.5.1.2.7 d): up to three attempts, 50 ms apart.
 */
const RETRYING = { procedureTimers: { registrationAttempts: 3, t3511: 50 } };

const REJECT_7 = {
  outcome: 'rejected',
  cause: 7,
  causeName: '5GS services not allowed (7)',
} as const;

const registrationRequests = (ue: SimulatedUe): number =>
  ue.log.filter((e) => e.direction === 'uplink' && e.messageType === 'registrationRequest').length;

/** The subscriber log rows (newest first) whose details name `suci`, once its Registration Reject is in. */
function logsOfSuci(s: RegistrationService, suci: (details: Record<string, string | undefined>) => boolean) {
  return s.until(async () => {
    const page = await s.get<Page<SubscriberLog>>('/api/v1/logs/subscribers?per_page=100');
    const rows = page.items.filter((row) => suci(detailsOf(row)));
    return rows.some((row) => row.event === 'Registration Reject') ? rows.reverse() : undefined;
  }, 'the reject logged');
}

/**
 * Registrations that go wrong, end to end (TS 24.501 5.4.1.3, 5.5.1.2.5; network.md sections 4 and 5): an
 * unknown subscriber and a SUCI under a home network key the core lacks (#7, the UE stops, a warn log row),
 * a wrong key, a card whose SQN is ahead of the network's, and devices that misbehave (stop
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

  it('an unknown subscriber: Registration Reject #7, the UE stops, a warn row under its IMSI', async () => {
    const imsi = imsiOf(90);
    const ue = s.ue({ imsi }, RETRYING);
    assert.deepEqual(await ue.register(), REJECT_7);
    assert.equal(registrationRequests(ue), 1, 'no second attempt (#9 made it retry)');
    assert.equal(ue.usimValid, false);
    const rows = await s.until(async () => {
      const logs = await logsOf(s, imsi);
      return logs.some((row) => row.event === 'Registration Reject') ? logs : undefined;
    }, 'the reject logged under the clear IMSI');
    assert.deepEqual(
      rows.map((row) => [row.event, row.level, detailsOf(row)['cause']]),
      [
        ['Registration Request', 'info', undefined],
        ['Registration Reject', 'warn', '5GS services not allowed (7)'],
      ],
    );
  });

  it('a SUCI under a home network key the core does not have: #7, the UE stops, a warn row without IMSI', async () => {
    const publicKey = generateHomeNetworkKey(PROTECTION_SCHEME.profileA).key.publicKey;
    const ue = s.ue(
      {
        imsi: imsiOf(91),
        suci: { scheme: 'A', homeNetworkPublicKey: publicKey, homeNetworkPublicKeyId: 200 },
      },
      RETRYING,
    );
    assert.deepEqual(await ue.register(), REJECT_7);
    assert.equal(registrationRequests(ue), 1);
    assert.equal(ue.usimValid, false);
    const rows = await logsOfSuci(
      s,
      (details) => details['suci']?.startsWith('suci-0-001-01-0-1-200-') ?? false,
    );
    assert.deepEqual(
      rows.map((row) => [row.imsi, row.event, row.level, detailsOf(row)['cause']]),
      [
        ['', 'Registration Request', 'info', undefined],
        ['', 'Registration Reject', 'warn', '5GS services not allowed (7)'],
      ],
    );
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
