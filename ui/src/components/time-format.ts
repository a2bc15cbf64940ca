/**
 * One time format for every page: `2026-11-22 10:15:30.123 UTC`, or in the browser's zone with its offset
 * (`2026-11-22 11:15:30.123 UTC+01:00`), so a time never appears without its zone.
 */
export type Zone = 'utc' | 'local';

/** Minutes east of UTC at a time, in the browser's zone (Date's own offset is west-positive). */
const browserOffset = (time: Date) => -time.getTimezoneOffset();

export function zoneLabel(zone: Zone, at: Date = new Date(), offsetOf = browserOffset): string {
  if (zone === 'utc') return 'UTC';
  const offset = offsetOf(at);
  const sign = offset < 0 ? '-' : '+';
  const minutes = Math.abs(offset);
  return `UTC${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** A time the API gave (RFC 3339 text, epoch milliseconds or a Date); text it cannot read is shown as is. */
export function formatTime(value: string | number | Date, zone: Zone, offsetOf = browserOffset): string {
  const time = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(time.getTime())) return String(value);
  const shifted = new Date(time.getTime() + (zone === 'utc' ? 0 : offsetOf(time)) * 60_000);
  const text = shifted.toISOString().replace('T', ' ').replace('Z', '');
  return `${text} ${zoneLabel(zone, time, offsetOf)}`;
}

/**
 * A `datetime-local` input's text (`2026-11-22T10:15`) read in the chosen zone, as RFC 3339 UTC; undefined
 * when it is not such a text (the caller sends it as typed, so the service names the filter).
 */
export function parseInputTime(text: string, zone: Zone): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(text)) return undefined;
  const time = new Date(zone === 'utc' ? `${text}Z` : text);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
