// ZUC (ETSI/SAGE "128-EEA3 & 128-EIA3 Document 2: ZUC Specification" v1.6) and the two algorithms built on it,
// 128-EEA3 and 128-EIA3 (Document 1; TS 33.401 B.1.4, B.2.4). Fast path: the LFSR slides along one typed
// array (no word shifting), and the S-box layer is four 256-entry tables with S0/S1 already in their byte lanes.
import { bytesForBits, clearTrailingBits, requireBitLength } from './bit-string.ts';

// Document 2 §3.3.2: the S-boxes S0 and S1, one row of sixteen entries per line.
const S0 = Buffer.from(
  [
    '3e725b47cae0003304d1549809b96dcb',
    '7b1bf932af9d6aa5b82dfc1d08530390',
    '4d4e8499e4ced991ddb685488b296eac',
    'cdc1f81e734369c6b5bdfd396320d438',
    '767db2a7cfed57c5f32cbb142106559b',
    'e3ef5e314f7f5aa40d8251495fba581c',
    '4a16d517a892241f8cffd8ae2e01d3ad',
    '3b4bda46ebc9de9a8f87d73a806f2fc8',
    'b1b437f70a2213287ccc3c89c7c39656',
    '07bf7ef00b2b975235417961a64c10fe',
    'bc2695888ab0a3fbc01894f2e1e5e95d',
    'd0dc1166645cec59427512f5749caa23',
    '0e86abbe2a02e767e644a26cc2939ff1',
    'f6fa36d250689e6271153dd640c4e20f',
    '8e83776b25053f0c30ea70b7a1e8a965',
    '8d271adb81b3a0f4457a19dfee783460',
  ].join(''),
  'hex',
);
const S1 = Buffer.from(
  [
    '55c263713bc847869f3cda5b29aafd77',
    '8cc5940ca61a1300e3a8167240f9f842',
    '4426689681d9453e1076c6a78b3943e1',
    '3ab5562ac06db3052266bfdc0bfa6248',
    'dd20110636c9c1cff62752bb69f5d487',
    '7f844cd29c57a4bc4f9adffed68d7aeb',
    '2b53d85ca11417fb23d57d3067730809',
    'eeb7703f61b2198e4ee54b938f5ddba9',
    'adf1ae2ecb0dfcf42d466e1d97e8d1e9',
    '4d37a5755e839eab829db91ce0cd4989',
    '01b6bd5824a25f387899159050b895e4',
    'd091c7ceed0fb46fa0ccf0024a79c3de',
    'a3efea51e66b18ec1b2c80f774e7ff21',
    '5a6a541e41319235c433070aba7e0e34',
    '88b1987cf33d606c7bcad31f32650428',
    '64be859b2f598ad7b025acaf1203e2f2',
  ].join(''),
  'hex',
);

// S(x) = S0(x0) || S1(x1) || S0(x2) || S1(x3) (Document 2 §3.3.2), one table per byte lane.
const LANE_0 = new Int32Array(256);
const LANE_1 = new Int32Array(256);
const LANE_2 = new Int32Array(256);
const LANE_3 = new Int32Array(256);
for (let x = 0; x < 256; x++) {
  LANE_0[x] = (S0[x] as number) << 24;
  LANE_1[x] = (S1[x] as number) << 16;
  LANE_2[x] = (S0[x] as number) << 8;
  LANE_3[x] = S1[x] as number;
}

// Document 2 §3.2: the 15-bit constants d0..d15 of the key loading.
const D = [
  0x44d7, 0x26bc, 0x626b, 0x135e, 0x5789, 0x35e2, 0x7135, 0x09af, 0x4d78, 0x2f13, 0x6bc4, 0x1af1, 0x5e26,
  0x3c4d, 0x789a, 0x47ac,
];
const MODULUS = 0x7fffffff;
const INIT_ROUNDS = 32;

// Addition modulo 2^31 - 1 of two numbers below 2^31 (Document 2 §3.2, footnote on implementation).
function add31(a: number, b: number): number {
  const c = a + b;
  return (c & MODULUS) + (c >>> 31);
}

// Multiplication by 2^k modulo 2^31 - 1 is a 31-bit rotation.
function rot31(a: number, k: number): number {
  return ((a << k) | (a >>> (31 - k))) & MODULUS;
}

function sbox(x: number): number {
  return (
    (LANE_0[x >>> 24] as number) |
    (LANE_1[(x >>> 16) & 0xff] as number) |
    (LANE_2[(x >>> 8) & 0xff] as number) |
    (LANE_3[x & 0xff] as number)
  );
}

function l1(x: number): number {
  return (
    x ^
    ((x << 2) | (x >>> 30)) ^
    ((x << 10) | (x >>> 22)) ^
    ((x << 18) | (x >>> 14)) ^
    ((x << 24) | (x >>> 8))
  );
}

function l2(x: number): number {
  return (
    x ^
    ((x << 8) | (x >>> 24)) ^
    ((x << 14) | (x >>> 18)) ^
    ((x << 22) | (x >>> 10)) ^
    ((x << 30) | (x >>> 2))
  );
}

/** ZUC key stream (Document 2 §3.6): `words` 32-bit words for a 16-byte key and a 16-byte IV. */
export function zucKeystream(key: Uint8Array, iv: Uint8Array, words: number): Uint32Array {
  if (key.length !== 16 || iv.length !== 16) throw new RangeError('ZUC takes a 16-byte key and a 16-byte IV');
  // The LFSR is s[i], ..., s[i + 15]; each step appends s16 instead of shifting the other fifteen.
  const s = new Int32Array(16 + INIT_ROUNDS + 1 + words);
  for (let j = 0; j < 16; j++)
    s[j] = ((key[j] as number) << 23) | ((D[j] as number) << 8) | (iv[j] as number);
  let r1 = 0;
  let r2 = 0;
  let i = 0;
  const out = new Uint32Array(words);
  for (let t = -INIT_ROUNDS - 1; t < words; t++) {
    const s0 = s[i] as number;
    const s15 = s[i + 15] as number;
    // §3.4 BitReorganization.
    const x0 = ((s15 & 0x7fff8000) << 1) | ((s[i + 14] as number) & 0xffff);
    const x1 = (((s[i + 11] as number) & 0xffff) << 16) | ((s[i + 9] as number) >>> 15);
    const x2 = (((s[i + 7] as number) & 0xffff) << 16) | ((s[i + 5] as number) >>> 15);
    // §3.5 F: W = (X0 XOR R1) + R2; W1 = R1 + X1; W2 = R2 XOR X2; R1 = S(L1(W1L || W2H)); R2 = S(L2(W2L || W1H)).
    const w = ((x0 ^ r1) + r2) | 0;
    const w1 = (r1 + x1) | 0;
    const w2 = r2 ^ x2;
    r1 = sbox(l1((w1 << 16) | (w2 >>> 16)));
    r2 = sbox(l2((w2 << 16) | (w1 >>> 16)));
    if (t >= 0) {
      const x3 = (((s[i + 2] as number) & 0xffff) << 16) | (s0 >>> 15);
      out[t] = w ^ x3;
    }
    // §3.2: s16 = 2^15 s15 + 2^17 s13 + 2^21 s10 + 2^20 s4 + (1 + 2^8) s0 mod (2^31 - 1), plus W >> 1 while
    // initialising (t < -1); a zero is written as 2^31 - 1.
    let v = add31(s0, rot31(s0, 8));
    v = add31(v, rot31(s[i + 4] as number, 20));
    v = add31(v, rot31(s[i + 10] as number, 21));
    v = add31(v, rot31(s[i + 13] as number, 17));
    v = add31(v, rot31(s15, 15));
    if (t < -1) v = add31(v, w >>> 1);
    s[i + 16] = v === 0 ? MODULUS : v;
    i++;
  }
  return out;
}

/**
 * 128-EEA3 (Document 1 §3): enciphers or deciphers the first `lengthBits` bits of `message`; the output has
 * ceil(lengthBits / 8) bytes and the bits after the last one are zero.
 */
export function eea3(
  key: Uint8Array,
  count: number,
  bearer: number,
  direction: number,
  message: Uint8Array,
  lengthBits: number,
): Buffer {
  requireBitLength(message, lengthBits);
  // §3.3: IV = COUNT || BEARER || DIRECTION || 0^26, twice.
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(count >>> 0);
  iv[4] = ((bearer & 0x1f) << 3) | ((direction & 1) << 2);
  iv.copy(iv, 8, 0, 8);
  const z = zucKeystream(key, iv, Math.ceil(lengthBits / 32));
  const lengthBytes = bytesForBits(lengthBits);
  const out = Buffer.allocUnsafe(lengthBytes);
  for (let j = 0; j < lengthBytes; j++) {
    out[j] = (message[j] as number) ^ (((z[j >> 2] as number) >>> (24 - 8 * (j & 3))) & 0xff);
  }
  clearTrailingBits(out, lengthBits);
  return out;
}

/** 128-EIA3 (Document 1 §4): the 32-bit MAC of the first `lengthBits` bits of `message`. */
export function eia3(
  key: Uint8Array,
  count: number,
  bearer: number,
  direction: number,
  message: Uint8Array,
  lengthBits: number,
): Buffer {
  requireBitLength(message, lengthBits);
  // §4.3: IV0..7 = COUNT || BEARER || 0^27; IV8..15 the same with DIRECTION XORed into bytes 8 and 14.
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(count >>> 0);
  iv[4] = (bearer & 0x1f) << 3;
  iv.copy(iv, 8, 0, 8);
  iv[8] = (iv[8] as number) ^ ((direction & 1) << 7);
  iv[14] = (iv[14] as number) ^ ((direction & 1) << 7);
  const words = Math.ceil(lengthBits / 32) + 2;
  const z = zucKeystream(key, iv, words);
  // §4.4: T = XOR of z_i over the set bits i of M, then z_LENGTH; MAC = T XOR z_(32(L-1)). z_i is the 32-bit
  // word of key stream that starts at bit i.
  const wordAt = (bit: number): number => {
    const index = bit >>> 5;
    const shift = bit & 31;
    const high = z[index] as number;
    return shift === 0 ? high : (high << shift) | ((z[index + 1] as number) >>> (32 - shift));
  };
  let t = 0;
  const fullBytes = lengthBits >>> 3;
  for (let j = 0; j < fullBytes; j++) {
    const byte = message[j] as number;
    if (byte === 0) continue;
    for (let b = 0; b < 8; b++) if (byte & (0x80 >> b)) t ^= wordAt(j * 8 + b);
  }
  for (let bit = fullBytes * 8; bit < lengthBits; bit++) {
    if ((message[bit >>> 3] as number) & (0x80 >> (bit & 7))) t ^= wordAt(bit);
  }
  t ^= wordAt(lengthBits);
  const mac = Buffer.allocUnsafe(4);
  mac.writeInt32BE(t ^ (z[words - 1] as number));
  return mac;
}
