import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitStringHex, bitStringOf } from '../../../src/network/asn1/bit-string.ts';
import { toHex } from '../../../src/network/asn1/hex.ts';
import { PerError, PerReader } from '../../../src/network/asn1/per-reader.ts';
import { PerWriter } from '../../../src/network/asn1/per-writer.ts';

function encoded(aligned: boolean, write: (w: PerWriter) => void): string {
  const w = new PerWriter(aligned);
  write(w);
  return toHex(w.finish());
}

function reader(hex: string, aligned = true): PerReader {
  return new PerReader(Buffer.from(hex, 'hex'), aligned);
}

// Expected octets worked out by hand from the X.691 (02/2021) clauses cited.
describe('PER runtime (X.691)', () => {
  it('constrained whole numbers: bit-field, one octet, two octets, indefinite length (10.5.7)', () => {
    assert.equal(
      encoded(true, (w) => w.bitsInt(5, 0, 6, 3)),
      'a0',
    );
    assert.equal(
      encoded(true, (w) => (w.bit(true), w.octetsInt(5, 0, 255, 1))),
      '8005',
    );
    assert.equal(
      encoded(true, (w) => w.octetsInt(300, 0, 65535, 2)),
      '012c',
    );
    // 0..2^32-1: octet count 1..4 in 2 bits, then aligned octets (RAN-UE-NGAP-ID 256).
    assert.equal(
      encoded(true, (w) => w.lengthInt(256, 0, 4294967295, 2)),
      '400100',
    );
    // UNALIGNED: always the minimal bit-field.
    assert.equal(
      encoded(false, (w) => (w.bit(true), w.bitsInt(256, 0, 4294967295, 32))),
      '8000008000',
    );
    const r = reader('400100');
    assert.equal(r.lengthInt(0, 4294967295, 2), 256);
  });

  it('a 40-bit AMF-UE-NGAP-ID past 2^32 round-trips', () => {
    const value = 2 ** 40 - 1;
    const hex = encoded(true, (w) => w.lengthInt(value, 0, 2 ** 40 - 1, 3));
    assert.equal(hex, '80ffffffffff');
    assert.equal(reader(hex).lengthInt(0, 2 ** 40 - 1, 3), value);
  });

  it('general length determinants, short, long and fragmented (10.9.3.6-8)', () => {
    assert.equal(
      encoded(true, (w) => w.generalLength(5)),
      '05',
    );
    assert.equal(
      encoded(true, (w) => w.generalLength(200)),
      '80c8',
    );
    const big = new Uint8Array(20000).fill(7);
    const hex = encoded(true, (w) => w.generalOctets(big));
    assert.equal(hex.slice(0, 2), 'c1');
    assert.equal(hex.slice(2 + 2 * 16384, 2 + 2 * 16384 + 4), '8e20');
    assert.deepEqual(reader(hex).generalOctets(), big);
  });

  it('normally small numbers and lengths (10.6, 10.9.3.4)', () => {
    assert.equal(
      encoded(true, (w) => w.normallySmall(5)),
      '0a',
    );
    assert.equal(
      encoded(true, (w) => w.normallySmall(64)),
      '800140',
    );
    assert.equal(reader('800140').normallySmall(), 64);
    assert.equal(
      encoded(true, (w) => w.smallLength(1)),
      '00',
    );
    assert.equal(reader('00').smallLength(), 1);
  });

  it('semi-constrained and unconstrained whole numbers (10.7, 10.8)', () => {
    assert.equal(
      encoded(true, (w) => w.unconstrainedInt(-1)),
      '01ff',
    );
    assert.equal(
      encoded(true, (w) => w.unconstrainedInt(128)),
      '020080',
    );
    assert.equal(reader('01ff').unconstrainedInt(), -1);
    assert.equal(reader('020080').unconstrainedInt(), 128);
    assert.equal(
      encoded(true, (w) => w.semiInt(300, 44)),
      '020100',
    );
    assert.equal(reader('020100').semiInt(44), 300);
  });

  it('a BIT STRING of a number has the bytes of the same value as a bigint, and reads back in hex (1-64 bits, fixed seed)', () => {
    let seed = 0x5eed;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let length = 1; length <= 64; length++) {
      for (let i = 0; i < 50; i++) {
        const value = Math.floor(random() * 2 ** Math.min(length, 53));
        assert.deepEqual(
          bitStringOf(value, length),
          bitStringOf(BigInt(value), length),
          `${value}, ${length}`,
        );
      }
    }
    assert.equal(bitStringHex(bitStringOf(2 ** 45 - 1, 45)), '1fffffffffff');
    for (let length = 1; length <= 64; length++) {
      for (let i = 0; i < 20; i++) {
        const value =
          BigInt(Math.floor(random() * 2 ** 32)) * 2n ** 32n + BigInt(Math.floor(random() * 2 ** 32));
        const kept = value & ((1n << BigInt(length)) - 1n);
        const hex = kept.toString(16).padStart(Math.ceil(length / 4), '0');
        assert.equal(bitStringHex(bitStringOf(kept, length)), hex, `${hex}, ${length}`);
      }
    }
    assert.equal(bitStringHex(bitStringOf(0x8000, 16)), '8000');
  });

  it('BIT STRINGs are left-aligned on the wire and right-aligned in hex', () => {
    const cellId = bitStringOf(16, 36);
    assert.equal(bitStringHex(cellId), '000000010');
    assert.equal(
      encoded(true, (w) => w.bitString(cellId)),
      '0000000100',
    );
    assert.deepEqual(reader('0000000100').bitString(36), cellId);
  });

  it('known-multiplier strings: 8 bits a character aligned, 7 unaligned (30.5.3)', () => {
    assert.equal(
      encoded(true, (w) => w.chars('AB', 8, true)),
      '4142',
    );
    assert.equal(
      encoded(false, (w) => w.chars('AB', 7, true)),
      '8308',
    );
    assert.equal(reader('8308', false).chars(2, 7, true), 'AB');
  });

  it('open types carry a length and their own padded encoding (10.2)', () => {
    const w = new PerWriter(true);
    w.bit(true);
    const child = w.child();
    child.bits(5, 3);
    w.openType(child);
    assert.equal(toHex(w.finish()), '8001a0');
    const r = reader('8001a0');
    assert.equal(r.bit(), true);
    assert.equal(r.openType().bits(3), 5);
  });

  it('refuses truncated input, values above their bound and oversized lengths', () => {
    assert.throws(() => reader('00').bits(9), PerError);
    assert.throws(() => reader('ff').bitsInt(0, 200, 8), /above its bound/);
    assert.throws(() => reader('8fff').generalOctets(), /truncated/);
    assert.throws(() => reader('7f').count(), /exceeds/);
    assert.throws(() => new PerWriter(true).bitsInt(7, 0, 6, 3), PerError);
  });
});
