import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createRandomPool } from '../../src/crypto/random-pool.ts';

describe('random pool', () => {
  it('hands out buffers of the size asked for, each its own and unchanged when the pool refills', () => {
    const pool = createRandomPool();
    const first = pool.bytes(16);
    const kept = Buffer.from(first);
    // Far more than the 4 KiB pool: it is filled again several times.
    const later = Array.from({ length: 2000 }, () => pool.bytes(16));
    assert.equal(first.length, 16);
    assert.deepEqual(first, kept);
    // 2,001 draws of 128 random bits: any repeat means the same bytes were handed out twice.
    assert.equal(new Set([kept, ...later].map((b) => b.toString('hex'))).size, 2001);
  });

  it('serves sizes beyond the pool, and words over the whole 32-bit range', () => {
    const pool = createRandomPool();
    const big = pool.bytes(10_000);
    assert.equal(big.length, 10_000);
    assert.notDeepEqual(big.subarray(0, 32), Buffer.alloc(32));
    const words = Array.from({ length: 4096 }, () => pool.word());
    for (const w of words) assert.ok(Number.isInteger(w) && w >= 0 && w <= 0xffffffff);
    assert.ok(words.some((w) => w >= 2 ** 31) && words.some((w) => w < 2 ** 31));
    assert.ok(new Set(words).size > 4000);
  });
});
