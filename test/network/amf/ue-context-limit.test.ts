import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.ts';
import { DEFAULT_AMF_LIMITS, HEAP_PER_UE_CONTEXT_BYTES } from '../../../src/network/amf/amf-settings.ts';
import { encodeNasMessage, timerSeconds, type NasMessage } from '../../../src/network/nas/index.ts';
import { SERVICE_NODE_FLAGS } from '../../../src/node-flags.ts';
import { namesOf, register, step } from './amf-steps.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  IMSI,
  initialUeMessage,
  subscription,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
  uplinkNasTransport,
  type AmfHarness,
} from './test-ue.ts';

/**
 * The AMF's bound on UE contexts (`maxUeContexts`, docs/registration.md): beyond it a Registration
 * Request gets Registration Reject #22 (congestion) with T3346 (TS 24.501 5.5.1.2.5, 5.3.9) and leaves
 * nothing behind; a context freed by deregistration, explicit or implicit, makes room again.
 */

const OTHER = '001010000000002';

/** A second subscriber the AMF knows, on its own RAN UE NGAP ID. */
function otherUe(h: AmfHarness): TestUe {
  h.subscribers.set(OTHER, { sqn: 0n });
  h.subscriptions.set(OTHER, subscription(OTHER));
  return new TestUe({ imsi: OTHER, ranUeNgapId: 2 });
}

/** The Registration Reject `ue` gets for its Registration Request; its connection is released. */
async function refused(h: AmfHarness, radio: Awaited<ReturnType<AmfHarness['radio']>>, ue: TestUe) {
  const ran = ue.options.ranUeNgapId;
  const answer = await step(h, radio, ue, initialUeMessage(ran, encodeNasMessage(ue.registrationRequest())));
  assert.deepEqual(namesOf(answer.pdus), ['DownlinkNASTransport', 'UEContextRelease']);
  const reject: NasMessage | undefined = answer.nas[0];
  assert.ok(reject?.messageType === 'registrationReject');
  await step(h, radio, ue, ueContextReleaseComplete({ amf: amfUeNgapIdOf(answer.pdus[0]!)!, ran }));
  return reject;
}

describe('UE context limit (maxUeContexts)', () => {
  it('beyond the limit: #22 with T3346 between half of t3346Ms and all of it; deregistration makes room', async () => {
    const h = await createAmfHarness({ maxUeContexts: 1, t3346Ms: 60_000 });
    const radio = await h.radio();
    const first = new TestUe();
    const { ids, guti } = await register(h, radio, first);
    const second = otherUe(h);

    const reject = await refused(h, radio, second);
    assert.equal(reject.fiveGmmCause, 22);
    assert.ok(reject.t3346Value !== undefined, 'T3346 value IE present');
    const seconds = timerSeconds(reject.t3346Value, 'timer2') ?? NaN;
    assert.ok(seconds >= 30 && seconds <= 60, `T3346 ${seconds} s within 30..60 s`);
    assert.deepEqual(h.amf.counts(), { ues: 1, connections: 1 }, 'the rejected UE left nothing behind');
    assert.equal(h.state.subscriber(IMSI).registered, true, 'the registered device is untouched');
    assert.ok(
      h.subscriberLogs.every((log) => log.imsi === IMSI),
      'nothing is logged under the rejected subscriber (its SUPI was never derived)',
    );

    // The first deregisters (UE-initiated, TS 24.501 5.5.2.2): its context goes, the second fits.
    const bye = await step(
      h,
      radio,
      first,
      uplinkNasTransport(
        ids,
        first.protect({
          messageType: 'deregistrationRequestUeOriginating',
          deregistrationType: { switchOff: false, reRegistrationRequired: false, accessType: 1 },
          ngKsi: first.security!.ngKsi,
          mobileIdentity: guti,
        }),
      ),
    );
    assert.deepEqual(
      bye.nas.map((m) => m.messageType),
      ['deregistrationAcceptUeOriginating'],
    );
    await step(h, radio, first, ueContextReleaseComplete(ids));
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    await register(h, radio, second);
    assert.equal(h.state.subscriber(OTHER).registered, true);
    await h.close();
  });

  it('at the limit, a registered device coming back with its SUCI re-registers; a new one is refused', async () => {
    const h = await createAmfHarness({ maxUeContexts: 1 });
    const radio = await h.radio();
    await register(h, radio, new TestUe());
    // The device lost its 5G-GUTI (or its context on the radio): a new connection, a Registration
    // Request with its SUCI. Its SUPI, once de-concealed, is one the AMF holds: its new context takes
    // the old one's place instead of being refused as a new device.
    const again = new TestUe({ ranUeNgapId: 3 });
    await register(h, radio, again);
    assert.equal(h.state.subscriber(IMSI).registered, true);
    assert.deepEqual(
      h.amf.counts(),
      { ues: 1, connections: 2 },
      'one context; the old connection waits for the radio to complete its release',
    );

    // A SUCI the AMF does not hold gets #22 after de-concealment, and its provisional context goes.
    const reject = await refused(h, radio, otherUe(h));
    assert.equal(reject.fiveGmmCause, 22);
    assert.ok(reject.t3346Value !== undefined, 'T3346 value IE present');
    assert.equal(h.amf.counts().ues, 1);
    assert.equal(h.state.subscriber(OTHER).registered, false);
    await h.close();
  });

  it('an implicitly deregistered device makes room (TS 24.501 5.3.7)', async () => {
    const h = await createAmfHarness({
      maxUeContexts: 1,
      mobileReachableMs: 60_000,
      implicitDeregistrationMs: 30_000,
    });
    const radio = await h.radio();
    const first = new TestUe();
    const { ids } = await register(h, radio, first);
    // The radio releases the connection: the device is idle and the mobile reachable timer runs.
    const release = await step(h, radio, first, ueContextReleaseRequest(ids));
    assert.deepEqual(namesOf(release.pdus), ['UEContextRelease']);
    await step(h, radio, first, ueContextReleaseComplete(ids));
    const second = otherUe(h);
    assert.equal((await refused(h, radio, second)).fiveGmmCause, 22, 'idle devices keep their context');

    h.clock.advance(60_000 + 30_000);
    assert.equal(h.state.subscriber(IMSI).registered, false);
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    await register(h, radio, second);
    assert.equal(h.state.subscriber(OTHER).registered, true);
    await h.close();
  });

  it('the default holds 100,000 devices with room to spare in the service heap', () => {
    const oldSpace = SERVICE_NODE_FLAGS.find((flag) => flag.startsWith('--max-old-space-size='));
    assert.ok(oldSpace !== undefined);
    const heapBytes = Number(oldSpace.split('=')[1]) * 2 ** 20;
    assert.ok(DEFAULT_AMF_LIMITS.maxUeContexts >= 100_000, 'issue 16: 100,000 registered at once');
    // At most 85% of the old space for UE contexts: the rest is the process's base and records in flight.
    assert.ok(DEFAULT_AMF_LIMITS.maxUeContexts * HEAP_PER_UE_CONTEXT_BYTES <= 0.85 * heapBytes);
  });

  it('amf_max_ue_contexts and amf_t3346_seconds from the environment and flags', () => {
    const config = loadConfig(['--amf-t3346-seconds', '120'], { PMN_AMF_MAX_UE_CONTEXTS: '5000' });
    assert.deepEqual(config.n2.amfLimits, { maxUeContexts: 5000 });
    assert.equal(config.n2.amfTimers?.t3346Ms, 120_000);
    assert.equal(loadConfig([], {}).n2.amfLimits, undefined, "the AMF's default unless set");
    assert.throws(() => loadConfig([], { PMN_AMF_MAX_UE_CONTEXTS: '0' }), /amf_max_ue_contexts/);
  });
});
