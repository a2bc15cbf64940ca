import { EARTH_RADIUS, type CircleEstimate } from './ecid-estimate.ts';

/** A measured cell placed at its provisioned position, with the RSRP the device measured of it. */
export interface PlacedCell {
  /** The cell's provisioned point and the radius of the circle that holds its provisioned ellipse. */
  circle: CircleEstimate;
  rsrpDbm: number;
}

/**
 * The UE-assisted E-CID estimate (TS 38.305 8.6 leaves the algorithm to the location server): the
 * centroid of the measured cells' provisioned positions, each weighted by the power the device received
 * from it (RSRP in milliwatts, 10^(RSRP/10)), so the point moves from the serving cell towards the
 * neighbours the device hears almost as well, and hardly at all towards faint ones.
 *
 * The uncertainty is a bound, like the Cell ID one: a device that hears a cell is within that cell's
 * provisioned circle (as far as the provisioning holds its coverage), so the circle around the centroid
 * that holds the whole circle of one measured cell holds the device; the smallest such circle is given,
 * min(d_i + r_i) over the cells (d_i the centroid's distance to cell i, r_i its radius).
 *
 * Undefined with fewer than two cells: one cell's centroid is the Cell ID estimate.
 */
export function ueEcidEstimate(cells: readonly PlacedCell[]): CircleEstimate | undefined {
  if (cells.length < 2) return undefined;
  const origin = cells[0]!.circle;
  // Metres east and north of the first cell: over a few kilometres the plane is exact enough.
  const metresPerDegree = (EARTH_RADIUS * Math.PI) / 180;
  const cosLat = Math.cos((origin.lat * Math.PI) / 180);
  const local = cells.map(({ circle, rsrpDbm }) => ({
    east: (circle.lon - origin.lon) * metresPerDegree * cosLat,
    north: (circle.lat - origin.lat) * metresPerDegree,
    radius: circle.uncertainty,
    rsrpDbm,
  }));
  // Relative to the strongest cell, so faint cells do not underflow: the weights' ratios are the same.
  const strongest = Math.max(...local.map((c) => c.rsrpDbm));
  const weights = local.map((c) => 10 ** ((c.rsrpDbm - strongest) / 10));
  const total = weights.reduce((sum, w) => sum + w, 0);
  const east = local.reduce((sum, c, i) => sum + weights[i]! * c.east, 0) / total;
  const north = local.reduce((sum, c, i) => sum + weights[i]! * c.north, 0) / total;
  const uncertainty = Math.min(...local.map((c) => Math.hypot(c.east - east, c.north - north) + c.radius));
  return {
    lat: origin.lat + north / metresPerDegree,
    lon: origin.lon + east / (metresPerDegree * cosLat),
    uncertainty,
  };
}
