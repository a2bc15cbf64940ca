/**
 * Reported measurement values to physical quantities. Each reported value names a range; the lower
 * bound of the range is given (the quantity is at least that), as the tables below define them.
 */

/** NR SS-RSRP / CSI-RSRP, 0..127 (TS 38.133 Table 10.1.6.1-1): value v is -157 + v dBm and up. */
export const nrRsrpDbm = (value: number): number => -157 + value;

/** NR SS-RSRQ / CSI-RSRQ, 0..127 (TS 38.133 Table 10.1.11.1-1): -43.5 + v/2 dB and up, 0.5 dB steps. */
export const nrRsrqDb = (value: number): number => -43.5 + value / 2;

/** E-UTRA RSRP, 0..97 (TS 36.133 Table 9.1.4-1): -141 + v dBm and up. */
export const eutraRsrpDbm = (value: number): number => -141 + value;

/** E-UTRA RSRQ, 0..34 (TS 36.133 Table 9.1.7-1): -20 + v/2 dB and up. */
export const eutraRsrqDb = (value: number): number => -20 + value / 2;

/** Ts = 1 / (15000 x 2048) s (TS 36.211 4); NR: Ts = 64 Tc (TS 38.211 4.1, kappa = 64). */
const TS_SECONDS = 1 / (15_000 * 2048);
const SPEED_OF_LIGHT = 299_792_458;

/** One-way distance of one Ts of round-trip time: c Ts / 2, about 4.88 m. */
const METRES_PER_TS = (SPEED_OF_LIGHT * TS_SECONDS) / 2;

/**
 * The timing advance range (in Ts) of a reported TADV value, 0..7690 (TS 36.133 10.3, Table
 * 10.3.1-1): steps of 2 Ts below 4096 Ts, then steps of 8 Ts. NR-TADV (TS 38.455 9.2.x) uses the same
 * range and reporting table, counted in 64 Tc = Ts.
 */
function timingAdvanceTs(value: number): { from: number; to: number } {
  if (value < 2048) return { from: 2 * value, to: 2 * value + 2 };
  const from = 4096 + 8 * (value - 2048);
  return { from, to: from + 8 };
}

/**
 * The UE's distance from the antenna a timing advance says: TADV is the round-trip time (eNB Rx-Tx plus
 * UE Rx-Tx, TS 36.214 5.2.4), so half of it, at the speed of light. `distance` is the middle of the
 * reported range and `halfWidth` half its width, both in metres.
 */
export function timingAdvanceDistance(value: number): { distance: number; halfWidth: number } {
  const { from, to } = timingAdvanceTs(value);
  return {
    distance: ((from + to) / 2) * METRES_PER_TS,
    halfWidth: ((to - from) / 2) * METRES_PER_TS,
  };
}
