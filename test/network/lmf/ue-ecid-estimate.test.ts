import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ueEcidEstimate } from '../../../src/network/lmf/ue-ecid-estimate.ts';

/**
 * The UE-assisted E-CID estimate (docs/location.md): the RSRP-weighted (milliwatt) centroid of the
 * measured cells' provisioned positions, uncertain by min(d_i + r_i). The expected figures are worked out
 * by hand below, in metres east and north of the serving cell (a local plane on a 6,371 km sphere).
 */

const ORIGIN = { lat: 53.5, lon: 10 };
const METRES_PER_DEGREE = (6_371_000 * Math.PI) / 180;
const COS_LAT = Math.cos((ORIGIN.lat * Math.PI) / 180);

/** A cell `east` and `north` metres from the origin with radius `r`. */
const at = (east: number, north: number, r: number) => ({
  lat: ORIGIN.lat + north / METRES_PER_DEGREE,
  lon: ORIGIN.lon + east / (METRES_PER_DEGREE * COS_LAT),
  uncertainty: r,
});

/** An estimate back in metres east and north of the origin. */
function metres(estimate: { lat: number; lon: number } | undefined): { east: number; north: number } {
  assert.ok(estimate);
  return {
    east: (estimate.lon - ORIGIN.lon) * METRES_PER_DEGREE * COS_LAT,
    north: (estimate.lat - ORIGIN.lat) * METRES_PER_DEGREE,
  };
}

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 0.01, `${what}: ${actual}, expected ${expected}`);

describe('UE-assisted E-CID estimate: weighted centroid of the measured cells', () => {
  it('serving -85 dBm, a neighbour 400 m east at -88 dBm: 133.54 m east, uncertain by 433.54 m', () => {
    // Weights 10^(-85/10) : 10^(-88/10) = 1 : 0.501187; east = 400 x 0.501187 / 1.501187 = 133.54 m.
    // d = 133.54 (serving, r 300) and 266.46 (neighbour, r 200): min(433.54, 466.46) = 433.54 m.
    const estimate = ueEcidEstimate([
      { circle: at(0, 0, 300), rsrpDbm: -85 },
      { circle: at(400, 0, 200), rsrpDbm: -88 },
    ]);
    const { east, north } = metres(estimate);
    close(east, 133.54, 'east');
    close(north, 0, 'north');
    close(estimate!.uncertainty, 433.54, 'uncertainty');
  });

  it('two cells heard equally: midway; the smaller cell bounds the circle', () => {
    // 200 m from each: min(200 + 300, 200 + 200) = 400 m.
    const estimate = ueEcidEstimate([
      { circle: at(0, 0, 300), rsrpDbm: -90 },
      { circle: at(400, 0, 200), rsrpDbm: -90 },
    ]);
    close(metres(estimate).east, 200, 'east');
    close(estimate!.uncertainty, 400, 'uncertainty');
  });

  it('three cells, the serving one 10 dB stronger: 50 m east and 50 m north of it', () => {
    // Weights 1, 0.1, 0.1 (sum 1.2): east = 600 x 0.1 / 1.2 = 50, north = 600 x 0.1 / 1.2 = 50.
    // d = 70.71, hypot(50, 550) = 552.27, hypot(550, 50) = 552.27; all r 500: min = 570.71 m.
    const estimate = ueEcidEstimate([
      { circle: at(0, 0, 500), rsrpDbm: -80 },
      { circle: at(0, 600, 500), rsrpDbm: -90 },
      { circle: at(600, 0, 500), rsrpDbm: -90 },
    ]);
    const { east, north } = metres(estimate);
    close(east, 50, 'east');
    close(north, 50, 'north');
    close(estimate!.uncertainty, 570.71, 'uncertainty');
  });

  it('a faint neighbour (40 dB weaker) hardly moves it; very low RSRP does not underflow', () => {
    // Weight 10^-4: east = 1000 x 1e-4 / 1.0001 = 0.09999 m.
    const estimate = ueEcidEstimate([
      { circle: at(0, 0, 300), rsrpDbm: -156 },
      { circle: at(1000, 0, 300), rsrpDbm: -196 },
    ]);
    close(metres(estimate).east, 0.1, 'east');
    close(estimate!.uncertainty, 300.1, 'uncertainty');
  });

  it('one placed cell is the Cell ID estimate: no UE-assisted estimate', () => {
    assert.equal(ueEcidEstimate([{ circle: at(0, 0, 300), rsrpDbm: -85 }]), undefined);
    assert.equal(ueEcidEstimate([]), undefined);
  });
});
