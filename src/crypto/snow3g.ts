// SNOW 3G (ETSI/SAGE "UEA2 & UIA2 Document 2: SNOW 3G Specification", TS 35.216) and the two algorithms built
// on it: f8 (UEA2, 128-EEA1/NEA1) and f9 (UIA2, 128-EIA1/NIA1), TS 35.215 / TS 33.401 B.1.2, B.2.2.
// Fast path: the LFSR slides along one typed array (no word shifting), S1 and S2 are four 256-entry tables
// each (the S-box and the MixColumn-like mixing folded together), MULalpha/DIValpha are 256-entry tables.
import { bytesForBits, clearTrailingBits, requireBitLength } from './bit-string.ts';

const INIT_CLOCKS = 32;

/** MULx(V, c) of Document 2 §3.1.1: multiplication by x in GF(2^8) with reduction byte c. */
function mulX(v: number, c: number): number {
  return v & 0x80 ? ((v << 1) ^ c) & 0xff : (v << 1) & 0xff;
}

/** MULxPOW(V, i, c) of Document 2 §3.1.2. */
function mulXPow(v: number, i: number, c: number): number {
  let out = v;
  for (let n = 0; n < i; n++) out = mulX(out, c);
  return out;
}

// Document 2 §3.3.1: SR is the Rijndael S-box: the inverse in GF(2^8) mod x^8+x^4+x^3+x+1, then the affine map.
function rijndaelSbox(): Uint8Array {
  const box = new Uint8Array(256);
  for (let x = 0; x < 256; x++) {
    let inverse = 0;
    for (let y = 1; y < 256 && x !== 0; y++) {
      if (gfMultiply(x, y, 0x11b) === 1) {
        inverse = y;
        break;
      }
    }
    let b = inverse;
    let s = inverse;
    for (let n = 0; n < 4; n++) {
      b = ((b << 1) | (b >> 7)) & 0xff;
      s ^= b;
    }
    box[x] = s ^ 0x63;
  }
  return box;
}

// Document 2 §3.3.2: SQ(x) = g49(x) XOR 0x25, g49 the Dickson polynomial
// x + x^9 + x^13 + x^15 + x^33 + x^41 + x^45 + x^47 + x^49 over GF(2^8) mod x^8+x^6+x^5+x^3+1.
function dicksonSbox(): Uint8Array {
  const box = new Uint8Array(256);
  const exponents = [1, 9, 13, 15, 33, 41, 45, 47, 49];
  for (let x = 0; x < 256; x++) {
    let sum = 0;
    for (const e of exponents) sum ^= gfPower(x, e, 0x169);
    box[x] = sum ^ 0x25;
  }
  return box;
}

function gfMultiply(a: number, b: number, modulus: number): number {
  let product = 0;
  let x = a;
  for (let y = b; y !== 0; y >>= 1) {
    if (y & 1) product ^= x;
    x <<= 1;
    if (x & 0x100) x ^= modulus;
  }
  return product;
}

function gfPower(x: number, exponent: number, modulus: number): number {
  let out = 1;
  for (let n = 0; n < exponent; n++) out = gfMultiply(out, x, modulus);
  return out;
}

// Document 2 §3.4.1/§3.4.2: S1 and S2 as four tables each, one per input byte, indexed by that byte. For input
// byte position j with a = S(w_j), b = MULx(a, c): column j of the mixing gives b, a^b, a, a (rotated).
function mixingTables(sbox: Uint8Array, c: number): Int32Array[] {
  const tables = [0, 1, 2, 3].map(() => new Int32Array(256));
  for (let x = 0; x < 256; x++) {
    const a = sbox[x] ?? 0;
    const b = mulX(a, c);
    const ab = a ^ b;
    (tables[0] as Int32Array)[x] = (b << 24) | (ab << 16) | (a << 8) | a;
    (tables[1] as Int32Array)[x] = (a << 24) | (b << 16) | (ab << 8) | a;
    (tables[2] as Int32Array)[x] = (a << 24) | (a << 16) | (b << 8) | ab;
    (tables[3] as Int32Array)[x] = (ab << 24) | (a << 16) | (a << 8) | b;
  }
  return tables;
}

const [S1_0, S1_1, S1_2, S1_3] = mixingTables(rijndaelSbox(), 0x1b) as [
  Int32Array,
  Int32Array,
  Int32Array,
  Int32Array,
];
const [S2_0, S2_1, S2_2, S2_3] = mixingTables(dicksonSbox(), 0x69) as [
  Int32Array,
  Int32Array,
  Int32Array,
  Int32Array,
];

// Document 2 §3.4.5/§3.4.6: MULalpha(c) and DIValpha(c) as 256-entry tables.
const MUL_ALPHA = new Int32Array(256);
const DIV_ALPHA = new Int32Array(256);
for (let c = 0; c < 256; c++) {
  MUL_ALPHA[c] =
    (mulXPow(c, 23, 0xa9) << 24) |
    (mulXPow(c, 245, 0xa9) << 16) |
    (mulXPow(c, 48, 0xa9) << 8) |
    mulXPow(c, 239, 0xa9);
  DIV_ALPHA[c] =
    (mulXPow(c, 16, 0xa9) << 24) |
    (mulXPow(c, 39, 0xa9) << 16) |
    (mulXPow(c, 6, 0xa9) << 8) |
    mulXPow(c, 64, 0xa9);
}

/**
 * SNOW 3G key stream (Document 2 §4): `words` 32-bit words z1, z2, ... for the key words k0..k3 and the IV words
 * IV0..IV3 as Document 2 numbers them.
 */
export function snow3gKeystream(k: readonly number[], iv: readonly number[], words: number): Uint32Array {
  const [k0 = 0, k1 = 0, k2 = 0, k3 = 0] = k;
  const [iv0 = 0, iv1 = 0, iv2 = 0, iv3 = 0] = iv;
  // The LFSR is s[i], ..., s[i + 15]; each clock appends the new s15 instead of shifting the other fifteen.
  const s = new Int32Array(16 + INIT_CLOCKS + 1 + words);
  const ones = -1;
  s.set([k0 ^ ones, k1 ^ ones, k2 ^ ones, k3 ^ ones, k0, k1, k2, k3]);
  s.set([k0 ^ ones, k1 ^ ones ^ iv3, k2 ^ ones ^ iv2, k3 ^ ones, k0 ^ iv1, k1, k2, k3 ^ iv0], 8);
  let r1 = 0;
  let r2 = 0;
  let r3 = 0;
  let i = 0;
  const out = new Uint32Array(words);
  for (let t = -INIT_CLOCKS - 1; t < words; t++) {
    const s0 = s[i] as number;
    const s11 = s[i + 11] as number;
    // §3.4.6 FSM: F = (s15 + R1) XOR R2; r = R2 + (R3 XOR s5); R3 = S2(R2); R2 = S1(R1); R1 = r.
    const f = ((((s[i + 15] as number) + r1) | 0) ^ r2) | 0;
    const r = (r2 + (r3 ^ (s[i + 5] as number))) | 0;
    r3 =
      (S2_0[r2 >>> 24] as number) ^
      (S2_1[(r2 >>> 16) & 0xff] as number) ^
      (S2_2[(r2 >>> 8) & 0xff] as number) ^
      (S2_3[r2 & 0xff] as number);
    r2 =
      (S1_0[r1 >>> 24] as number) ^
      (S1_1[(r1 >>> 16) & 0xff] as number) ^
      (S1_2[(r1 >>> 8) & 0xff] as number) ^
      (S1_3[r1 & 0xff] as number);
    r1 = r;
    // §3.4.4/§3.4.5: v = (s0 << 8) XOR MULalpha(s0 >> 24) XOR s2 XOR (s11 >> 8) XOR DIValpha(s11 & 0xff),
    // XOR F while initialising; the first keystream-mode clock (t = -1) discards F.
    let v =
      (s0 << 8) ^
      (MUL_ALPHA[s0 >>> 24] as number) ^
      (s[i + 2] as number) ^
      (s11 >>> 8) ^
      (DIV_ALPHA[s11 & 0xff] as number);
    if (t < -1) v ^= f;
    else if (t >= 0) out[t] = f ^ s0;
    s[i + 16] = v;
    i++;
  }
  return out;
}

/** The key words k0..k3 of a 128-bit key given as 16 bytes: k3 is the first four bytes (UEA2 §3.4, UIA2 §4.4). */
function keyWords(key: Uint8Array): number[] {
  if (key.length !== 16) throw new RangeError(`a SNOW 3G key is 16 bytes, got ${key.length}`);
  const view = new DataView(key.buffer, key.byteOffset, 16);
  return [view.getInt32(12), view.getInt32(8), view.getInt32(4), view.getInt32(0)];
}

/**
 * f8 (UEA2, TS 35.215 §3): enciphers or deciphers the first `lengthBits` bits of `message`; the output has
 * ceil(lengthBits / 8) bytes and the bits after the last one are zero. 128-EEA1 is f8 with COUNT, a 5-bit
 * BEARER and DIRECTION (TS 33.401 B.1.2).
 */
export function snow3gF8(
  key: Uint8Array,
  count: number,
  bearer: number,
  direction: number,
  message: Uint8Array,
  lengthBits: number,
): Buffer {
  requireBitLength(message, lengthBits);
  const lengthBytes = bytesForBits(lengthBits);
  const iv2 = ((bearer & 0x1f) << 27) | ((direction & 1) << 26);
  const z = snow3gKeystream(keyWords(key), [iv2, count | 0, iv2, count | 0], Math.ceil(lengthBits / 32));
  const out = Buffer.allocUnsafe(lengthBytes);
  for (let j = 0; j < lengthBytes; j++) {
    out[j] = (message[j] as number) ^ (((z[j >> 2] as number) >>> (24 - 8 * (j & 3))) & 0xff);
  }
  clearTrailingBits(out, lengthBits);
  return out;
}

/**
 * f9 (UIA2, TS 35.215 §4): the 32-bit MAC-I of the first `lengthBits` bits of `message`. 128-EIA1 is f9 with
 * FRESH = BEARER || 0^27 (TS 33.401 B.2.2).
 */
export function snow3gF9(
  key: Uint8Array,
  count: number,
  fresh: number,
  direction: number,
  message: Uint8Array,
  lengthBits: number,
): Buffer {
  requireBitLength(message, lengthBits);
  const d = direction & 1;
  const z = snow3gKeystream(keyWords(key), [fresh ^ (d << 15), count ^ (d << 31), fresh | 0, count | 0], 5);
  // UIA2 §4.4: P = z1 || z2 and Q = z3 || z4; the products use P x^i (i = 0..63) from one table.
  const pTable = powerTable(z[0] as number, z[1] as number);
  let evalHi = 0;
  let evalLo = 0;
  const blocks = Math.ceil(lengthBits / 64);
  const padded = new Uint8Array(blocks * 8);
  padded.set(message.subarray(0, bytesForBits(lengthBits)));
  clearTrailingBits(padded.subarray(0, bytesForBits(lengthBits)), lengthBits);
  const view = new DataView(padded.buffer);
  for (let b = 0; b < blocks; b++) {
    [evalHi, evalLo] = multiply(evalHi ^ view.getInt32(b * 8), evalLo ^ view.getInt32(b * 8 + 4), pTable);
  }
  // LENGTH as a 64-bit number is below 2^32 here, so it only touches the low word.
  [evalHi, evalLo] = multiply(evalHi, evalLo ^ lengthBits, powerTable(z[2] as number, z[3] as number));
  const mac = Buffer.allocUnsafe(4);
  mac.writeInt32BE((evalHi ^ (z[4] as number)) | 0);
  return mac;
}

// UIA2 §4.3: MUL64x(V, c) with c = 0x1b, applied 63 times to list V x^i as (high word, low word) pairs.
function powerTable(hi: number, lo: number): Int32Array {
  const table = new Int32Array(128);
  let h = hi | 0;
  let l = lo | 0;
  for (let i = 0; i < 64; i++) {
    table[2 * i] = h;
    table[2 * i + 1] = l;
    const carry = h < 0;
    h = (h << 1) | (l >>> 31);
    l = l << 1;
    if (carry) l ^= 0x1b;
  }
  return table;
}

// UIA2 §4.3 MUL64(V, P, c): XOR of P x^i over the bits i of V that are set.
function multiply(hi: number, lo: number, table: Int32Array): [number, number] {
  let rh = 0;
  let rl = 0;
  for (let i = 0; i < 32; i++) {
    if ((lo >>> i) & 1) {
      rh ^= table[2 * i] as number;
      rl ^= table[2 * i + 1] as number;
    }
    if ((hi >>> i) & 1) {
      rh ^= table[2 * (i + 32)] as number;
      rl ^= table[2 * (i + 32) + 1] as number;
    }
  }
  return [rh, rl];
}
