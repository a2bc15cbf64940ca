// What a simulated UE knows and shows about where it is: what it answers over LPP (TS 37.355) and what its
// serving gNB measures of it for E-CID over NRPPa (TS 38.455). Physical units throughout (dBm, dB,
// metres, degrees); location-values.ts codes them as the protocols report them.

/** One NR cell as the device measures it (LPP NR-ECID, TS 37.355 6.5.12). */
export interface NrCellMeasurement {
  /** Physical cell id, 0..1007. */
  pci: number;
  /** The SSB's NR-ARFCN, 0..3279165. */
  ssbArfcn: number;
  ssRsrpDbm: number;
  ssRsrqDb: number;
  /**
   * A neighbour's NR cell identity (36-bit NCI), reported as its NCGI in the serving PLMN so the location
   * server can place it; absent: the neighbour is named by PCI and ARFCN only. The serving cell's comes
   * from the gNB.
   */
  nrCellIdentity?: number;
  /** Per-beam results (SSB index 0..63), optional. */
  ssbBeams?: readonly { index: number; rsrpDbm: number; rsrqDb: number }[];
}

/** One E-UTRA cell as the device measures it (LPP E-CID, TS 37.355 6.5.3). */
export interface EutraCellMeasurement {
  /** Physical cell id, 0..503. */
  pci: number;
  /** EARFCN, 0..65535 (ARFCN-ValueEUTRA). */
  earfcn: number;
  rsrpDbm: number;
  rsrqDb: number;
  /** A neighbour's E-UTRA cell identity (28-bit ECI), reported as its ECGI in the serving PLMN. */
  eutraCellIdentity?: number;
}

/** What the device does when asked for its GNSS position (LPP A-GNSS, TS 37.355 6.5.2). */
type GnssBehaviour =
  /** A fix: WGS-84 degrees and the radius of its uncertainty circle in metres. */
  | { kind: 'fix'; latitude: number; longitude: number; uncertaintyMetres: number }
  /** A target device error (e.g. not enough satellites) with locationError positionMethodFailure. */
  | { kind: 'error' }
  /** No answer at all: the location server's timer runs out. */
  | { kind: 'silent' };

/** What the serving radio measures of this UE (NRPPa E-CID, TS 38.455 8.2.1). */
export interface RadioView {
  /** The UE's distance from the antenna: the timing advance reports its round trip. */
  distanceMetres: number;
  /** Where the UE is seen from the antenna, clockwise from North; no angle of arrival when absent. */
  bearingDegrees?: number;
  /** The serving cell's SS-RSRP/SS-RSRQ (or RSRP/RSRQ on E-UTRA) the radio reports for the UE. */
  rsrpDbm?: number;
  rsrqDb?: number;
}

export interface UePositioning {
  /** The methods the device supports (LPP Provide Capabilities). */
  capabilities: { nrEcid: boolean; ecid: boolean; agnss: boolean };
  /** NR cells it measures, the serving (primary) cell first. */
  nrCells?: readonly NrCellMeasurement[];
  /** E-UTRA cells it measures, the serving (primary) cell first. */
  eutraCells?: readonly EutraCellMeasurement[];
  /** Absent: silent. */
  gnss?: GnssBehaviour;
  radio?: RadioView;
}

/** A device that supports no LPP positioning method: it answers Request Capabilities with nothing. */
export const NO_POSITIONING: UePositioning = {
  capabilities: { nrEcid: false, ecid: false, agnss: false },
};

const inRange = (value: number, low: number, high: number): boolean =>
  Number.isFinite(value) && value >= low && value <= high;

/** Throws RangeError for values no LPP or NRPPa message could carry (a caller's mistake). */
export function validateUePositioning(positioning: UePositioning): void {
  for (const cell of positioning.nrCells ?? []) {
    if (!Number.isInteger(cell.pci) || !inRange(cell.pci, 0, 1007)) throw new RangeError('NR PCI is 0..1007');
    if (!Number.isInteger(cell.ssbArfcn) || !inRange(cell.ssbArfcn, 0, 3_279_165))
      throw new RangeError('NR-ARFCN is 0..3279165');
    for (const beam of cell.ssbBeams ?? []) {
      if (!Number.isInteger(beam.index) || !inRange(beam.index, 0, 63))
        throw new RangeError('SSB index is 0..63');
    }
    if ((cell.ssbBeams?.length ?? 0) > 64) throw new RangeError('at most 64 SSB beams per cell');
    if (
      cell.nrCellIdentity !== undefined &&
      !(Number.isSafeInteger(cell.nrCellIdentity) && inRange(cell.nrCellIdentity, 0, 2 ** 36 - 1))
    )
      throw new RangeError('NR cell identity is 36 bits');
  }
  for (const cell of positioning.eutraCells ?? []) {
    if (!Number.isInteger(cell.pci) || !inRange(cell.pci, 0, 503))
      throw new RangeError('E-UTRA PCI is 0..503');
    if (!Number.isInteger(cell.earfcn) || !inRange(cell.earfcn, 0, 65_535))
      throw new RangeError('EARFCN is 0..65535');
    if (
      cell.eutraCellIdentity !== undefined &&
      !(Number.isInteger(cell.eutraCellIdentity) && inRange(cell.eutraCellIdentity, 0, 2 ** 28 - 1))
    )
      throw new RangeError('E-UTRA cell identity is 28 bits');
  }
  // MeasuredResultsList and NR-MeasuredResultsList-r16 hold 1..32 cells besides the primary one.
  if ((positioning.nrCells?.length ?? 0) > 33 || (positioning.eutraCells?.length ?? 0) > 33)
    throw new RangeError('at most the serving cell and 32 neighbours');
  const { gnss, radio } = positioning;
  if (gnss?.kind === 'fix') {
    if (!inRange(gnss.latitude, -90, 90) || !inRange(gnss.longitude, -180, 180))
      throw new RangeError('GNSS fix outside -90..90, -180..180');
    if (!inRange(gnss.uncertaintyMetres, 0, 1_800_000)) throw new RangeError('GNSS uncertainty out of range');
  }
  if (radio !== undefined) {
    if (!inRange(radio.distanceMetres, 0, 100_000)) throw new RangeError('radio distance is 0..100000 m');
    if (radio.bearingDegrees !== undefined && !inRange(radio.bearingDegrees, 0, 360))
      throw new RangeError('bearing is 0..360 degrees');
  }
}
