// AES-CMAC (NIST SP 800-38B, RFC 4493) over a bit string, on node:crypto's AES-128. NIST SP 800-38B defines
// CMAC for any bit length, which 128-NIA2 needs (TS 33.401 B.2.3); node:crypto has no CMAC of its own.
import { aes128EncryptBlocks } from './aes-128.ts';
import { bytesForBits, requireBitLength } from './bit-string.ts';
import { createKeyCache } from './key-memory.ts';

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
  // SP 800-38B 6.2 steps 5-6: CBC with a zero IV; the MAC is the last block.
  let state: Buffer = ZERO_BLOCK;
  for (let offset = 0; offset < padded.length; offset += BLOCK_BYTES) {
    const block = Buffer.allocUnsafe(BLOCK_BYTES);
    for (let i = 0; i < BLOCK_BYTES; i++) block[i] = (state[i] ?? 0) ^ (padded[offset + i] ?? 0);
    state = aes128EncryptBlocks(key, block);
  }
  return state;
}

/** Subkeys by key object, for the keys used last, like the ciphers (aes-128.ts). */
// SP 800-38B 6.1: L = CIPH_K(0^128); K1 = L << 1 (XOR Rb if MSB(L)); K2 = K1 << 1 likewise.
const subkeys = createKeyCache(4096, (key): { k1: Buffer; k2: Buffer } => {
  const k1 = doubleBlock(aes128EncryptBlocks(key, ZERO_BLOCK));
  return { k1, k2: doubleBlock(k1) };
});

function doubleBlock(block: Buffer): Buffer {
  const out = Buffer.alloc(BLOCK_BYTES);
  for (let i = 0; i < BLOCK_BYTES; i++) {
    out[i] = (((block[i] ?? 0) << 1) | ((block[i + 1] ?? 0) >> 7)) & 0xff;
  }
  if (((block[0] ?? 0) & 0x80) !== 0) out[BLOCK_BYTES - 1] = (out[BLOCK_BYTES - 1] ?? 0) ^ RB;
  return out;
}
