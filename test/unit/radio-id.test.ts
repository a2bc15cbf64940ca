import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { radioId } from '../../src/network/radio-id.ts';

describe('radioId', () => {
  it('spells <mcc>:<mnc>:<node id> in lower-case hex, as many digits as the bit length needs', () => {
    assert.equal(radioId({ mcc: '001', mnc: '01' }, { value: 1, bitLength: 22 }), '001:01:000001');
    assert.equal(
      radioId({ mcc: '310', mnc: '410' }, { value: 0xabcdef12, bitLength: 32 }),
      '310:410:abcdef12',
    );
    assert.equal(radioId({ mcc: '001', mnc: '01' }, { value: 0x1ffffff, bitLength: 25 }), '001:01:1ffffff');
  });

  it('refuses an id that does not fit its bit length or a malformed PLMN', () => {
    assert.throws(() => radioId({ mcc: '001', mnc: '01' }, { value: 2 ** 22, bitLength: 22 }), RangeError);
    assert.throws(() => radioId({ mcc: '01', mnc: '01' }, { value: 1, bitLength: 22 }), RangeError);
    assert.throws(() => radioId({ mcc: '001', mnc: '01' }, { value: 1, bitLength: 33 }), RangeError);
  });
});
