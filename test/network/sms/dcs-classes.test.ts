// TP-DCS message classes, octet by octet from TS 23.038 4: the general data coding groups 00xx and 01xx
// (bit 4 says bits 1-0 are a class), and the group 1111 (class always, bit 2 the alphabet).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeDcs, encodeDcs, type SmsAlphabet } from '../../../src/network/sms/index.ts';

/** [octet, alphabet, class or undefined] */
const VECTORS: [number, SmsAlphabet, number | undefined][] = [
  // 0001 00cc: GSM 7-bit, class cc (0 immediate display, 1 ME, 2 (U)SIM, 3 TE).
  [0x10, 'gsm7', 0],
  [0x11, 'gsm7', 1],
  [0x12, 'gsm7', 2],
  [0x13, 'gsm7', 3],
  // 0001 01cc: 8-bit data; 0001 10cc: UCS-2.
  [0x14, '8bit', 0],
  [0x16, '8bit', 2],
  [0x18, 'ucs2', 0],
  [0x1b, 'ucs2', 3],
  // Bit 4 clear: bits 1-0 are reserved and name no class.
  [0x00, 'gsm7', undefined],
  [0x02, 'gsm7', undefined],
  [0x0b, 'ucs2', undefined],
  // 01xx: automatic deletion, the same class bits.
  [0x50, 'gsm7', 0],
  [0x56, '8bit', 2],
  // 1111 0acc: a 7-bit or 8-bit (a) message of class cc.
  [0xf0, 'gsm7', 0],
  [0xf1, 'gsm7', 1],
  [0xf2, 'gsm7', 2],
  [0xf3, 'gsm7', 3],
  [0xf4, '8bit', 0],
  [0xf7, '8bit', 3],
  // Message waiting groups and the reserved ones carry no class.
  [0xc8, 'gsm7', undefined],
  [0xe0, 'ucs2', undefined],
  [0x90, 'gsm7', undefined],
];

describe('TP-DCS message classes (TS 23.038 4)', () => {
  for (const [octet, alphabet, messageClass] of VECTORS)
    it(`0x${octet.toString(16).padStart(2, '0')}: ${alphabet}, class ${messageClass ?? 'none'}`, () => {
      const coding = decodeDcs(octet);
      assert.equal(coding.alphabet, alphabet);
      assert.equal(coding.messageClass, messageClass);
    });

  it('encodes each class in the general data coding group, and refuses a class outside 0-3', () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((c) => encodeDcs('gsm7', c)),
      [0x10, 0x11, 0x12, 0x13],
    );
    assert.equal(encodeDcs('ucs2', 0), 0x18);
    assert.equal(encodeDcs('8bit', 1), 0x15);
    assert.throws(() => encodeDcs('gsm7', 4), RangeError);
  });
});
