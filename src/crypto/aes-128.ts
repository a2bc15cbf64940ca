import { createCipheriv, type Cipher } from 'node:crypto';
import { createKeyCache } from './key-memory.ts';

const BLOCK_BYTES = 16;

/**
 * One AES-128 ECB cipher per key object, reused: making a cipher costs several times encrypting a block,
 * and the NAS and MILENAGE functions encrypt a few blocks at a time under the same key. Holders of keys
 * never change them in place, so a key object stands for its key for as long as it lives. Only the keys
 * used last keep theirs (the oldest is dropped beyond 4,096): a registered UE keeps its NAS
 * keys for as long as it is registered but uses them only while it signals, and a cipher per key alive
 * (two per UE, each a JavaScript object pair over an OpenSSL context, held through a WeakMap the
 * collector must process) made every registered UE heavier for the garbage collector.
 */
const cipherOf = createKeyCache(4096, (key): Cipher => {
  const cipher = createCipheriv('aes-128-ecb', key, null);
  cipher.setAutoPadding(false);
  return cipher;
});

/** AES-128 of each 16-byte block of `blocks` under `key` (ECB: the blocks are independent). */
export function aes128EncryptBlocks(key: Uint8Array, blocks: Uint8Array): Buffer {
  if (blocks.length % BLOCK_BYTES !== 0) throw new RangeError('AES encrypts whole 16-byte blocks');
  return cipherOf(key).update(blocks);
}
