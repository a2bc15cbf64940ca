import { createHash, randomBytes } from 'node:crypto';

/** A random token of `bytes` bytes as lower-case hex. */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** SHA-256 as hex: enough for looking up high-entropy random tokens (never for passwords). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
