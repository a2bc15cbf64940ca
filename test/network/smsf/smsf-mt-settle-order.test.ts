// The SMSF reads a UE's queue again only once the outcome of its last delivery is written. With a
// store whose writes commit late (a pool of connections, as on PostgreSQL), a message the UE has
// acknowledged must not be read back as queued and sent a second time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { decodeCpMessage, decodeRpMessage, encodeUserData } from '../../../src/network/sms/index.ts';
import type { NewSms } from '../../../src/network/ports/sms-store.ts';
import { createSmsf } from '../../../src/network/smsf/smsf.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { memorySmsStore, memorySmsSubscribers } from '../../helpers/memory-sms-store.ts';
import { cpAck, mtRpAck, textOf, tpduOf } from '../amf/sms-steps.ts';

const B = '001010000000002';

function textFor(text: string, at: number): NewSms {
  const userData = encodeUserData({ text }, 'gsm7');
  assert.ok(userData.ok);
  return {
    createdAt: at,
    originator: { typeOfNumber: 5, value: 'Operator' },
    destinationImsi: B,
    messageReference: 0,
    protocolIdentifier: 0,
    dataCodingScheme: 0,
    userData: userData.value,
    statusReportRequested: false,
    validUntil: at + 86_400_000,
  };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('SMSF: mobile-terminated delivery and late-committed settles', () => {
  it('sends each message once when the RP-ACK settle commits after the next queue read is asked for', async () => {
    const time = new ManualTime();
    const store = memorySmsStore();
    const sent: Uint8Array[] = [];
    const errors: unknown[] = [];
    const smsf = createSmsf({
      amf: {
        transfer: async (_supi, container) => {
          sent.push(container);
          return 'sent';
        },
      },
      store,
      subscribers: memorySmsSubscribers({ [B]: { msisdn: '15550000002', smsAllowed: true } }),
      timers: time,
      clock: time,
      logger: pino({ level: 'error' }, { write: (line: string) => void errors.push(line) }),
    });
    await store.save(textFor('first', time.now()));
    assert.equal(await smsf.activate(B), true);
    smsf.ueReachable(B);
    for (let i = 0; i < 5; i++) await settled();

    const delivered = (): string[] =>
      sent
        .map((container) => decodeCpMessage(container))
        .flatMap((cp) => (cp.ok && cp.value.type === 'cp-data' ? [cp.value] : []))
        .map((cp) => {
          const rp = decodeRpMessage(cp.rpdu);
          return rp.ok && rp.value.type === 'rp-data' ? (textOf(tpduOf(rp.value)) ?? '') : '';
        });
    assert.deepEqual(delivered(), ['first']);
    const first = decodeCpMessage(sent[0] ?? new Uint8Array());
    assert.ok(first.ok && first.value.type === 'cp-data');
    const rp = decodeRpMessage(first.value.rpdu);
    assert.ok(rp.ok);

    // The operator's second message is stored while the UE's RP-ACK to the first is being written.
    const release = store.holdSettles();
    smsf.uplinkSms(B, cpAck(first.value.transactionId, false));
    smsf.uplinkSms(B, mtRpAck(first.value.transactionId, rp.value.messageReference));
    for (let i = 0; i < 5; i++) await settled();
    await store.save(textFor('second', time.now()));
    smsf.ueReachable(B);
    for (let i = 0; i < 5; i++) await settled();
    release();
    for (let i = 0; i < 10; i++) await settled();

    assert.deepEqual(delivered(), ['first', 'second']);
    assert.deepEqual(
      store.messages.map((m) => [m.id, m.status, m.attempts]),
      [
        [1, 'delivered', 1],
        // With the UE: its attempt counts once it ends.
        [2, 'queued', 0],
      ],
    );
    assert.deepEqual(errors, []);
    smsf.stop();
  });
});
