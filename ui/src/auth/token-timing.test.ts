import { describe, expect, it } from 'vitest';
import { REFRESH_MARGIN_MS, refreshDelay, tokenExpiry } from './token-timing.ts';

const encode = (value: object) =>
  btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
const jwt = (claims: object) => `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}.signature`;

describe('bearer token timing', () => {
  it('reads exp (seconds) as milliseconds', () => {
    expect(tokenExpiry(jwt({ sub: '1', exp: 1_790_000_000 }))).toBe(1_790_000_000_000);
  });

  it('refreshes a minute before expiry', () => {
    const now = 1_790_000_000_000;
    const token = jwt({ exp: now / 1000 + 15 * 60 });
    expect(refreshDelay(token, now)).toBe(15 * 60_000 - REFRESH_MARGIN_MS);
  });

  it('refreshes at once when the token is about to expire or has expired', () => {
    const now = 1_790_000_000_000;
    expect(refreshDelay(jwt({ exp: now / 1000 + 30 }), now)).toBe(0);
    expect(refreshDelay(jwt({ exp: now / 1000 - 600 }), now)).toBe(0);
  });

  it('falls back to five minutes for a token it cannot read', () => {
    expect(tokenExpiry('core_1_secret')).toBeUndefined();
    expect(tokenExpiry('a.not-base64!.c')).toBeUndefined();
    expect(tokenExpiry(jwt({ sub: '1' }))).toBeUndefined();
    expect(refreshDelay('garbage', 0)).toBe(5 * 60_000);
  });
});
