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

describe('subscription data remembered for a database that is unavailable', () => {
  /** A port over `stored` that fails as the storage does while `down` is set. */
  function port() {
    const stored = new Map<string, SubscriptionData>();
    const state = { down: false as false | Error, stored };
    return {
      state,
      port: {
        getSubscriptionData: (imsi: string) =>
          state.down === false ? Promise.resolve(stored.get(imsi)) : Promise.reject(state.down),
      },
    };
  }

  it('answers from the last read only while the database is unavailable, and from the database otherwise', async () => {
    const { state, port: inner } = port();
    const remembered = rememberedSubscriptionData(inner, DEFAULT_AMF_LIMITS);
    state.stored.set('1', data('1'));
    assert.equal((await remembered.getSubscriptionData('1'))?.profile.name, 'default');
    state.stored.set('1', data('1', 'changed'));
    assert.equal((await remembered.getSubscriptionData('1'))?.profile.name, 'changed', 'read again');
    state.down = new OverloadedError('the database is unavailable (57P01); try again', 1);
    assert.equal((await remembered.getSubscriptionData('1'))?.profile.name, 'changed');
    // Never read: the failure stands.
    await assert.rejects(remembered.getSubscriptionData('2'), OverloadedError);
    // Another failure than the database's state is not hidden.
    state.down = new Error('a bug');
    await assert.rejects(remembered.getSubscriptionData('1'), /a bug/);
  });

  it('keeps at most its limit, the least recently read going first', async () => {
    const { state, port: inner } = port();
    const remembered = rememberedSubscriptionData(inner, { maxUeContexts: 2 });
    for (const imsi of ['1', '2', '3']) state.stored.set(imsi, data(imsi));
    for (const imsi of ['1', '2', '1', '3']) await remembered.getSubscriptionData(imsi);
    state.down = new OverloadedError('the database is unavailable (57P01); try again', 1);
    assert.equal((await remembered.getSubscriptionData('1'))?.imsi, '1');
    assert.equal((await remembered.getSubscriptionData('3'))?.imsi, '3');
    await assert.rejects(remembered.getSubscriptionData('2'), OverloadedError);
  });

  it('remembers one subscriber per UE context the AMF may hold: at the default limit, every one of them', async () => {
    const { maxUeContexts } = DEFAULT_AMF_LIMITS;
    const shared = data('0');
    let down: Error | undefined;
    const remembered = rememberedSubscriptionData(
      {
        getSubscriptionData: (imsi) =>
          down === undefined ? Promise.resolve({ ...shared, imsi }) : Promise.reject(down),
      },
      DEFAULT_AMF_LIMITS,
    );
    for (let n = 0; n < maxUeContexts; n++) await remembered.getSubscriptionData(String(n));
    down = new OverloadedError('the database is unavailable (57P01); try again', 1);
    // The least recently read of the devices the AMF can hold, and the most recent.
    assert.equal((await remembered.getSubscriptionData('0'))?.imsi, '0');
    const last = String(maxUeContexts - 1);
    assert.equal((await remembered.getSubscriptionData(last))?.imsi, last);
    // One more read: the least recently read goes (an answer from memory does not count as a read).
    down = undefined;
    await remembered.getSubscriptionData('one more');
    down = new OverloadedError('the database is unavailable (57P01); try again', 1);
    await assert.rejects(remembered.getSubscriptionData('0'), OverloadedError);
    assert.equal((await remembered.getSubscriptionData('1'))?.imsi, '1');
  });
});
