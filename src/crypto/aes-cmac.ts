// AES-CMAC (NIST SP 800-38B, RFC 4493) over a bit string, on node:crypto's AES-128. NIST SP 800-38B defines
// CMAC for any bit length, which 128-NIA2 needs (TS 33.401 B.2.3); node:crypto has no CMAC of its own.
import { createCipheriv } from 'node:crypto';

import { bytesForBits, requireBitLength } from './bit-string.ts';

const BLOCK_BYTES = 16;
const BLOCK_BITS = 128;
// SP 800-38B 5.3: Rb for a 128-bit block.
const RB = 0x87;
const ZERO_BLOCK = Buffer.alloc(BLOCK_BYTES);

/** The full 128-bit CMAC of the first `lengthBits` bits of `message` under a 128-bit AES key. */
export function aesCmac(key: Uint8Array, message: Uint8Array, lengthBits = message.length * 8): Buffer {
  requireBitLength(message, lengthBits);
  const { k1, k2 } = subkeys(key);
  const complete = lengthBits > 0 && lengthBits % BLOCK_BITS === 0;
  const blocks = Math.max(1, Math.ceil(lengthBits / BLOCK_BITS));
  const padded = Buffer.alloc(blocks * BLOCK_BYTES);
  padded.set(message.subarray(0, bytesForBits(lengthBits)));
  if (!complete) {
    // SP 800-38B 6.2 step 4: Mn* || 1 || 0^j. Keep the message's bits and set the one after them.
    const lastByte = lengthBits >> 3;
    const bitInByte = lengthBits & 7;
    const kept = (padded[lastByte] ?? 0) & ((0xff00 >> bitInByte) & 0xff);
    padded[lastByte] = kept | (0x80 >> bitInByte);
    padded.fill(0, lastByte + 1);
  }
  const last = (blocks - 1) * BLOCK_BYTES;
  const subkey = complete ? k1 : k2;
  for (let i = 0; i < BLOCK_BYTES; i++) padded[last + i] = (padded[last + i] ?? 0) ^ (subkey[i] ?? 0);
  const cbc = createCipheriv('aes-128-cbc', key, ZERO_BLOCK);
  cbc.setAutoPadding(false);
  const out = cbc.update(padded);
  return out.subarray(out.length - BLOCK_BYTES);
}

// SP 800-38B 6.1: L = CIPH_K(0^128); K1 = L << 1 (XOR Rb if MSB(L)); K2 = K1 << 1 likewise.
function subkeys(key: Uint8Array): { k1: Buffer; k2: Buffer } {
  const ecb = createCipheriv('aes-128-ecb', key, null);
  ecb.setAutoPadding(false);
  const l = ecb.update(ZERO_BLOCK);
  const k1 = doubleBlock(l);
  return { k1, k2: doubleBlock(k1) };
}

function doubleBlock(block: Buffer): Buffer {
  const out = Buffer.alloc(BLOCK_BYTES);
  for (let i = 0; i < BLOCK_BYTES; i++) {
    out[i] = (((block[i] ?? 0) << 1) | ((block[i + 1] ?? 0) >> 7)) & 0xff;
  }
  if (((block[0] ?? 0) & 0x80) !== 0) out[BLOCK_BYTES - 1] = (out[BLOCK_BYTES - 1] ?? 0) ^ RB;
  return out;
}
