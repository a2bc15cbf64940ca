// The SMSF under hostile uplink: random octets and valid CP/RP/TPDU stacks with octets flipped, cut or
// added, from a fixed-seed PRNG, interleaved with CP-ACKs and RP answers on the TIs it uses and with its
// timers firing. It never throws, never logs a failure of its own, and everything it sends is a CP
// message that decodes; every message it stored was acknowledged with RP-ACK.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import {
  decodeCpMessage,
  decodeRpMessage,
  encodeCpMessage,
  encodeRpMessage,
  encodeTpdu,
} from '../../../src/network/sms/index.ts';
import { createSmsf } from '../../../src/network/smsf/smsf.ts';
import { prng } from '../../helpers/openapi-fuzz.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { memorySmsStore, memorySmsSubscribers } from '../../helpers/memory-sms-store.ts';
import { moCpData, smsSubmit } from '../amf/sms-steps.ts';

const A = '001010000000001';
const B = '001010000000002';

describe('SMSF fuzz: uplink SMS containers', () => {
  it('20,000 random and mutated containers from two UEs: no throw, no failure logged, only decodable CP sent', async () => {
    const random = prng(0x5a5f);
    const time = new ManualTime();
    const store = memorySmsStore();
    const subscribers = memorySmsSubscribers({
      [A]: { msisdn: '15550000001', smsAllowed: true },
      [B]: { msisdn: '15550000002', smsAllowed: true },
    });
    const sent: { supi: string; container: Uint8Array }[] = [];
    const errors: unknown[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(line) });
    const smsf = createSmsf({
      amf: {
        // A UE now and then cannot be reached (idle and not answering paging).
        transfer: async (supi, container) => {
          sent.push({ supi, container });
          return random.chance(0.05) ? 'unreachable' : 'sent';
        },
      },
      store,
      subscribers,
      timers: time,
      clock: time,
      logger,
    });
    assert.equal(await smsf.activate(A), true);
    assert.equal(await smsf.activate(B), true);

    const seeds: Uint8Array[] = [
      moCpData(0, 1, smsSubmit('15550000002', 'hello there')),
      moCpData(3, 9, smsSubmit('15550000001', 'x'.repeat(160), { statusReportRequest: true })),
      moCpData(1, 2, smsSubmit('4930123456', 'away')),
      encodeCpMessage({ type: 'cp-data', transactionId: 2, tiFlag: false, rpdu: Uint8Array.of(0x06, 0x05) }),
      encodeCpMessage({ type: 'cp-ack', transactionId: 0, tiFlag: true }),
      encodeCpMessage({ type: 'cp-error', transactionId: 1, tiFlag: false, cause: 111 }),
    ];
    const mutate = (bytes: Uint8Array): Uint8Array => {
      const out = [...bytes];
      const edits = 1 + random.int(3);
      for (let e = 0; e < edits; e++) {
        const at = random.int(out.length + 1);
        switch (random.int(4)) {
          case 0:
            if (at < out.length) out[at] = random.int(256);
            break;
          case 1:
            out.length = Math.max(0, Math.min(out.length, at));
            break;
          case 2:
            out.splice(at, 0, random.int(256));
            break;
          default:
            out.splice(at, 0, ...out.slice(0, random.int(8)));
        }
      }
      return Uint8Array.from(out);
    };
    /** The UE's answers to what the SMSF sent it last: CP-ACK, and RP-ACK or RP-ERROR to an RP-DATA. */
    const answer = (supi: string): Uint8Array | undefined => {
      const last = sent.findLast((s) => s.supi === supi);
      const cp = last === undefined ? undefined : decodeCpMessage(last.container);
      if (cp === undefined || !cp.ok || cp.value.type !== 'cp-data') return undefined;
      const { transactionId, tiFlag } = cp.value;
      if (random.chance(0.5)) return encodeCpMessage({ type: 'cp-ack', transactionId, tiFlag: !tiFlag });
      const rp = decodeRpMessage(cp.value.rpdu);
      if (!rp.ok || rp.value.type !== 'rp-data') return undefined;
      const rpdu = random.chance(0.8)
        ? encodeRpMessage({
            type: 'rp-ack',
            direction: 'ms-to-network',
            messageReference: rp.value.messageReference,
            tpdu: encodeTpdu({ type: 'sms-deliver-report' }),
          })
        : encodeRpMessage({
            type: 'rp-error',
            direction: 'ms-to-network',
            messageReference: rp.value.messageReference,
            cause: random.pick([22, 21, 111, 97]),
          });
      return encodeCpMessage({ type: 'cp-data', transactionId, tiFlag: !tiFlag, rpdu });
    };

    for (let i = 0; i < 20_000; i++) {
      const supi = random.chance(0.5) ? A : B;
      const roll = random.next();
      const container =
        roll < 0.3
          ? (answer(supi) ?? random.pick(seeds))
          : roll < 0.4
            ? Uint8Array.from({ length: random.int(40) }, () => random.int(256))
            : roll < 0.55
              ? random.pick(seeds)
              : mutate(random.pick(seeds));
      smsf.uplinkSms(supi, container);
      if (i % 50 === 0) await time.advance(random.int(60_000), () => new Promise((r) => setImmediate(r)));
      if (i % 500 === 0) smsf.ueReachable(random.pick([A, B]));
    }
    await time.advance(300_000, () => new Promise((r) => setImmediate(r)));
    smsf.stop();

    assert.deepEqual(errors, []);
    for (const { container } of sent)
      assert.ok(decodeCpMessage(container).ok, Buffer.from(container).toString('hex'));
    assert.ok(store.messages.length > 100, `${store.messages.length} messages stored`);
    assert.ok(
      store.messages.some((m) => m.status === 'delivered') &&
        store.messages.some((m) => m.status === 'failed'),
    );
    assert.equal(time.pending, 0, 'no timer left once stopped');
  });
});
