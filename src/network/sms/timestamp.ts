// Time stamps and validity periods of TS 23.040: TP-SCTS and TP-DT (9.2.3.11, also the absolute TP-VP)
// and the three TP-VP formats (9.2.3.12).

/** TS 23.040 9.2.3.11: local time as the sender gives it, and its offset from UTC in quarters of an hour. */
export interface SmsTimestamp {
  /** Two digits, 0-99 (read as 2000-2099 by `timestampToDate`). */
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** -79..79 quarters of an hour (the sign bit and two digits). */
  timeZoneQuarters: number;
}

const bcd = (value: number): number => ((value % 10) << 4) | Math.floor(value / 10);

function unbcd(octet: number): number | undefined {
  const tens = octet & 0x0f;
  const units = octet >> 4;
  return tens > 9 || units > 9 ? undefined : tens * 10 + units;
}

const FIELDS = [
  ['year', 0, 99],
  ['month', 1, 12],
  ['day', 1, 31],
  ['hour', 0, 23],
  ['minute', 0, 59],
  ['second', 0, 59],
] as const;

/** The 7 octets: six swapped-digit fields, then the time zone (sign in bit 4, TS 23.040 9.2.3.11). */
export function encodeTimestamp(time: SmsTimestamp): Uint8Array {
  const out = new Uint8Array(7);
  FIELDS.forEach(([key, min, max], i) => {
    const value = time[key];
    if (!Number.isInteger(value) || value < min || value > max)
      throw new RangeError(`time stamp ${key} ${value}`);
    out[i] = bcd(value);
  });
  const quarters = Math.abs(time.timeZoneQuarters);
  if (!Number.isInteger(quarters) || quarters > 79)
    throw new RangeError(`time zone ${time.timeZoneQuarters}`);
  out[6] = bcd(quarters) | (time.timeZoneQuarters < 0 ? 0x08 : 0);
  return out;
}

/** 7 octets at `offset` as a time stamp, or undefined when a digit or a field is out of range. */
export function decodeTimestamp(bytes: Uint8Array, offset: number): SmsTimestamp | undefined {
  if (offset + 7 > bytes.length) return undefined;
  const values: number[] = [];
  for (let i = 0; i < 6; i++) {
    const value = unbcd(bytes[offset + i] as number);
    const [, min, max] = FIELDS[i] as (typeof FIELDS)[number];
    if (value === undefined || value < min || value > max) return undefined;
    values.push(value);
  }
  const zone = bytes[offset + 6] as number;
  const quarters = unbcd(zone & 0xf7);
  if (quarters === undefined) return undefined;
  const [year, month, day, hour, minute, second] = values as [number, number, number, number, number, number];
  // A sign bit on zero quarters ("-0") reads as 0: there is one UTC.
  const timeZoneQuarters = zone & 0x08 && quarters !== 0 ? -quarters : quarters;
  return { year, month, day, hour, minute, second, timeZoneQuarters };
}

/** The instant a time stamp names (years 00-99 as 2000-2099). */
export function timestampToDate(time: SmsTimestamp): Date {
  const local = Date.UTC(2000 + time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  return new Date(local - time.timeZoneQuarters * 15 * 60_000);
}

/** A time stamp for `date` as local time at `timeZoneQuarters` from UTC (0: UTC). */
export function timestampFromDate(date: Date, timeZoneQuarters = 0): SmsTimestamp {
  const local = new Date(date.getTime() + timeZoneQuarters * 15 * 60_000);
  return {
    year: local.getUTCFullYear() % 100,
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    timeZoneQuarters,
  };
}

/** TS 23.040 9.2.3.12.3: the period inside an enhanced TP-VP. */
export type EnhancedPeriod =
  | { kind: 'none' }
  | { kind: 'relative'; value: number }
  | { kind: 'seconds'; seconds: number }
  | { kind: 'hhmmss'; hours: number; minutes: number; seconds: number };

/** TP-VP in its three formats (TP-VPF 10 relative, 11 absolute, 01 enhanced). */
export type ValidityPeriod =
  | { format: 'relative'; value: number }
  | { format: 'absolute'; time: SmsTimestamp }
  | { format: 'enhanced'; singleShot: boolean; period: EnhancedPeriod };

/** TP-VPF (bits 4-3 of the SMS-SUBMIT first octet) for each format; 0 is "not present". */
export const VALIDITY_FORMAT = { relative: 2, absolute: 3, enhanced: 1 } as const;

/** TS 23.040 9.2.3.12.1: the seconds a relative TP-VP value stands for. */
export function relativeValiditySeconds(value: number): number {
  if (value <= 143) return (value + 1) * 5 * 60;
  if (value <= 167) return 12 * 3600 + (value - 143) * 30 * 60;
  if (value <= 196) return (value - 166) * 86_400;
  return (value - 192) * 7 * 86_400;
}

/**
 * When a message submitted at `receivedAt` with this TP-VP expires; undefined when it carries none (the
 * service centre's default applies).
 */
export function validityExpiry(period: ValidityPeriod | undefined, receivedAt: Date): Date | undefined {
  if (period === undefined) return undefined;
  if (period.format === 'absolute') return timestampToDate(period.time);
  const after = (seconds: number): Date => new Date(receivedAt.getTime() + seconds * 1000);
  if (period.format === 'relative') return after(relativeValiditySeconds(period.value));
  const inner = period.period;
  switch (inner.kind) {
    case 'none':
      return undefined;
    case 'relative':
      return after(relativeValiditySeconds(inner.value));
    case 'seconds':
      return after(inner.seconds);
    case 'hhmmss':
      return after(inner.hours * 3600 + inner.minutes * 60 + inner.seconds);
  }
}

/** The TP-VP octets (1 or 7). Throws RangeError on values outside their fields. */
export function encodeValidityPeriod(period: ValidityPeriod): Uint8Array {
  const octet = (value: number, what: string): number => {
    if (!Number.isInteger(value) || value < 0 || value > 255) throw new RangeError(`${what} ${value}`);
    return value;
  };
  if (period.format === 'relative') return Uint8Array.of(octet(period.value, 'relative TP-VP'));
  if (period.format === 'absolute') return encodeTimestamp(period.time);
  const out = new Uint8Array(7);
  const inner = period.period;
  const format = { none: 0, relative: 1, seconds: 2, hhmmss: 3 }[inner.kind];
  out[0] = (period.singleShot ? 0x40 : 0) | format;
  if (inner.kind === 'relative') out[1] = octet(inner.value, 'relative TP-VP');
  else if (inner.kind === 'seconds') out[1] = octet(inner.seconds, 'TP-VP seconds');
  else if (inner.kind === 'hhmmss') {
    const digits = [
      [inner.hours, 99],
      [inner.minutes, 59],
      [inner.seconds, 59],
    ] as const;
    digits.forEach(([value, max], i) => {
      if (!Number.isInteger(value) || value < 0 || value > max)
        throw new RangeError(`TP-VP hh:mm:ss ${value}`);
      out[1 + i] = bcd(value);
    });
  }
  return out;
}

/**
 * The TP-VP of format `vpf` (TP-VPF) at `offset`: the period and its octet count, or an error. An enhanced
 * TP-VP with the extension bit or a reserved format is refused: TS 23.040 9.2.3.12.3 gives no meaning to
 * either, and 9.2.3.22 has the SC answer "TP-VP not supported".
 */
export function decodeValidityPeriod(
  bytes: Uint8Array,
  offset: number,
  vpf: number,
): { period: ValidityPeriod | undefined; length: number } | { error: string; unsupported?: true } {
  if (vpf === 0) return { period: undefined, length: 0 };
  if (vpf === VALIDITY_FORMAT.relative) {
    const value = bytes[offset];
    return value === undefined
      ? { error: 'TP-VP cut off' }
      : { period: { format: 'relative', value }, length: 1 };
  }
  if (offset + 7 > bytes.length) return { error: 'TP-VP cut off' };
  if (vpf === VALIDITY_FORMAT.absolute) {
    const time = decodeTimestamp(bytes, offset);
    return time === undefined
      ? { error: 'absolute TP-VP not a time stamp' }
      : { period: { format: 'absolute', time }, length: 7 };
  }
  const functionality = bytes[offset] as number;
  if (functionality & 0x80)
    return { error: 'enhanced TP-VP extension octets not supported', unsupported: true };
  if (functionality & 0x38) return { error: 'enhanced TP-VP reserved bits set', unsupported: true };
  const singleShot = (functionality & 0x40) !== 0;
  const first = bytes[offset + 1] as number;
  let period: EnhancedPeriod;
  switch (functionality & 0x07) {
    case 0:
      period = { kind: 'none' };
      break;
    case 1:
      period = { kind: 'relative', value: first };
      break;
    case 2:
      period = { kind: 'seconds', seconds: first };
      break;
    case 3: {
      const [hours, minutes, seconds] = [1, 2, 3].map((i) => unbcd(bytes[offset + i] as number));
      if (
        hours === undefined ||
        minutes === undefined ||
        seconds === undefined ||
        minutes > 59 ||
        seconds > 59
      )
        return { error: 'enhanced TP-VP hh:mm:ss not digits' };
      period = { kind: 'hhmmss', hours, minutes, seconds };
      break;
    }
    default:
      return { error: 'enhanced TP-VP reserved format', unsupported: true };
  }
  return { period: { format: 'enhanced', singleShot, period }, length: 7 };
}
