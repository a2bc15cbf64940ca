import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { created, imsi, newPolicy, newProfile, newSlice, newSubscriber } from '../helpers/network.ts';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

// Conflicting requests fired together; afterwards the invariants must hold whatever order they ran in:
// no policy points at a deleted slice, no subscriber at a deleted profile, and one IMSI exists once.
let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await initialize(t);
});
after(() => t.close());

const ROUNDS = 20;

/**
 * Starts `send` after `turns` turns of the event loop. Staggering the second request by 0 to 5 turns
 * across the rounds makes both orders happen: with no stagger the delete reaches the database first
 * (the create still parses its body), with two or more the create does.
 */
async function later(turns: number, send: () => Promise<LightMyRequestResponse>) {
  for (let turn = 0; turn < turns; turn++) await nextTurn();
  return send();
}

describe('concurrent conflicting changes', () => {
  it('create a policy referencing a slice while deleting that slice: exactly one wins, no dangling reference', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await created(t, token, '/api/v1/slices', newSlice(`race-${round}`));
      const [createPolicy, deleteSlice] = await Promise.all([
        t.request({
          method: 'POST',
          url: '/api/v1/policies',
          token,
          payload: newPolicy(`race-${round}`, { slice_name: `race-${round}` }),
        }),
        later(round % 6, () => t.request({ method: 'DELETE', url: `/api/v1/slices/race-${round}`, token })),
      ]);
      const outcome = [createPolicy.statusCode, deleteSlice.statusCode];
      assert.ok(
        (outcome[0] === 201 && outcome[1] === 409) || (outcome[0] === 400 && outcome[1] === 200),
        `round ${round}: policy ${createPolicy.body}, slice ${deleteSlice.body}`,
      );
    }
    const policies = result<{ items: { slice_name?: string }[] }>(
      await t.request({ method: 'GET', url: '/api/v1/policies?per_page=100', token }),
    ).items;
    const slices = new Set(
      result<{ items: { name: string }[] }>(
        await t.request({ method: 'GET', url: '/api/v1/slices?per_page=100', token }),
      ).items.map((slice) => slice.name),
    );
    for (const policy of policies) {
      if (policy.slice_name !== undefined) assert.ok(slices.has(policy.slice_name), policy.slice_name);
    }
  });

  it('create a subscriber on a profile while deleting that profile: no subscriber on a deleted profile', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await created(t, token, '/api/v1/profiles', newProfile(`race-${round}`));
      const [createSubscriber, deleteProfile] = await Promise.all([
        t.request({
          method: 'POST',
          url: '/api/v1/subscribers',
          token,
          payload: newSubscriber(round, { profile_name: `race-${round}` }),
        }),
        later(round % 6, () => t.request({ method: 'DELETE', url: `/api/v1/profiles/race-${round}`, token })),
      ]);
      const outcome = [createSubscriber.statusCode, deleteProfile.statusCode];
      assert.ok(
        (outcome[0] === 201 && outcome[1] === 409) || (outcome[0] === 400 && outcome[1] === 200),
        `round ${round}: subscriber ${createSubscriber.body}, profile ${deleteProfile.body}`,
      );
    }
    const orphans = await t.db
      .selectFrom('subscribers')
      .leftJoin('profiles', 'profiles.id', 'subscribers.profile_id')
      .select('subscribers.imsi')
      .where('profiles.id', 'is', null)
      .execute();
    assert.deepEqual(orphans, []);
  });

  it('the same IMSI created twice at once: one 201, one 409, one subscriber', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const payload = newSubscriber(1000 + round);
      const responses = await Promise.all([
        t.request({ method: 'POST', url: '/api/v1/subscribers', token, payload }),
        t.request({ method: 'POST', url: '/api/v1/subscribers', token, payload }),
      ]);
      assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, 409]);
    }
    const rows = await t.db
      .selectFrom('subscribers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('imsi', '>=', imsi(1000))
      .where('imsi', '<', imsi(1000 + ROUNDS))
      .executeTakeFirstOrThrow();
    assert.equal(Number(rows.n), ROUNDS);
  });

  it('two imports sharing IMSIs at once: one lands whole, the other is refused whole', async () => {
    const first = Array.from({ length: 50 }, (_, i) => newSubscriber(5000 + i));
    const second = Array.from({ length: 50 }, (_, i) => newSubscriber(5025 + i));
    const responses = await Promise.all(
      [first, second].map((payload) =>
        t.request({ method: 'POST', url: '/api/v1/subscribers/import', token, payload }),
      ),
    );
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, 409]);
    const rows = await t.db
      .selectFrom('subscribers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('imsi', '>=', imsi(5000))
      .where('imsi', '<', imsi(5075))
      .executeTakeFirstOrThrow();
    assert.equal(Number(rows.n), 50);
  });
});
