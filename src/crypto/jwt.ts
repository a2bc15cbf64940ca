import { createHmac, timingSafeEqual } from 'node:crypto';

/** Minimal JWS compact serialisation with HS256 only (RFC 7515, RFC 7519); other algorithms are refused. */
interface JwtClaims {
  [claim: string]: unknown;
  /** Required: a token without an expiry would be valid forever if its key ever leaked. */
  exp: number;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function sign(signingInput: string, key: Buffer): Buffer {
  return createHmac('sha256', key).update(signingInput).digest();
}

export function signJwt(claims: JwtClaims, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signingInput = `${HEADER}.${payload}`;
  return `${signingInput}.${sign(signingInput, key).toString('base64url')}`;
}

/**
 * Returns the claims of a token signed with `key` that carries an `exp` and has not expired at
 * `nowSeconds`, or undefined. The signature is checked (in constant time) before anything inside the
 * token is trusted.
 */
export function verifyJwt(token: string, key: Buffer, nowSeconds: number): JwtClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  const expected = sign(`${header}.${payload}`, key);
  const actual = Buffer.from(signature, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  try {
    const decodedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown };
    if (decodedHeader.alg !== 'HS256') return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return undefined;
    const { exp } = claims as JwtClaims;
    if (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= nowSeconds) return undefined;
    return claims as JwtClaims;
  } catch {
    return undefined;
  }
}
