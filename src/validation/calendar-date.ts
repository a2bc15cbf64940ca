import { InvalidError } from '../errors.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** UTC midnight of a `YYYY-MM-DD` date in Unix ms; rejects dates that do not exist (2026-02-30). */
export function parseCalendarDate(value: string, field: string): number {
  const match = DATE.exec(value);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  if (!match || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    throw new InvalidError(`${field} must be a date in the form YYYY-MM-DD`);
  }
  return ms;
}

export const DAY_MS = 86_400_000;
