import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUuidV7Generator, formatUuidV7 } from '../../src/ids/uuid-v7.ts';
import { manualClock } from '../helpers/test-app.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('UUIDv7', () => {
  it('lays out the fields as RFC 9562 appendix A.6 shows', () => {
    // unix_ts_ms 0x017F22E279B0 (2022-02-22 19:22:22 UTC), rand_a 0xCC3, rand_b 0x18C4DC0C0C07398F.
    assert.equal(
      formatUuidV7(0x017f22e279b0, 0xcc3, 0x18c4dc0c0c07398fn),
      '017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
    );
  });

  it('refuses fields wider than their bits', () => {
    assert.throws(() => formatUuidV7(2 ** 48, 0, 0n), RangeError);
    assert.throws(() => formatUuidV7(0, 0x1000, 0n), RangeError);
    assert.throws(() => formatUuidV7(0, 0, 1n << 62n), RangeError);
  });

  it('carries the clock time, version 7 and variant 10', () => {
    const clock = manualClock(0x017f22e279b0);
    const id = createUuidV7Generator(clock)();
    assert.match(id, UUID_V7);
    assert.equal(id.slice(0, 13), '017f22e2-79b0');
  });

  it('keeps ids in creation order within one millisecond, and when the clock steps back', () => {
    const clock = manualClock(1_000_000);
    const next = createUuidV7Generator(clock);
    const ids = [next(), next(), next()];
    clock.set(999_000);
    ids.push(next());
    clock.set(1_000_001);
    ids.push(next());
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, UUID_V7);
  });

  it('increments the random bits within a millisecond and moves to the next one when they overflow', () => {
    const clock = manualClock(5);
    const all = (1n << 74n) - 1n;
    const next = createUuidV7Generator(clock, () => all - 1n);
    assert.equal(next(), formatUuidV7(5, 0xfff, (1n << 62n) - 2n));
    assert.equal(next(), formatUuidV7(5, 0xfff, (1n << 62n) - 1n));
    assert.equal(next(), formatUuidV7(6, 0xfff, (1n << 62n) - 2n));
  });
});
