import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import {
  K,
  OPC,
  imsiOf,
  startRegistrationService,
  type RegistrationService,
} from './registration-service.ts';

/**
 * 200 devices register at once through the real service (issue 30's goal: SQN generation never reused
 * under 200 concurrent registrations; on PostgreSQL in the PostgreSQL runner): each device accepts the
 * first Authentication Request it gets (its USIM would answer a reused or stale SQN with a synch failure,
 * TS 33.102 6.3.3), and the SQN stored for each subscriber is the one its device accepted. A second round
 * at once advances each by one more.
 */
const DEVICES = 200;
const FIRST = 7000;

describe('200 registrations at once through the real service', () => {
  let s: RegistrationService;
  let devices: SimulatedUe[];
  before(async () => {
    s = await startRegistrationService();
    const imported = await s.t.request({
      method: 'POST',
      url: '/api/v1/subscribers/import',
      token: s.token,
      payload: Array.from({ length: DEVICES }, (_, i) => ({
        imsi: imsiOf(FIRST + i),
        key: K,
        opc: OPC,
        sequenceNumber: '000000000000',
        profile_name: 'default',
      })),
    });
    assert.equal(imported.statusCode, 201, imported.body);
    devices = Array.from({ length: DEVICES }, (_, i) => s.ue({ imsi: imsiOf(FIRST + i) }));
  });
  after(async () => {
    await s.close();
  });

  /** SQN_HE of each subscriber as stored, by IMSI. */
  async function storedSqns(): Promise<Map<string, string>> {
    const rows = await s.t.db
      .selectFrom('subscribers')
      .select(['imsi', 'sequence_number'])
      .where('imsi', '>=', imsiOf(FIRST))
      .execute();
    return new Map(rows.map((row) => [row.imsi, row.sequence_number]));
  }

  async function allAtOnce(round: number): Promise<void> {
    const outcomes = await Promise.all(devices.map((device) => device.register('suci')));
    assert.deepEqual(
      outcomes.map((outcome) => outcome.outcome),
      devices.map(() => 'accepted'),
      `round ${round}`,
    );
    const stored = await storedSqns();
    for (const [i, device] of devices.entries()) {
      const failures = device.log.filter((x) => x.messageType === 'authenticationFailure');
      assert.equal(failures.length, 0, `device ${i} refused an Authentication Request in round ${round}`);
      assert.equal(stored.get(imsiOf(FIRST + i)), device.usim.sqnMs.toString('hex'), `device ${i}`);
    }
  }

  it('every device authenticates on its first request, and each stored SQN is the one its device accepted', async () => {
    await allAtOnce(1);
    const first = devices.map((device) => device.usim.sqnMs.toString('hex'));
    assert.equal(new Set(first).size, 1, 'each subscriber advanced once from 0: SEQ 1, IND 1');
    await Promise.all(devices.map((device) => device.deregister({ switchOff: true })));
    // The AMF releases each switched-off device's connection (TS 24.501 5.5.2.2.2).
    while (devices.some((device) => device.connected))
      await new Promise((resolve) => setTimeout(resolve, 10));
    await allAtOnce(2);
    for (const [i, device] of devices.entries())
      assert.ok(device.usim.sqnMs.toString('hex') > (first[i] ?? ''), `device ${i} moved on`);
  });
});
