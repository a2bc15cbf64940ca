import { describe, expect, it } from 'vitest';
import { formatTime, parseInputTime, zoneLabel } from './time-format.ts';

const plusOneHour = () => 60;
const minusFourAndHalf = () => -270;

describe('time format', () => {
  it('shows UTC with milliseconds and the zone', () => {
    expect(formatTime('2026-11-22T10:15:30.123+00:00', 'utc')).toBe('2026-11-22 10:15:30.123 UTC');
    expect(formatTime('2026-11-22T10:15:30Z', 'utc')).toBe('2026-11-22 10:15:30.000 UTC');
    expect(formatTime(Date.UTC(2026, 0, 1), 'utc')).toBe('2026-01-01 00:00:00.000 UTC');
  });

  it("shows the browser's zone with its offset, across a day boundary too", () => {
    expect(formatTime('2026-11-22T23:30:00.000Z', 'local', plusOneHour)).toBe(
      '2026-11-23 00:30:00.000 UTC+01:00',
    );
    expect(formatTime('2026-11-22T02:00:00.000Z', 'local', minusFourAndHalf)).toBe(
      '2026-11-21 21:30:00.000 UTC-04:30',
    );
    expect(zoneLabel('local', new Date(), minusFourAndHalf)).toBe('UTC-04:30');
  });

  it('shows text that is not a time as it is', () => {
    expect(formatTime('', 'utc')).toBe('');
    expect(formatTime('soon', 'local')).toBe('soon');
  });

  it('reads a datetime-local input in the chosen zone', () => {
    expect(parseInputTime('2026-11-22T10:15', 'utc')).toBe('2026-11-22T10:15:00.000Z');
    expect(parseInputTime('2026-11-22T10:15:30', 'utc')).toBe('2026-11-22T10:15:30.000Z');
    expect(parseInputTime('yesterday', 'utc')).toBeUndefined();
    expect(parseInputTime('2026-13-40T10:15', 'utc')).toBeUndefined();
    // Local: whatever the test machine's zone, the same instant as Date reads it.
    expect(parseInputTime('2026-11-22T10:15', 'local')).toBe(new Date('2026-11-22T10:15').toISOString());
  });
});
