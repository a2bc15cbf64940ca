/**
 * The stored form of a password or token-secret hash, `scrypt$N$r$p$<salt>$<key>` (see
 * src/crypto/password-hash.ts), checked before the service trusts it: the cost travels with the hash, so a
 * row from a crafted backup could otherwise ask for gigabytes per check (scrypt needs 128 * N * r bytes).
 */
const MAX_SCRYPT_WORK = 2 ** 19; // N * r * p: twice the default (N = 2^15, r = 8, p = 1).
const KEY_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Why `stored` is not a hash this service will check, or undefined when it is one. */
export function secretHashProblem(stored: string): string | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return 'is not scrypt$N$r$p$salt$key';
  const [N, r, p] = parts
    .slice(1, 4)
    .map((part) => (/^[1-9][0-9]{0,9}$/.test(part) ? Number(part) : NaN)) as [number, number, number];
  if (!Number.isSafeInteger(N) || !Number.isSafeInteger(r) || !Number.isSafeInteger(p)) {
    return 'has a cost that is not three positive integers';
  }
  // RFC 7914 section 2: N is a power of two greater than 1.
  if (N < 2 || (N & (N - 1)) !== 0) return 'has an N that is not a power of two';
  if (N * r * p > MAX_SCRYPT_WORK) return `costs more than N * r * p = ${MAX_SCRYPT_WORK}`;
  const [salt = '', key = ''] = parts.slice(4);
  if (!BASE64.test(salt) || !BASE64.test(key) || Buffer.from(key, 'base64').length !== KEY_BYTES) {
    return `has a salt or key that is not base64 of a ${KEY_BYTES}-byte key`;
  }
  return undefined;
}
