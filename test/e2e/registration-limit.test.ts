import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeNasMessage, timerSeconds } from '../../src/network/nas/index.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { Page, RegistrationService } from './registration-service.ts';
import { imsiOf, logsOf, startRegistrationService, statusOf, statusUntil } from './registration-service.ts';

/**
 * The AMF's bound on UE contexts through the real service (docs/registration.md, Limits): with
 * `maxUeContexts` 2, a third device gets Registration Reject #22 (congestion) with T3346 (TS 24.501
 * 5.5.1.2.5); the API shows it as network.md sections 3-5 say (not registered, no subscriber logs: its
 * SUPI was never derived; the reject in the radio events; the metric counts it). Once a registered device
 * deregisters, the third registers.
 */

interface RadioEvent {
  id: number;
  details: string;
}

const T3346_MS = 120_000;

describe('UE context limit through the simulator against the real service', () => {
  let s: RegistrationService;
  before(async () => {
    s = await startRegistrationService({ amf: { maxUeContexts: 2, t3346Ms: T3346_MS } });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  async function rejectsCounted(): Promise<number> {
    const response = await s.t.request({ method: 'GET', url: '/api/v1/metrics', token: s.token });
    assert.equal(response.statusCode, 200);
    const line = /^pmn_ue_context_limit_rejects_total (\d+)$/m.exec(response.body);
    assert.ok(line, 'the metric is exposed');
    return Number(line[1]);
  }

  it('a device beyond the limit gets #22 with T3346; after one deregisters it registers', async () => {
    const imsis = [81, 82, 83].map(imsiOf);
    for (const imsi of imsis) await s.provision(imsi);
    const [first, second, third] = imsis.map((imsi) => s.ue({ imsi }));
    assert.ok(first && second && third);
    assert.equal((await first.register()).outcome, 'accepted');
    assert.equal((await second.register()).outcome, 'accepted');
    assert.equal(await rejectsCounted(), 0);

    const refused = await third.register();
    assert.equal(refused.outcome, 'rejected');
    assert.equal(refused.outcome === 'rejected' && refused.cause, 22, 'congestion (#22)');
    const reject = third.log.findLast((x) => x.messageType === 'registrationReject');
    assert.ok(reject);
    const decoded = decodeNasMessage(reject.plain);
    assert.ok(decoded.ok && decoded.message.messageType === 'registrationReject');
    assert.ok(decoded.message.t3346Value !== undefined, 'T3346 value IE present');
    const seconds = timerSeconds(decoded.message.t3346Value, 'timer2') ?? NaN;
    assert.ok(seconds >= T3346_MS / 2000 && seconds <= T3346_MS / 1000, `T3346 ${seconds} s`);
    assert.equal(await rejectsCounted(), 1);

    // network.md 5: not registered, its strings empty; network.md 4: no subscriber log without a SUPI.
    const status = await statusOf(s, imsis[2]!);
    assert.equal(status.registered, false);
    assert.equal(status.last_seen_radio, '');
    assert.deepEqual(await logsOf(s, imsis[2]!), []);
    // network.md 3: the reject went to the radio in a Downlink NAS Transport, recorded with its NAS name.
    await s.until(async () => {
      const events = await s.get<Page<RadioEvent>>('/api/v1/ran/events?message_type=DownlinkNASTransport');
      return events.items.some(
        (event) => (JSON.parse(event.details) as { nas?: string }).nas === 'Registration Reject',
      )
        ? true
        : undefined;
    }, 'the Registration Reject in the radio events');

    // The first device deregisters: its context goes, and the third fits once the radio heard Overload
    // Stop (the reject made the AMF tell it to refuse signalling establishments, docs/n2.md "Overload").
    assert.deepEqual(await first.deregister(), { outcome: 'accepted' });
    await statusUntil(s, imsis[0]!, (st) => !st.registered, 'first unregistered');
    await s.until(async () => (s.gnb1.overload === undefined ? true : undefined), 'Overload Stop');
    assert.equal((await third.register()).outcome, 'accepted');
    await statusUntil(s, imsis[2]!, (st) => st.registered, 'third registered');
    assert.equal((await statusOf(s, imsis[1]!)).registered, true, 'the second is untouched');
    assert.equal(await rejectsCounted(), 1);
  });
});
