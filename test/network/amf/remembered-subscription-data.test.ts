import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rememberedSubscriptionData } from '../../../src/core/remembered-subscription-data.ts';
import { OverloadedError } from '../../../src/errors.ts';
import { DEFAULT_AMF_LIMITS } from '../../../src/network/amf/amf-settings.ts';
import { register, step } from './amf-steps.ts';
import { createAmfHarness, IMSI, TestUe, ueContextReleaseComplete, uplinkNasTransport } from './test-ue.ts';

/**
 * The remembered subscription data (core/remembered-subscription-data.ts) over the AMF's own UE table: a
 * registration's read is what is kept once the UE is held, and the UE context's end forgets it.
 */
describe('the subscription data remembered for the UE contexts the AMF holds', () => {
  it("keeps the registration's read from the authentication on, and forgets it at the deregistration", async () => {
    const reads: string[] = [];
    let down = false;
    let remembered: ReturnType<typeof rememberedSubscriptionData> | undefined;
    const h = await createAmfHarness(
      {},
      {},
      {
        subscriptionData: (port) =>
          (remembered = rememberedSubscriptionData(
            {
              getSubscriptionData(imsi) {
                reads.push(imsi);
                return down
                  ? Promise.reject(new OverloadedError('the database is unavailable (57P01); try again', 1))
                  : port.getSubscriptionData(imsi);
              },
            },
            DEFAULT_AMF_LIMITS,
          )),
      },
    );
    assert.ok(remembered);
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids, guti } = await register(h, radio, ue);
    // One read, the registration's, kept as the UE authenticated: no read ahead.
    assert.deepEqual(reads, [IMSI]);
    down = true;
    assert.equal((await remembered.getSubscriptionData(IMSI))?.imsi, IMSI);

    down = false;
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
    down = true;
    await assert.rejects(remembered.getSubscriptionData(IMSI), OverloadedError);
    await h.close();
  });
});
