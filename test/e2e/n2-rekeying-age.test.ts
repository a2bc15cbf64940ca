import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatedUe, UeEvent } from '../../src/simulator/ue/simulated-ue.ts';
import { ManualTime, oneTurn } from '../helpers/manual-time.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * The age trigger of NAS re-keying (TS 33.501 6.9.4.2; docs/security.md, "NAS re-keying"): with
 * `nasSecurityMaxAgeMs` set, a connected UE whose NAS security context reaches that age is authenticated
 * again and re-keyed (AS key by UE Context Modification, the KgNB the UE's own), not a second before; the
 * new context's age counts from its Security Mode Complete; a UE idle when its context comes of age is
 * re-keyed once it is back (after its Service Request's Initial Context Setup), not while idle. The service
 * runs on a manual time the test moves (the UE's own timers on the system's: it stays silent meanwhile).
 */

const MAX_AGE_MS = 10 * 60_000;

describe('re-keying when the NAS security context comes of age (real service, manual time)', () => {
  let s: SessionService;
  let time: ManualTime;
  before(async () => {
    time = new ManualTime();
    s = await startSessionService({ time, amf: { nasSecurityMaxAgeMs: MAX_AGE_MS } });
  });
  after(async () => {
    await assertTsharkAgrees([...s.received]);
    await s.close();
  });

  const authentications = (ue: SimulatedUe): number =>
    ue.log.filter((e) => e.direction === 'downlink' && e.messageType === 'authenticationRequest').length;
  const keyedModifications = (): number =>
    s.ues.contextModifications.filter((m) => m.securityKey !== undefined).length;

  it('re-keys a connected UE at the age, counts the new context from then, and an idle one once back', async () => {
    const { ue } = await s.registered(1);
    const events: UeEvent[] = [];
    ue.on((event) => void events.push(event));
    const keyChanges = () => events.filter((e) => e.type === 'key-changed');
    assert.equal(authentications(ue), 1);
    assert.equal(ue.connected, true);

    await time.advance(MAX_AGE_MS - 1_000, oneTurn);
    assert.equal(authentications(ue), 1, 'not before the age');
    await time.advance(1_000, oneTurn);
    await s.until(async () => (keyChanges().length === 1 ? true : undefined), 'the first key change');
    assert.equal(authentications(ue), 2);
    assert.equal(keyedModifications(), 1);
    assert.deepEqual(keyChanges(), [{ type: 'key-changed', kgnbMatches: true }]);

    // The new context is young: its age restarted at its Security Mode Complete.
    await time.advance(MAX_AGE_MS - 1_000, oneTurn);
    assert.equal(authentications(ue), 2, 'the new context not yet of age');

    // Idle when it comes of age: nothing is sent to it (no paging for this), and it stays registered.
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.equal(s.ues.requestRelease(ue), true);
    await released;
    await time.advance(2_000, oneTurn);
    await oneTurn();
    assert.equal(authentications(ue), 2, 'not re-keyed while idle');
    assert.equal(ue.state, 'registered');

    // Back by Service Request: the context (still the aged one) sets up the radio, then the re-keying.
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    await s.until(async () => (keyChanges().length === 2 ? true : undefined), 'the second key change');
    assert.equal(authentications(ue), 3);
    assert.equal(keyedModifications(), 2);
    assert.deepEqual(keyChanges().at(-1), { type: 'key-changed', kgnbMatches: true });
    assert.equal(ue.connected, true);
  });
});
