import { InvalidError } from '../errors.ts';

// RFC 3339 section 5.6 date-time. A space may stand for the `+` of the offset: an unencoded `+` in a
// query string arrives decoded as a space, and nothing else could be meant there.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+\- ])(\d{2}):(\d{2}))$/;

/**
 * Unix ms of an RFC 3339 timestamp. Records are stored to the millisecond, so a finer fraction is rounded
 * the way that keeps an inclusive bound exact: `floor` for an upper bound, `ceil` for a lower one.
 */
export function parseTimestamp(value: string, field: string, rounding: 'floor' | 'ceil'): number {
  const match = DATE_TIME.exec(value);
  const invalid = () => new InvalidError(`${field} must be an RFC 3339 timestamp (2026-11-22T10:15:30Z)`);
  if (!match) throw invalid();
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHours, offsetMinutes] =
    match.map((part) => part ?? '');
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  const base = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(base);
  // Rejects dates that do not exist (2026-02-30) and leap seconds, which Unix time cannot hold.
  if (
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== d ||
    check.getUTCHours() !== h ||
    check.getUTCMinutes() !== mi ||
    check.getUTCSeconds() !== s
  ) {
    throw invalid();
  }
  let ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
  if (rounding === 'ceil' && /[1-9]/.test(fraction.slice(3))) ms += 1;
  let offset = 0;
  if (sign) {
    const oh = Number(offsetHours);
    const om = Number(offsetMinutes);
    if (oh > 23 || om > 59) throw invalid();
    offset = (sign === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return base + ms - offset;
}
