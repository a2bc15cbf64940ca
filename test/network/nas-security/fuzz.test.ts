// Untrusted bytes never make unprotect throw: 16,000 inputs from a fixed-seed PRNG, random or mutated
// from genuinely protected messages, against contexts of several algorithm pairs. With integrity on, no
// changed message is ever accepted, and the genuine ones still are afterwards.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { NasAlgorithm } from '../../../src/crypto/nas-algorithms.ts';
import {
  createNasSecurityContext,
  protect,
  unprotect,
  type NasSecurityContext,
} from '../../../src/network/nas-security/index.ts';
import type { ProtectedSecurityHeaderType } from '../../../src/network/nas/index.ts';

const INPUTS_PER_PAIR = 4_000;
const KAMF = Buffer.alloc(32, 0x5a);
const REGISTRATION_ACCEPT = Buffer.from(
  '7e0042010177000bf200f110020040c000058054074000f11000000115020101210201005e0192',
  'hex',
);

/** mulberry32: a small deterministic PRNG, so a failing input can be reproduced from its index. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(random: () => number, bytes: Uint8Array): Uint8Array {
  const below = (n: number): number => Math.floor(random() * n);
  switch (below(4)) {
    case 0: {
      const out = Uint8Array.from(bytes);
      for (let i = 1 + below(3); i > 0; i--) {
        const at = below(out.length);
        out[at] = (out[at] ?? 0) ^ (1 << below(8));
      }
      return out;
    }
    case 1:
      return bytes.subarray(0, below(bytes.length));
    case 2:
      return Buffer.concat([bytes, Uint8Array.from({ length: 1 + below(8) }, () => below(256))]);
    default:
      return Uint8Array.from({ length: below(64) }, (_, i) =>
        i === 0 && random() < 0.7 ? 0x7e : below(256),
      );
  }
}

// The MAC covers the sequence number and the message (TS 24.501 4.4.3.3), not the security header type
// octet: a message whose covered octets are the genuine ones may be accepted (1 and 3, 2 and 4 differ only
// in what they tell the procedure), anything else never.
function sameCoveredOctets(input: Uint8Array, genuine: Uint8Array): boolean {
  return input.length === genuine.length && Buffer.from(input.subarray(2)).equals(genuine.subarray(2));
}

describe('unprotect fuzz', () => {
  const pairs: [NasAlgorithm, NasAlgorithm][] = [
    [2, 2],
    [1, 1],
    [3, 3],
    [0, 0],
  ];
  for (const [ciphering, integrity] of pairs) {
    it(`NEA${ciphering}/NIA${integrity}: ${INPUTS_PER_PAIR} inputs, no throw, nothing changed accepted`, () => {
      const random = prng(0x5ec0 + ciphering * 4 + integrity);
      const make = (side: 'network' | 'ue'): NasSecurityContext =>
        createNasSecurityContext({
          side,
          ngKsi: { mapped: false, ksi: 0 },
          kamf: KAMF,
          ciphering,
          integrity,
        });
      const ue = make('ue');
      const network = make('network');
      for (let i = 0; i < INPUTS_PER_PAIR; i++) {
        const headerType = (1 + Math.floor(random() * 4)) as ProtectedSecurityHeaderType;
        const genuine = protect(ue, REGISTRATION_ACCEPT, headerType);
        const input = mutate(random, genuine);
        let result: ReturnType<typeof unprotect> | undefined;
        assert.doesNotThrow(
          () => {
            result = unprotect(network, input);
          },
          `input ${i}: ${Buffer.from(input).toString('hex')}`,
        );
        assert.ok(result !== undefined);
        if (integrity !== 0 && !sameCoveredOctets(input, genuine))
          assert.ok(!result.ok, `input ${i} accepted: ${Buffer.from(input).toString('hex')}`);
        if (i % 100 === 0 && !(result.ok && sameCoveredOctets(input, genuine)))
          assert.ok(unprotect(network, genuine).ok, `genuine message ${i} refused after a forged one`);
      }
    });
  }
});
