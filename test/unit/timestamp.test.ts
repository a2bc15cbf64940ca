import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTimestamp } from '../../src/validation/timestamp.ts';

describe('parseTimestamp (RFC 3339)', () => {
  it('reads UTC and numeric offsets to the millisecond', () => {
    assert.equal(parseTimestamp('2026-11-22T10:15:30Z', 'x', 'floor'), Date.UTC(2026, 10, 22, 10, 15, 30));
    assert.equal(
      parseTimestamp('2026-11-22T10:15:30.123Z', 'x', 'floor'),
      Date.UTC(2026, 10, 22, 10, 15, 30, 123),
    );
    assert.equal(
      parseTimestamp('2026-11-22T12:15:30.1+02:00', 'x', 'floor'),
      Date.UTC(2026, 10, 22, 10, 15, 30, 100),
    );
    assert.equal(
      parseTimestamp('2026-11-22t05:15:30-05:00', 'x', 'floor'),
      Date.UTC(2026, 10, 22, 10, 15, 30),
    );
    assert.equal(parseTimestamp('2026-11-22 10:15:30z', 'x', 'floor'), Date.UTC(2026, 10, 22, 10, 15, 30));
  });

  it('rounds a finer fraction down for an upper bound and up for a lower one', () => {
    const base = Date.UTC(2026, 10, 22, 10, 15, 30, 123);
    assert.equal(parseTimestamp('2026-11-22T10:15:30.123456Z', 'x', 'floor'), base);
    assert.equal(parseTimestamp('2026-11-22T10:15:30.123456Z', 'x', 'ceil'), base + 1);
    assert.equal(parseTimestamp('2026-11-22T10:15:30.123000Z', 'x', 'ceil'), base);
  });

  for (const value of [
    '2026-11-22',
    '2026-11-22T10:15:30',
    '2026-11-22T10:15:30+0200',
    '2026-02-30T10:15:30Z',
    '2026-11-22T24:00:00Z',
    '2026-12-31T23:59:60Z',
    '2026-11-22T10:15:30+24:00',
    'now',
  ]) {
    it(`refuses ${value}, naming the field`, () => {
      assert.throws(() => parseTimestamp(value, 'timestamp_from', 'ceil'), {
        message: 'timestamp_from must be an RFC 3339 timestamp (2026-11-22T10:15:30Z)',
      });
    });
  }
});
