import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextSqn, splitSqn } from '../../src/crypto/sequence-number.ts';

const sqn = (hex: string) => Buffer.from(hex, 'hex');

describe('SQN = SEQ || IND (TS 33.102 Annex C)', () => {
  it('splits 48 bits into a 43-bit SEQ and a 5-bit IND', () => {
    assert.deepEqual(splitSqn(sqn('000000000021')), { seq: 1n, ind: 1 });
    assert.deepEqual(splitSqn(sqn('ffffffffffff')), { seq: (1n << 43n) - 1n, ind: 31 });
  });

  it('advances SEQ by one and IND cyclically', () => {
    assert.equal(nextSqn(sqn('000000000000')).toString('hex'), '000000000021');
    assert.equal(nextSqn(sqn('00000000003f')).toString('hex'), '000000000040');
  });

  it('wraps SEQ at 2^43', () => {
    assert.equal(nextSqn(sqn('ffffffffffe0')).toString('hex'), '000000000001');
  });

  it('refuses an SQN that is not 6 bytes', () => {
    assert.throws(() => nextSqn(Buffer.alloc(5)), RangeError);
  });
});
