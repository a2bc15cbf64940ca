import { InvalidError } from '../errors.ts';
import { DAY_MS } from '../validation/calendar-date.ts';

/** Both bounds inclusive, Unix ms; either may be absent. */
export interface TimestampWindow {
  from?: number;
  to?: number;
}

/** Whole UTC days: from `start` 00:00 up to the end of day `end`. Unix ms, `before` exclusive. */
export interface DayWindow {
  from: number;
  before: number;
}

const DEFAULT_WINDOW_DAYS = 7;

export function utcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The first and last UTC day asked for (Unix ms of their 00:00); either may be absent. */
export interface CalendarDays {
  startDay?: number;
  endDay?: number;
}

/**
 * The window of flow reports and usage (decisions section 11): from `startDay` 00:00 UTC to the end of
 * `endDay`; the start defaults to the day 7 days ago and the end to today.
 */
export function dayWindow(days: CalendarDays, now: number): DayWindow {
  const from = days.startDay ?? utcDay(now) - DEFAULT_WINDOW_DAYS * DAY_MS;
  const endDay = days.endDay ?? utcDay(now);
  if (from > endDay) {
    throw new InvalidError(
      days.startDay === undefined
        ? `end must not be before start (which defaults to ${DEFAULT_WINDOW_DAYS} days ago)`
        : days.endDay === undefined
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
