// The pieces inside a TPDU: the GSM 7-bit alphabet and its extension table (TS 23.038 6.2.1), TP-DCS
// (TS 23.038 4), the user data header and its fill bits (TS 23.040 9.2.3.16, 9.2.3.24), addresses
// (9.1.2.5), time stamps (9.2.3.11) and validity periods (9.2.3.12).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  concatenationOf,
  decodeDcs,
  decodeTimestamp,
  decodeTpAddress,
  decodeUserData,
  decodeValidityPeriod,
  encodeDcs,
  encodeTimestamp,
  encodeTpAddress,
  encodeUserData,
  encodeValidityPeriod,
  relativeValiditySeconds,
  septetsToText,
  textToSeptets,
  timestampFromDate,
  timestampToDate,
  validityExpiry,
  type UserData,
} from '../../../src/network/sms/index.ts';

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/ /g, ''), 'hex'));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('GSM 7-bit default alphabet', () => {
  it('maps the table of TS 23.038 6.2.1 and the extension table through the escape', () => {
    assert.deepEqual(textToSeptets('@£$¥'), [0, 1, 2, 3]);
    assert.deepEqual(textToSeptets('Δ_ÆæßÉ'), [0x10, 0x11, 0x1c, 0x1d, 0x1e, 0x1f]);
    assert.deepEqual(textToSeptets('¤¡§¿à'), [0x24, 0x40, 0x5f, 0x60, 0x7f]);
    assert.deepEqual(
      textToSeptets('€[~]|^{}\\\f'),
      [
        0x1b, 0x65, 0x1b, 0x3c, 0x1b, 0x3d, 0x1b, 0x3e, 0x1b, 0x40, 0x1b, 0x14, 0x1b, 0x28, 0x1b, 0x29, 0x1b,
        0x2f, 0x1b, 0x0a,
      ],
    );
    assert.equal(textToSeptets('ç'), undefined, 'ç (small) is not in the alphabet, only Ç');
    assert.equal(textToSeptets('😀'), undefined);
  });

  it('decodes every septet and reads an escape as TS 23.038 6.2.1.1 says', () => {
    const all = Array.from({ length: 128 }, (_, i) => i).filter((i) => i !== 0x1b);
    const text = septetsToText(all);
    assert.equal([...text].length, 127);
    assert.deepEqual(textToSeptets(text), all, 'every basic character round-trips');
    assert.equal(septetsToText([0x1b, 0x41]), 'A', 'an extension code the table lacks: the basic character');
    assert.equal(septetsToText([0x1b, 0x1b, 0x41]), ' A', 'escape escape: a space');
    assert.equal(septetsToText([0x41, 0x1b]), 'A ', 'a trailing escape: a space');
  });
});

describe('TP-DCS', () => {
  it('reads the coding groups of TS 23.038 4', () => {
    assert.deepEqual(decodeDcs(0x00), { alphabet: 'gsm7', compressed: false, autoDelete: false });
    assert.equal(decodeDcs(0x04).alphabet, '8bit');
    assert.equal(decodeDcs(0x08).alphabet, 'ucs2');
    assert.equal(decodeDcs(0x0c).alphabet, 'gsm7', 'reserved alphabet: GSM 7-bit');
    assert.deepEqual(decodeDcs(0x11), {
      alphabet: 'gsm7',
      compressed: false,
      messageClass: 1,
      autoDelete: false,
    });
    assert.equal(decodeDcs(0x20).compressed, true);
    assert.equal(decodeDcs(0x48).autoDelete, true);
    assert.deepEqual(decodeDcs(0xf6), {
      alphabet: '8bit',
      compressed: false,
      messageClass: 2,
      autoDelete: false,
    });
    assert.deepEqual(decodeDcs(0xd8).messageWaiting, { store: true, active: true, indication: 0 });
    assert.equal(decodeDcs(0xe0).alphabet, 'ucs2');
    assert.equal(decodeDcs(0x80).alphabet, 'gsm7', 'reserved group: GSM 7-bit');
    assert.equal(encodeDcs('ucs2'), 0x08);
    assert.equal(encodeDcs('8bit', 1), 0x15);
  });
});

describe('user data', () => {
  const gsm7 = decodeDcs(0x00);
  const roundTrip = (content: UserData, alphabet: 'gsm7' | '8bit' | 'ucs2', expected: string): void => {
    const raw = encodeUserData(content, alphabet);
    assert.ok(raw.ok);
    assert.equal(toHex(raw.value.bytes), expected.replace(/ /g, '').toLowerCase());
    assert.deepEqual(decodeUserData(raw.value, decodeDcs(encodeDcs(alphabet))), { ok: true, value: content });
  };

  it('packs septets as TS 23.038 6.1.2.1.1 does ("hellohello", dreamfabric)', () => {
    roundTrip({ text: 'hellohello' }, 'gsm7', 'E8329BFD4697D9EC37');
  });

  it('starts 7-bit text on the septet boundary after the header (fill bits)', () => {
    // 8-bit reference: 6 header octets, 1 fill bit (see vectors.test.ts for the arithmetic).
    const header8 = [{ iei: 0, data: Uint8Array.of(0x2a, 2, 1) }];
    roundTrip({ header: header8, text: 'Hi' }, 'gsm7', '0500032A0201 90 69');
    // 16-bit reference: 7 header octets = 56 bits = 8 septets, no fill bits.
    const header16 = [{ iei: 8, data: Uint8Array.of(0x12, 0x34, 2, 2) }];
    roundTrip({ header: header16, text: 'Hi' }, 'gsm7', '0608041234 0202 C834');
    const raw = encodeUserData({ header: header16, text: 'Hi' }, 'gsm7');
    assert.ok(raw.ok);
    assert.equal(raw.value.length, 10, 'TP-UDL counts the header septets too');
  });

  it('carries UCS-2 (UTF-16 units, big-endian) and 8-bit data after a header', () => {
    roundTrip({ text: 'Ω😀' }, 'ucs2', '03A9 D83D DE00');
    roundTrip(
      { header: [{ iei: 0, data: Uint8Array.of(1, 1, 1) }], data: Uint8Array.of(0xde, 0xad) },
      '8bit',
      '050003010101 dead',
    );
  });

  it('reads concatenation IEs and ignores invalid ones (TS 23.040 9.2.3.24.1)', () => {
    assert.deepEqual(concatenationOf([{ iei: 8, data: Uint8Array.of(0x12, 0x34, 3, 2) }]), {
      reference: 0x1234,
      referenceBits: 16,
      total: 3,
      sequence: 2,
    });
    assert.equal(concatenationOf([{ iei: 0, data: Uint8Array.of(1, 0, 0) }]), undefined, 'zero total');
    assert.equal(
      concatenationOf([{ iei: 0, data: Uint8Array.of(1, 2, 3) }]),
      undefined,
      'sequence over total',
    );
  });

  it('refuses user data whose lengths lie', () => {
    const bad = (headerIndicator: boolean, length: number, bytes: string, coding = gsm7): void => {
      const result = decodeUserData({ headerIndicator, length, bytes: hex(bytes) }, coding);
      assert.equal(result.ok, false, bytes);
    };
    bad(false, 3, 'c834', gsm7); // 3 septets need 3 octets
    bad(true, 2, '0500', gsm7); // header of 6 octets in 2
    bad(true, 6, '050003010101', gsm7); // the header's 7 septets in a TP-UDL of 6
    bad(true, 4, '0300050101', decodeDcs(4)); // IE length 5 overruns the header
    bad(false, 3, '03a9d8', decodeDcs(8)); // odd UCS-2
    bad(true, 0, '', decodeDcs(4)); // header indicator with no header
  });
});

describe('addresses', () => {
  it('codes digits with the F filler, and alphanumeric addresses as packed septets', () => {
    const international = { typeOfNumber: 1, numberingPlan: 1, value: '46708251358' };
    assert.equal(toHex(encodeTpAddress(international)), '0b916407281553f8');
    assert.deepEqual(decodeTpAddress(hex('0b916407281553f8'), 0), { address: international, length: 8 });
    // 10 septets = 70 bits = 18 semi-octets; type 0xD0 (alphanumeric, numbering plan unknown).
    const alpha = { typeOfNumber: 5, numberingPlan: 0, value: 'hellohello' };
    assert.equal(toHex(encodeTpAddress(alpha)), '12d0e8329bfd4697d9ec37');
    assert.deepEqual(decodeTpAddress(hex('12d0e8329bfd4697d9ec37'), 0), { address: alpha, length: 11 });
    assert.equal(toHex(encodeTpAddress({ typeOfNumber: 0, numberingPlan: 1, value: '*123#' })), '05811a32fb');
  });

  it('refuses addresses that are cut off, too long or filled wrongly', () => {
    assert.ok('error' in decodeTpAddress(hex('0b916407281553'), 0), 'cut off');
    assert.ok('error' in decodeTpAddress(hex('1791' + '00'.repeat(12)), 0), '23 digits');
    assert.ok('error' in decodeTpAddress(hex('03912143'), 0), 'odd count without the F filler');
    assert.ok('error' in decodeTpAddress(hex('0491f143'), 0), 'a filler mid-number');
  });
});

describe('time stamps and validity periods', () => {
  it('codes the time zone with its sign bit (TS 23.040 9.2.3.11)', () => {
    const time = { year: 26, month: 12, day: 6, hour: 19, minute: 40, second: 5, timeZoneQuarters: -22 };
    // -22 quarters: digits 2 and 2 swapped, the sign in bit 3 of the first semi-octet: 0x2A.
    assert.equal(toHex(encodeTimestamp(time)), '622160910450' + '2a');
    assert.deepEqual(decodeTimestamp(encodeTimestamp(time), 0), time);
    assert.equal(timestampToDate(time).toISOString(), '2026-12-07T01:10:05.000Z');
    assert.deepEqual(timestampFromDate(timestampToDate(time), -22), time);
    // Time zone octet 0x08: the sign bit on zero quarters. It reads as UTC, not -0 (which would
    // re-encode to 0x00 and change the bytes of a decoded message).
    assert.ok(Object.is(decodeTimestamp(hex('62216091045008'), 0)?.timeZoneQuarters, 0));
    assert.equal(decodeTimestamp(hex('62136091345000'), 0), undefined, 'month 31');
    assert.equal(decodeTimestamp(hex('6a2160913450'), 0), undefined, 'cut off');
  });

  it('reads relative validity periods (TS 23.040 9.2.3.12.1)', () => {
    assert.equal(relativeValiditySeconds(0), 5 * 60);
    assert.equal(relativeValiditySeconds(143), 12 * 3600);
    assert.equal(relativeValiditySeconds(144), 12.5 * 3600);
    assert.equal(relativeValiditySeconds(167), 24 * 3600);
    assert.equal(relativeValiditySeconds(168), 2 * 86_400);
    assert.equal(relativeValiditySeconds(196), 30 * 86_400);
    assert.equal(relativeValiditySeconds(197), 5 * 7 * 86_400);
    assert.equal(relativeValiditySeconds(255), 63 * 7 * 86_400);
    const at = new Date('2026-12-06T00:00:00Z');
    assert.equal(
      validityExpiry({ format: 'relative', value: 0xaa }, at)?.toISOString(),
      '2026-12-10T00:00:00.000Z',
    );
    assert.equal(
      validityExpiry(
        { format: 'enhanced', singleShot: false, period: { kind: 'seconds', seconds: 30 } },
        at,
      )?.toISOString(),
      '2026-12-06T00:00:30.000Z',
    );
    assert.equal(validityExpiry(undefined, at), undefined);
  });

  it('codes the enhanced format (TS 23.040 9.2.3.12.3) and refuses its reserved codings', () => {
    const vp = { format: 'enhanced', singleShot: false, period: { kind: 'seconds', seconds: 90 } } as const;
    assert.equal(toHex(encodeValidityPeriod(vp)), '025a0000000000');
    assert.deepEqual(decodeValidityPeriod(hex('025a0000000000'), 0, 1), { period: vp, length: 7 });
    assert.ok('error' in decodeValidityPeriod(hex('05000000000000'), 0, 1), 'reserved format 101');
    assert.ok('error' in decodeValidityPeriod(hex('81000000000000'), 0, 1), 'extension bit');
    assert.ok('error' in decodeValidityPeriod(hex('025a00'), 0, 1), 'cut off');
  });
});
