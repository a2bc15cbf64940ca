import { InvalidError } from '../errors.ts';
import type { CalendarDays, TimestampWindow } from '../records/record-windows.ts';
import { parseCalendarDate } from '../validation/calendar-date.ts';
import { parseTimestamp } from '../validation/timestamp.ts';

/** `timestamp_from` / `timestamp_to` (RFC 3339, both inclusive) of the log and radio event lists. */
export function timestampWindowOf(query: {
  timestamp_from?: string;
  timestamp_to?: string;
}): TimestampWindow {
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

/** `start` / `end` (`YYYY-MM-DD`, UTC) of flow reports, usage and the audit log, as day numbers. */
export function calendarDaysOf(query: { start?: string; end?: string }): CalendarDays {
  return {
    startDay: query.start === undefined ? undefined : parseCalendarDate(query.start, 'start'),
    endDay: query.end === undefined ? undefined : parseCalendarDate(query.end, 'end'),
  };
}
