/** Refresh this long before the bearer token expires, so a request never carries an expired one. */
export const REFRESH_MARGIN_MS = 60_000;
/** A token whose expiry cannot be read is refreshed this soon (the service's tokens last 15 minutes). */
const FALLBACK_DELAY_MS = 5 * 60_000;

/** The `exp` claim of a JWT in milliseconds, or undefined when the token is not a readable JWT. */
export function tokenExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
    if (typeof claims === 'object' && claims !== null && 'exp' in claims && typeof claims.exp === 'number') {
      return claims.exp * 1000;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** How long to wait, from `now`, before asking for a new bearer token. */
export function refreshDelay(token: string, now: number): number {
  const expiry = tokenExpiry(token);
  if (expiry === undefined) return FALLBACK_DELAY_MS;
  return Math.max(0, expiry - REFRESH_MARGIN_MS - now);
}
