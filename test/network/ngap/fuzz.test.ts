import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toHex } from '../../../src/network/asn1/hex.ts';
import { decodeNgapPdu, encodeNgapPdu, viewNgapPdu } from '../../../src/network/ngap/ngap-codec.ts';
import { fuzzInputs } from './fuzz.ts';

describe('NGAP decoder on hostile input (fixed seed)', () => {
  it('100,000 random and mutated PDUs: an error value or a PDU that re-encodes, never a throw', () => {
    let decoded = 0;
    let refused = 0;
    for (const bytes of fuzzInputs(100_000, 0x5eed)) {
      const result = decodeNgapPdu(bytes);
      if (!result.ok) {
        refused++;
        // A PerError names what is wrong; anything else would be a codec defect caught by the entry.
        assert.doesNotMatch(result.error, /^undecodable/, toHex(bytes));
        continue;
      }
      decoded++;
      const again = decodeNgapPdu(encodeNgapPdu(result.value));
      assert.ok(again.ok, toHex(bytes));
    }
    // Both paths were exercised: the mutations reach deep into valid PDUs, and many are refused.
    assert.ok(decoded > 10_000 && refused > 10_000, `${decoded} decoded, ${refused} refused`);
  });

  it('the JSON view of mutated PDUs never throws either', () => {
    for (const bytes of fuzzInputs(5_000, 0xfeed)) {
      const view = viewNgapPdu(bytes, { nas: () => ({ decoded: {} }) });
      assert.equal(typeof view, 'object');
    }
  });

  it('a length determinant beyond the input is refused before anything is allocated', () => {
    // initiatingMessage NGSetup, then an open type claiming 16K octets fragments in a 6-byte PDU.
    const result = decodeNgapPdu(Uint8Array.of(0x00, 0x15, 0x00, 0xc4, 0x00, 0x00));
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.error, /truncated/);
  });
});
