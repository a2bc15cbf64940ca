/**
 * One radio measurement of the serving or a neighbour cell, as an E-CID answer carries it: the RAN's
 * over NRPPa (TS 38.455 E-CID Measurement Initiation) or the device's over LPP (TS 37.355 NR-ECID /
 * ECID Provide Location Information; NR measurements as TS 38.331 MeasResults, E-UTRA as TS 36.331).
 * Location passes them on with its E-CID result.
 */
export interface RadioMeasurement {
  /** Who measured: `NETWORK` (the RAN) or `UE`. */
  source: string;
  rat: 'NR' | 'EUTRA';
  serving: boolean;
  pci: number;
  arfcn: number;
  /** NR: what the ARFCN points at, e.g. `SSB`. */
  arfcnType?: string;
  /** NR: SS-RSRP (dBm) and SS-RSRQ (dB). */
  ssRsrp?: number;
  ssRsrq?: number;
  ssbBeams?: { index: number; rsrp: number; rsrq: number }[];
  /** E-UTRA: RSRP (dBm) and RSRQ (dB). */
  rsrp?: number;
  rsrq?: number;
}
