import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { encodeNgapPdu } from '../../../src/network/ngap/ngap-codec.ts';
import { createHarness } from './n2-harness.ts';
import {
  errorIndicationFromRadio,
  initialUeMessage,
  ngReset,
  ngSetupRequest,
  ranConfigurationUpdate,
  taList,
} from './messages.ts';

/** Mulberry32: a fixed-seed PRNG, so a failure replays. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEEDS = [
  ngSetupRequest({ gnbId: 3, name: 'fuzz' }),
  ranConfigurationUpdate({ name: 'x', taList: taList() }),
  ngReset([{ amfUeNgapId: 1 }]),
  errorIndicationFromRadio(),
  initialUeMessage('reject'),
].map(encodeNgapPdu);

describe('an association fed random and mutated PDUs (fixed seed)', () => {
  it('answers or ignores each without an exception, and still serves NG Setup afterwards', async () => {
    const errors: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(line) });
    const h = await createHarness({ logger });
    const radio = await h.connect();
    const random = prng(0x5eed);
    for (let i = 0; i < 3000; i++) {
      const seed = SEEDS[i % SEEDS.length]!;
      let bytes: Uint8Array;
      if (i % 4 === 0) {
        bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256));
      } else {
        bytes = Uint8Array.from(seed);
        for (let flips = 1 + Math.floor(random() * 4); flips > 0; flips--) {
          bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
        }
        if (random() < 0.2) bytes = bytes.subarray(0, 1 + Math.floor(random() * bytes.length));
      }
      radio.send(bytes);
      if (i % 200 === 0) await h.settled();
    }
    await h.settled();
    assert.deepEqual(errors, [], 'no handler failed');
    assert.equal(radio.association.state, 'established');
    radio.received.length = 0;
    radio.send(ngSetupRequest({ gnbId: 9, name: 'after-fuzz' }));
    await h.settled();
    assert.deepEqual(radio.types(), ['NGSetupResponse']);
    assert.ok(h.state.radios().some((r) => r.name === 'after-fuzz'));
    await h.close();
  });
});
