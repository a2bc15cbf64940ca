import { InvalidError } from '../errors.ts';
import { DAY_MS, parseCalendarDate } from '../validation/calendar-date.ts';
import { parseTimestamp } from '../validation/timestamp.ts';

/** Both bounds inclusive, Unix ms; either may be absent. */
export interface TimestampWindow {
  from?: number;
  to?: number;
}

/** `timestamp_from` / `timestamp_to` (RFC 3339, both inclusive) of the log and radio event lists. */
export function timestampWindow(query: { timestamp_from?: string; timestamp_to?: string }): TimestampWindow {
  const from =
    query.timestamp_from === undefined
      ? undefined
      : parseTimestamp(query.timestamp_from, 'timestamp_from', 'ceil');
  const to =
    query.timestamp_to === undefined
      ? undefined
      : parseTimestamp(query.timestamp_to, 'timestamp_to', 'floor');
  if (from !== undefined && to !== undefined && from > to) {
    throw new InvalidError('timestamp_from must not be after timestamp_to');
  }
  return { from, to };
}

/** Whole UTC days: from `start` 00:00 up to the end of day `end`. Unix ms, `before` exclusive. */
export interface DayWindow {
  from: number;
  before: number;
}

export const DEFAULT_WINDOW_DAYS = 7;

export function utcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/**
 * `start` / `end` of flow reports and usage (decisions section 11): from `start` 00:00 UTC to the end of
 * day `end`; `start` defaults to the day 7 days ago and `end` to today.
 */
export function dayWindow(query: { start?: string; end?: string }, now: number): DayWindow {
  const from =
    query.start === undefined
      ? utcDay(now) - DEFAULT_WINDOW_DAYS * DAY_MS
      : parseCalendarDate(query.start, 'start');
  const endDay = query.end === undefined ? utcDay(now) : parseCalendarDate(query.end, 'end');
  if (from > endDay) {
    throw new InvalidError(
      query.start === undefined
        ? `end must not be before start (which defaults to ${DEFAULT_WINDOW_DAYS} days ago)`
        : query.end === undefined
          ? 'start must not be after end (which defaults to today)'
          : 'start must not be after end',
    );
  }
  return { from, before: endDay + DAY_MS };
}

/** `YYYY-MM-DD` of a UTC day. */
export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
