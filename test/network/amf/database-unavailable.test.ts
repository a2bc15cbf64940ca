import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { OverloadedError } from '../../../src/errors.ts';
import { encodeNasMessage, timerSeconds, type NasMessage } from '../../../src/network/nas/index.ts';
import { namesOf, register, step } from './amf-steps.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  IMSI,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
} from './test-ue.ts';

/**
 * A Registration Request that needs the database (a new authentication vector: a new SQN) while the
 * database is unavailable gets Registration Reject #22 (congestion) with T3346 (TS 24.501 5.5.1.2.5,
 * 5.3.9), not a silent release: the device backs off instead of retrying at once. The log says it once
 * per outage, not once per device (docs/postgresql.md, "While the database is down").
 */
describe('registration while the database is unavailable', () => {
  it('answers #22 with T3346, leaves nothing behind, logs once, and registers once the database is back', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
    );
    const h = await createAmfHarness({ t3346Ms: 60_000 }, {}, { logger });
    const radio = await h.radio();
    const generate = h.authentication.generateAuthenticationData.bind(h.authentication);
    h.authentication.generateAuthenticationData = () =>
      Promise.reject(new OverloadedError('the database is unavailable (57P01); try again', 5));

    for (const ranUeNgapId of [1, 2, 3]) {
      const ue = new TestUe({ ranUeNgapId });
      const answer = await step(
        h,
        radio,
        ue,
        initialUeMessage(ranUeNgapId, encodeNasMessage(ue.registrationRequest())),
      );
      assert.deepEqual(namesOf(answer.pdus), ['DownlinkNASTransport', 'UEContextRelease']);
      const reject: NasMessage | undefined = answer.nas[0];
      assert.ok(
        reject?.messageType === 'registrationReject',
        `${reject?.messageType} is a Registration Reject`,
      );
      assert.equal(reject.fiveGmmCause, 22);
      assert.ok(reject.t3346Value !== undefined, 'T3346 value IE present');
      const seconds = timerSeconds(reject.t3346Value, 'timer2') ?? NaN;
      assert.ok(seconds >= 30 && seconds <= 60, `T3346 ${seconds} s within 30..60 s`);
      await step(
        h,
        radio,
        ue,
        ueContextReleaseComplete({ amf: amfUeNgapIdOf(answer.pdus[0]!)!, ran: ranUeNgapId }),
      );
    }
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 }, 'the refused devices left nothing behind');
    assert.equal(h.state.subscriber(IMSI).registered, false);
    const said = lines.filter((line) => /database/.test(line.msg));
    assert.equal(said.length, 1, `one line for three refusals: ${JSON.stringify(said)}`);
    assert.ok(
      lines.every((line) => line.level < 50),
      'no error line: the outage is not a defect of a procedure',
    );

    h.authentication.generateAuthenticationData = generate;
    await register(h, radio, new TestUe({ ranUeNgapId: 4 }));
    assert.equal(h.state.subscriber(IMSI).registered, true);
    await h.close();
  });
});
