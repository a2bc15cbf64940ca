import { fromHex } from '../../../src/network/asn1/hex.ts';
import { ngapVectors } from './vectors.ts';

/** mulberry32: a small fixed-seed PRNG, so that every run feeds the same inputs. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Fuzz inputs: random bytes, and vector PDUs with bit flips, truncation, inserted or deleted bytes and
 * overwritten length-like octets (the mutations that reach length determinants and open types).
 */
export function* fuzzInputs(count: number, seed: number): Generator<Uint8Array> {
  const random = prng(seed);
  const int = (n: number): number => Math.floor(random() * n);
  const seeds = ngapVectors().map((v) => fromHex(v.hex));
  for (let i = 0; i < count; i++) {
    const kind = int(6);
    if (kind === 0) {
      const bytes = new Uint8Array(int(64));
      for (let j = 0; j < bytes.length; j++) bytes[j] = int(256);
      yield bytes;
      continue;
    }
    const base = seeds[int(seeds.length)]!;
    let bytes = base.slice();
    if (kind === 1 || kind === 5) {
      const flips = 1 + int(4);
      for (let j = 0; j < flips; j++) bytes[int(bytes.length)]! ^= 1 << int(8);
    }
    if (kind === 2) bytes = bytes.slice(0, int(bytes.length));
    if (kind === 3) {
      const at = int(bytes.length + 1);
      const inserted = Uint8Array.from({ length: 1 + int(8) }, () => int(256));
      bytes = Uint8Array.from([...bytes.subarray(0, at), ...inserted, ...bytes.subarray(at)]);
    }
    if (kind === 4) {
      const at = int(bytes.length);
      bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + 1 + int(4))]);
    }
    if (kind === 5) bytes[int(bytes.length)] = [0x00, 0x7f, 0x80, 0xbf, 0xc1, 0xff][int(6)]!;
    yield bytes;
  }
}
