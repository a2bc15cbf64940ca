// Physical quantities a simulated radio or device is configured with (dBm, dB, metres, degrees), coded as
// the reported values NRPPa (TS 38.455) and LPP (TS 37.355) carry. The simulator codes them from the
// measurement tables themselves, independently of the core's reading of them, so an end-to-end test can
// catch a mapping error on either side.

const clamp = (value: number, low: number, high: number): number => Math.max(low, Math.min(high, value));

/**
 * NR SS-RSRP (L3) report value, 0..127 (TS 38.133 Table 10.1.6.1-1): SS-RSRP_0 is below -156 dBm, value v
 * covers -157 + v <= RSRP < -156 + v.
 */
export const ssRsrpValue = (dbm: number): number => clamp(Math.floor(dbm + 157), 0, 127);

/** NR SS-RSRQ report value, 0..127 (TS 38.133 Table 10.1.11.1-1): -43.5 + v/2 <= RSRQ < -43 + v/2. */
export const ssRsrqValue = (db: number): number => clamp(Math.floor(2 * db + 87), 0, 127);

/** E-UTRA RSRP report value, 0..97 (TS 36.133 Table 9.1.4-1): RSRP_00 below -140 dBm, v covers -141 + v.. */
export const eutraRsrpValue = (dbm: number): number => clamp(Math.floor(dbm + 141), 0, 97);

/** E-UTRA RSRQ report value, 0..34 (TS 36.133 Table 9.1.7-1): RSRQ_00 below -19.5 dB, v covers -20 + v/2.. */
export const eutraRsrqValue = (db: number): number => clamp(Math.floor(2 * db + 40), 0, 34);

const SPEED_OF_LIGHT = 299_792_458;
/** Ts = 1 / (15000 x 2048) s (TS 36.211 4); in NR 64 Tc is the same unit (TS 38.211 4.1, kappa = 64). */
const TS_SECONDS = 1 / (15_000 * 2048);

/**
 * The timing advance report value, 0..7690, of a UE `metres` from the antenna (TS 36.133 10.3 Table
 * 10.3.1-1, which NR-TADV of TS 38.455 reuses in units of 64 Tc): TADV is the round trip (TS 36.214
 * 5.2.4), 2 Ts steps below 4096 Ts, then 8 Ts steps.
 */
export function timingAdvanceValue(metres: number): number {
  const ts = (2 * metres) / SPEED_OF_LIGHT / TS_SECONDS;
  const value = ts < 4096 ? Math.floor(ts / 2) : 2048 + Math.floor((ts - 4096) / 8);
  return clamp(value, 0, 7690);
}

/**
 * Angle of arrival as the radio reports it, counter-clockwise from geographical North (TS 36.214 5.2.5 AoA;
 * TS 38.215 UL AoA in the global coordinate system when no LCS-to-GCS translation is given), from a compass
 * bearing (clockwise from North) of the UE seen from the antenna.
 */
const counterClockwise = (bearing: number): number => (((360 - bearing) % 360) + 360) % 360;

/** NR UL AoA azimuth, 0..3599 in 0.1 degree steps (TS 38.455 UL AoA IE). */
export const nrAzimuthValue = (bearingDegrees: number): number =>
  clamp(Math.floor(counterClockwise(bearingDegrees) * 10), 0, 3599);

/** E-UTRA AoA, 0..719 in 0.5 degree steps (TS 36.133 10.2 Table 10.2.1-1). */
export const eutraAngleOfArrivalValue = (bearingDegrees: number): number =>
  clamp(Math.floor(counterClockwise(bearingDegrees) * 2), 0, 719);

/** A latitude as TS 23.032 6.1 codes it: its sign and N, N <= 2^23 |X| / 90 < N + 1. */
export function codedLatitude(latitude: number): { sign: 'north' | 'south'; value: number } {
  return {
    sign: latitude < 0 ? 'south' : 'north',
    value: clamp(Math.floor((Math.abs(latitude) * 2 ** 23) / 90), 0, 2 ** 23 - 1),
  };
}

/** A longitude as TS 23.032 6.1 codes it: N <= 2^24 X / 360 < N + 1, two's complement. */
export const codedLongitude = (longitude: number): number =>
  clamp(Math.floor((longitude * 2 ** 24) / 360), -(2 ** 23), 2 ** 23 - 1);

/** The smallest uncertainty code K, 0..127, whose r = 10 (1.1^K - 1) metres holds `metres` (TS 23.032 6.2). */
export function uncertaintyCode(metres: number): number {
  if (metres <= 0) return 0;
  return clamp(Math.ceil(Math.log(metres / 10 + 1) / Math.log(1.1) - 1e-9), 0, 127);
}
