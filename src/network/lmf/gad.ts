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

/** Uncertainty r in metres of code K (0..127): r = C((1 + x)^K - 1), C = 10, x = 0.1 (TS 23.032 6.2). */
export const uncertaintyOf = (k: number): number => 10 * (1.1 ** k - 1);
