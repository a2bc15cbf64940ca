/** A login session (the cookie) lasts 30 days; the bearer JWT it refreshes lasts 15 minutes. */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
export const BEARER_TTL_SECONDS = 15 * 60;
