import { createCipheriv, type Cipher } from 'node:crypto';

const BLOCK_BYTES = 16;

/**
 * One AES-128 ECB cipher per key object, reused: making a cipher costs several times encrypting a block,
 * and the NAS and MILENAGE functions encrypt a few blocks at a time under the same key. Holders of keys
 * never change them in place, so a key object stands for its key for as long as it lives.
 */
const ciphers = new WeakMap<Uint8Array, Cipher>();

/** AES-128 of each 16-byte block of `blocks` under `key` (ECB: the blocks are independent). */
export function aes128EncryptBlocks(key: Uint8Array, blocks: Uint8Array): Buffer {
  if (blocks.length % BLOCK_BYTES !== 0) throw new RangeError('AES encrypts whole 16-byte blocks');
  let cipher = ciphers.get(key);
  if (cipher === undefined) {
    cipher = createCipheriv('aes-128-ecb', key, null);
    cipher.setAutoPadding(false);
    ciphers.set(key, cipher);
  }
  return cipher.update(blocks);
}
