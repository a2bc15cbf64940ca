import { timingAdvanceDistance } from './measurement-mapping.ts';

/** A point and the radius (metres) of the circle the device is in. */
export interface CircleEstimate {
  lat: number;
  lon: number;
  uncertainty: number;
}

/** Mean Earth radius (metres): distances of a few kilometres need no ellipsoid. */
export const EARTH_RADIUS = 6_371_000;

/**
 * The accuracy assumed for a reported angle of arrival, in degrees: the radio reports its estimate
 * in 0.5 or 0.1 degree steps, but a real antenna array is not that accurate.
 */
const AOA_ACCURACY_DEGREES = 5;

/**
 * The E-CID estimate (TS 38.305 8.6): the timing advance puts the device on a ring around the antenna
 * (`anchor`, with its own uncertainty); an angle of arrival puts it at one point of that ring. Without
 * an angle the answer is the circle around the antenna that holds the whole ring; with one, the point
 * on the ring, uncertain by the range of the reported value and the angle's accuracy across the
 * distance. Undefined without a timing advance (nothing to refine with).
 */
export function ecidEstimate(
  anchor: CircleEstimate,
  measured: { timingAdvance: number | undefined; angleOfArrival: number | undefined },
): CircleEstimate | undefined {
  if (measured.timingAdvance === undefined) return undefined;
  const { distance, halfWidth } = timingAdvanceDistance(measured.timingAdvance);
  if (measured.angleOfArrival === undefined) {
    return { lat: anchor.lat, lon: anchor.lon, uncertainty: anchor.uncertainty + distance + halfWidth };
  }
  // AoA is counted counter-clockwise from geographical north (TS 36.214 5.2.5, TS 38.215 5.2.x).
  const bearing = (-measured.angleOfArrival * Math.PI) / 180;
  const north = distance * Math.cos(bearing);
  const east = distance * Math.sin(bearing);
  const lat = anchor.lat + (north / EARTH_RADIUS) * (180 / Math.PI);
  const lon = anchor.lon + (east / (EARTH_RADIUS * Math.cos((anchor.lat * Math.PI) / 180))) * (180 / Math.PI);
  const across = distance * Math.sin((AOA_ACCURACY_DEGREES * Math.PI) / 180);
  return { lat, lon, uncertainty: anchor.uncertainty + Math.hypot(halfWidth, across) };
}
