import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { encodeNasMessage } from '../../../src/network/nas/index.ts';
import { buildNASNonDeliveryIndication } from '../../../src/network/ngap/generated/messages.ts';
import { settle, step } from './amf-steps.ts';
import { amfUeNgapIdOf, createAmfHarness, initialUeMessage, nasPduOf, TestUe } from './test-ue.ts';

/**
 * NAS Non Delivery Indication (TS 38.413 8.6.4): a warn line names the radio, the connection and the
 * radio's cause, and the procedure's NAS timer retransmits the message the radio lost.
 */
describe('NAS Non Delivery Indication: logged', () => {
  it('writes a warn line with the cause; T3560 retransmits the lost message', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const h = await createAmfHarness({}, {}, { logger });
    const radio = await h.radio();
    const ue = new TestUe();
    const first = await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(ue.registrationRequest())));
    const amfUeNgapId = amfUeNgapIdOf(first.pdus[0]!)!;
    const lost = nasPduOf(first.pdus[0]!)!;
    const answer = await step(
      h,
      radio,
      ue,
      buildNASNonDeliveryIndication({
        amfUeNgapId,
        ranUeNgapId: 1,
        nasPdu: lost,
        cause: { choice: 'radioNetwork', value: 'radio-connection-with-ue-lost' },
      }),
    );
    assert.deepEqual(answer.pdus, [], 'no answer to the indication');
    const line = lines.find((l) => l.kind === 'nas_not_delivered');
    assert.ok(line !== undefined, 'a warn line');
    assert.equal(line.level, 40);
    assert.equal(line.cause, 'radioNetwork/radio-connection-with-ue-lost');
    assert.equal(line.amfUeNgapId, amfUeNgapId);
    assert.equal(line.ranUeNgapId, 1);

    h.clock.advance(6_000);
    await settle(h);
    const again = radio.received.at(-1)!.pdu;
    assert.deepEqual(nasPduOf(again), lost, 'T3560 sends the same Authentication Request again');
    await h.close();
  });
});
