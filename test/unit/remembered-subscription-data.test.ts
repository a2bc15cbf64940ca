import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rememberedSubscriptionData } from '../../src/core/remembered-subscription-data.ts';
import { OverloadedError } from '../../src/errors.ts';
import { DEFAULT_AMF_LIMITS } from '../../src/network/amf/amf-settings.ts';
import type { SubscriptionData } from '../../src/network/ports/subscription-data.ts';
import { defaultSubscription } from '../helpers/smf-ports.ts';

/** The helper's subscription, its profile renamed to `name` (a change the database made). */
const data = (imsi: string, name = 'default'): SubscriptionData => {
  const subscription = defaultSubscription(imsi);
  return { ...subscription, profile: { ...subscription.profile, name } };
};

const unavailable = () => new OverloadedError('the database is unavailable (57P01); try again', 1);

describe('subscription data remembered for a database that is unavailable', () => {
  /** A port over `stored` (every IMSI asked for unless `known` is given) that fails while `down` is set. */
  function port(limits: { maxUeContexts: number } = DEFAULT_AMF_LIMITS) {
    const stored = new Map<string, SubscriptionData>();
    const state = { down: false as false | Error, stored, known: false, reads: [] as string[] };
    const remembered = rememberedSubscriptionData(
      {
        getSubscriptionData(imsi: string) {
          state.reads.push(imsi);
          return state.down !== false
            ? Promise.reject(state.down)
            : Promise.resolve(stored.get(imsi) ?? (state.known ? undefined : data(imsi)));
        },
      },
      limits,
    );
    /** A device that registers: its subscription read before it authenticates, then held. */
    const register = async (imsi: string) => {
      await remembered.getSubscriptionData(imsi);
      remembered.held(imsi);
    };
    return { state, remembered, register };
  }

  it('answers from the last read only while the database is unavailable, and from the database otherwise', async () => {
    const { state, remembered, register } = port();
    state.stored.set('1', data('1'));
    await register('1');
    state.stored.set('1', data('1', 'changed'));
    assert.equal((await remembered.getSubscriptionData('1'))?.profile.name, 'changed', 'read again');
    state.down = unavailable();
    assert.equal((await remembered.getSubscriptionData('1'))?.profile.name, 'changed');
    // Never read: the failure stands.
    await assert.rejects(remembered.getSubscriptionData('2'), OverloadedError);
    // Another failure than the database's state is not hidden.
    state.down = new Error('a bug');
    await assert.rejects(remembered.getSubscriptionData('1'), /a bug/);
  });

  it('keeps an idle registered device however many others are read, and forgets one deregistered', async () => {
    const limit = 3;
    const { state, remembered, register } = port({ maxUeContexts: limit });
    await register('idle');
    await register('gone');
    remembered.released('gone');
    // Churn: many more devices than the limit register and deregister, each read more than once.
    for (let n = 0; n < 4 * limit; n++) {
      const imsi = `other ${n}`;
      await register(imsi);
      await remembered.getSubscriptionData(imsi);
      remembered.released(imsi);
    }
    // And more reads than the limit of devices that never completed a registration.
    for (let n = 0; n < 2 * limit; n++) await remembered.getSubscriptionData(`stranger ${n}`);
    state.down = unavailable();
    assert.equal((await remembered.getSubscriptionData('idle'))?.imsi, 'idle');
    await assert.rejects(remembered.getSubscriptionData('gone'), OverloadedError);
    await assert.rejects(remembered.getSubscriptionData('other 0'), OverloadedError);
    await assert.rejects(remembered.getSubscriptionData(`other ${4 * limit - 1}`), OverloadedError);
  });

  it('serves a registering device only once the AMF holds it, from the read its registration made', async () => {
    const { state, remembered } = port({ maxUeContexts: 2 });
    // At most 64 reads wait for their devices to be held (a tenth of the limit, at least 64): 65 here.
    await remembered.getSubscriptionData('1');
    for (let n = 0; n < 63; n++) await remembered.getSubscriptionData(`stranger ${n}`);
    await remembered.getSubscriptionData('3');
    state.down = unavailable();
    // Read, not (yet) held: not served.
    await assert.rejects(remembered.getSubscriptionData('3'), OverloadedError);
    // Held after its read: served from it, without another read.
    const reads = state.reads.length;
    remembered.held('3');
    assert.equal(state.reads.length, reads);
    assert.equal((await remembered.getSubscriptionData('3'))?.imsi, '3');
    // The oldest waiting read was pushed out: read again as it is held (here while the database is down).
    remembered.held('1');
    assert.equal(state.reads.at(-1), '1');
    await assert.rejects(remembered.getSubscriptionData('1'), OverloadedError);
    // Its read ahead failed: served after its own first read.
    state.down = false;
    await remembered.getSubscriptionData('1');
    state.down = unavailable();
    assert.equal((await remembered.getSubscriptionData('1'))?.imsi, '1');
  });

  it('reads a device held without a read (taken over, adopted) once, ahead; not one that registered', async () => {
    const { state, remembered, register } = port();
    await register('registered');
    assert.deepEqual(state.reads, ['registered'], 'the registration read only');
    remembered.held('adopted');
    // Released before its read ahead answered: not kept.
    remembered.held('taken by another member');
    remembered.released('taken by another member');
    await new Promise(setImmediate);
    assert.deepEqual(state.reads, ['registered', 'adopted', 'taken by another member']);
    state.down = unavailable();
    assert.equal((await remembered.getSubscriptionData('adopted'))?.imsi, 'adopted');
    await assert.rejects(remembered.getSubscriptionData('taken by another member'), OverloadedError);
  });

  it('answers a held subscriber deleted since as the database did: unknown', async () => {
    const { state, remembered, register } = port();
    await register('1');
    state.known = true;
    assert.equal(await remembered.getSubscriptionData('1'), undefined);
    state.down = unavailable();
    assert.equal(await remembered.getSubscriptionData('1'), undefined);
    // Held again after a deregistration: nothing is left of the earlier data.
    remembered.released('1');
    remembered.held('1');
    await assert.rejects(remembered.getSubscriptionData('1'), OverloadedError);
  });
});
