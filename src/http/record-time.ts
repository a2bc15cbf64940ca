/** Record timestamps as the API writes them: `2026-11-22T10:15:30.123+00:00` (decisions section 11). */
export function formatRecordTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

/**
 * Flow report times (`start_time`, `end_time`) and resource times (`connected_at`, `last_seen_at`):
 * RFC 3339 UTC with milliseconds and `Z`, `2026-11-22T10:15:30.123Z` (decisions section 11).
 */
export function formatUtcTime(ms: number): string {
  return new Date(ms).toISOString();
}
