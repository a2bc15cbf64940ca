// The NAS ciphering (NEA0-3) and integrity (NIA0-3) algorithms of TS 33.501 6.4.3/6.4.4 and Annex D, which are
// the EEA/EIA algorithms of TS 33.401 Annex B with COUNT, BEARER and DIRECTION as inputs. All functions are pure:
// they take the bit string (bytes and a length in bits) and return new bytes.
import { aes128EncryptBlocks } from './aes-128.ts';
import { aesCmac } from './aes-cmac.ts';
import { bytesForBits, clearTrailingBits, requireBitLength } from './bit-string.ts';
import { snow3gF8, snow3gF9 } from './snow3g.ts';
import { eea3, eia3 } from './zuc.ts';

/** TS 24.501 9.11.3.34: the algorithm identities (NEA0..NEA3, NIA0..NIA3). */
export type NasAlgorithm = 0 | 1 | 2 | 3;

export type Direction = 0 | 1;
/** TS 33.501 6.4.3.1: DIRECTION is 0 for uplink and 1 for downlink. */
export const UPLINK: Direction = 0;
export const DOWNLINK: Direction = 1;

export interface NasSecurityInput {
  /** KNASenc or KNASint: 128 bits. */
  key: Uint8Array;
  /** The 32-bit NAS COUNT. */
  count: number;
  /** The 5-bit BEARER. */
  bearer: number;
  direction: Direction;
}

const KEY_BYTES = 16;
const MAC_BYTES = 4;

/** NEA0..NEA3: ciphers (or deciphers) the first `lengthBits` bits of `message`. */
export function nasEncrypt(
  algorithm: NasAlgorithm,
  input: NasSecurityInput,
  message: Uint8Array,
  lengthBits = message.length * 8,
): Buffer {
  requireInput(input);
  requireBitLength(message, lengthBits);
  const { key, count, bearer, direction } = input;
  switch (algorithm) {
    case 0:
      return nea0(message, lengthBits);
    case 1:
      return snow3gF8(key, count, bearer, direction, message, lengthBits);
    case 2:
      return nea2(key, count, bearer, direction, message, lengthBits);
    case 3:
      return eea3(key, count, bearer, direction, message, lengthBits);
  }
}

/** NIA0..NIA3: the 32-bit MAC (NAS-MAC) of the first `lengthBits` bits of `message`. */
export function nasMac(
  algorithm: NasAlgorithm,
  input: NasSecurityInput,
  message: Uint8Array,
  lengthBits = message.length * 8,
): Buffer {
  requireInput(input);
  requireBitLength(message, lengthBits);
  const { key, count, bearer, direction } = input;
  switch (algorithm) {
    case 0:
      // TS 33.501 D.1: NIA0 gives a MAC of 32 zero bits.
      return Buffer.alloc(MAC_BYTES);
    case 1:
      // TS 33.401 B.2.2: 128-EIA1 is UIA2 with FRESH = BEARER || 0^27.
      return snow3gF9(key, count, (bearer & 0x1f) << 27, direction, message, lengthBits);
    case 2:
      return nia2(key, count, bearer, direction, message, lengthBits);
    case 3:
      return eia3(key, count, bearer, direction, message, lengthBits);
  }
}

// TS 33.501 D.1: NEA0 leaves the message as it is (the key stream is all zeros).
function nea0(message: Uint8Array, lengthBits: number): Buffer {
  const out = Buffer.from(message.subarray(0, bytesForBits(lengthBits)));
  clearTrailingBits(out, lengthBits);
  return out;
}

// TS 33.401 B.1.3: AES-128 in CTR mode with T1 = COUNT || BEARER || DIRECTION || 0^26 || 0^64.
function nea2(
  key: Uint8Array,
  count: number,
  bearer: number,
  direction: number,
  message: Uint8Array,
  lengthBits: number,
): Buffer {
  // The counter blocks T1, T2, ... (the last 64 bits count up from 0) encrypted in one call; the key
  // stream is their concatenation.
  const bytes = bytesForBits(lengthBits);
  const blocks = Math.ceil(bytes / 16);
  const counters = Buffer.alloc(blocks * 16);
  const first = firstBlock(count, bearer, direction);
  for (let i = 0; i < blocks; i++) {
    first.copy(counters, i * 16, 0, 8);
    counters.writeUInt32BE(i, i * 16 + 12);
  }
  const keyStream = aes128EncryptBlocks(key, counters);
  const out = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < bytes; i++) out[i] = (message[i] ?? 0) ^ (keyStream[i] ?? 0);
  clearTrailingBits(out, lengthBits);
  return out;
}

// TS 33.401 B.2.3: AES-CMAC over M = COUNT || BEARER || DIRECTION || 0^26 || MESSAGE, MAC = its first 32 bits.
function nia2(
  key: Uint8Array,
  count: number,
  bearer: number,
  direction: number,
  message: Uint8Array,
  lengthBits: number,
): Buffer {
  const header = firstBlock(count, bearer, direction).subarray(0, 8);
  const input = Buffer.concat([header, message.subarray(0, bytesForBits(lengthBits))]);
  return aesCmac(key, input, 64 + lengthBits).subarray(0, MAC_BYTES);
}

function firstBlock(count: number, bearer: number, direction: number): Buffer {
  const block = Buffer.alloc(16);
  block.writeUInt32BE(count >>> 0);
  block[4] = ((bearer & 0x1f) << 3) | ((direction & 1) << 2);
  return block;
}

function requireInput({ key, count, bearer, direction }: NasSecurityInput): void {
  if (key.length !== KEY_BYTES) throw new RangeError(`a NAS key is ${KEY_BYTES} bytes, got ${key.length}`);
  if (!Number.isInteger(count) || count < 0 || count > 0xffffffff)
    throw new RangeError(`COUNT is 32 bits, got ${count}`);
  if (!Number.isInteger(bearer) || bearer < 0 || bearer > 0x1f)
    throw new RangeError(`BEARER is 5 bits, got ${bearer}`);
  if (direction !== 0 && direction !== 1)
    throw new RangeError(`DIRECTION is 0 or 1, got ${String(direction)}`);
}
