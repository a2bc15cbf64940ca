import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rememberedSubscriptionData } from '../../../src/core/remembered-subscription-data.ts';
import { OverloadedError } from '../../../src/errors.ts';
import { DEFAULT_AMF_LIMITS } from '../../../src/network/amf/amf-settings.ts';
import type { SubscriptionDataPort } from '../../../src/network/ports/subscription-data.ts';
import { createMemoryUeContextStore } from '../../../src/network/working-state/memory-ue-contexts.ts';
import { until } from '../../helpers/until.ts';
import { register, step } from './amf-steps.ts';
import {
  createAmfHarness,
  IMSI,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
  uplinkNasTransport,
} from './test-ue.ts';

/** The wrapper over the harness's port, failing as the storage does while `state.down`; reads counted. */
function wrapped() {
  const state = { down: false, reads: [] as string[] };
  const holder: { remembered?: ReturnType<typeof rememberedSubscriptionData> } = {};
  const wrap = (port: SubscriptionDataPort) =>
    (holder.remembered = rememberedSubscriptionData(
      {
        getSubscriptionData(imsi) {
          state.reads.push(imsi);
          return state.down
            ? Promise.reject(new OverloadedError('the database is unavailable (57P01); try again', 1))
            : port.getSubscriptionData(imsi);
        },
      },
      DEFAULT_AMF_LIMITS,
    ));
  const remembered = () => {
    assert.ok(holder.remembered);
    return holder.remembered;
  };
  return { state, wrap, remembered };
}

/**
 * The remembered subscription data (core/remembered-subscription-data.ts) over the AMF's own UE table: a
 * registration's read is what is kept once the UE is held, the UE context's end forgets it, and a device
 * adopted from another member of the AMF set is read as it is taken.
 */
describe('the subscription data remembered for the UE contexts the AMF holds', () => {
  it("keeps the registration's read from the authentication on, and forgets it at the deregistration", async () => {
    const { state, wrap, remembered } = wrapped();
    const h = await createAmfHarness({}, {}, { subscriptionData: wrap });
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids, guti } = await register(h, radio, ue);
    // One read, the registration's, kept as the UE authenticated: no read ahead.
    assert.deepEqual(state.reads, [IMSI]);
    state.down = true;
    assert.equal((await remembered().getSubscriptionData(IMSI))?.imsi, IMSI);

    state.down = false;
    const bye = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(
        ids,
        ue.protect({
          messageType: 'deregistrationRequestUeOriginating',
          deregistrationType: { switchOff: false, reRegistrationRequired: false, accessType: 1 },
          ngKsi: ue.security!.ngKsi,
          mobileIdentity: guti,
        }),
      ),
    );
    assert.deepEqual(
      bye.nas.map((m) => m.messageType),
      ['deregistrationAcceptUeOriginating'],
    );
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    state.down = true;
    await assert.rejects(remembered().getSubscriptionData(IMSI), OverloadedError);
    await h.close();
  });

  it('reads a device adopted from a dead member once, ahead, and serves it while the database is down', async () => {
    const store = createMemoryUeContextStore();
    const a = await createAmfHarness({}, {}, { ueContexts: store, identity: { name: 'amf-a', pointer: 0 } });
    const ue = new TestUe();
    const radio = await a.radio();
    const { ids } = await register(a, radio, ue);
    await step(a, radio, ue, ueContextReleaseRequest(ids));
    await step(a, radio, ue, ueContextReleaseComplete(ids));
    await a.amf.ueContextsWritten();

    const { state, wrap, remembered } = wrapped();
    const b = await createAmfHarness(
      {},
      {},
      { ueContexts: store, identity: { name: 'amf-b', pointer: 1 }, subscriptionData: wrap },
    );
    assert.deepEqual(await b.amf.adopt('amf-a'), { adopted: 1, forgotten: 0, left: 0 });
    // Read as it was taken: nothing else of the adoption reads a device's data without PDU sessions.
    assert.deepEqual(state.reads, [IMSI]);
    state.down = true;
    // The read ahead's answer is kept once it is in (its promise settles on its own turn).
    await until(
      'served from memory',
      async () =>
        (
          await remembered()
            .getSubscriptionData(IMSI)
            .catch(() => undefined)
        )?.imsi === IMSI,
    );
    await a.close();
    await b.close();
  });
});
