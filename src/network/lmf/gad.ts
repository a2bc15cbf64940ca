/**
 * Geographical Area Description (TS 23.032) codings the LMF reads and writes: latitude and longitude
 * as NRPPa and LPP carry them, and the uncertainty code K.
 */

/** Latitude from its sign and N (0..2^23-1): N <= 2^23 X / 90 < N + 1 (TS 23.032 6.1). */
export function latitudeOf(sign: 'north' | 'south', coded: number): number {
  const degrees = (coded * 90) / 2 ** 23;
  return sign === 'south' ? -degrees : degrees;
}

/** Longitude from N (-2^23..2^23-1, two's complement): N <= 2^24 X / 360 < N + 1 (TS 23.032 6.1). */
export const longitudeOf = (coded: number): number => (coded * 360) / 2 ** 24;

/** The coding of a latitude: its sign and N, rounded down as TS 23.032 6.1 defines. */
export function codeLatitude(latitude: number): { sign: 'north' | 'south'; coded: number } {
  const coded = Math.min(2 ** 23 - 1, Math.floor((Math.abs(latitude) * 2 ** 23) / 90));
  return { sign: latitude < 0 ? 'south' : 'north', coded };
}

/** The coding of a longitude (-180..180) as N. */
export const codeLongitude = (longitude: number): number =>
  Math.max(-(2 ** 23), Math.min(2 ** 23 - 1, Math.floor((longitude * 2 ** 24) / 360)));

/** Uncertainty r in metres of code K (0..127): r = C((1 + x)^K - 1), C = 10, x = 0.1 (TS 23.032 6.2). */
export const uncertaintyOf = (k: number): number => 10 * (1.1 ** k - 1);

/** The smallest code K whose uncertainty holds `metres`. */
export function codeUncertainty(metres: number): number {
  if (metres <= 0) return 0;
  return Math.min(127, Math.ceil(Math.log(metres / 10 + 1) / Math.log(1.1)));
}
