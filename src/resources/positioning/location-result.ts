import type { RadioMeasurement } from '../../network/lmf/radio-measurement.ts';
import type { ServingCell } from '../../network/network-state.ts';
import type { CellPosition } from '../cell-positions/cell-positions.repository.ts';

/**
 * A location result (spec: Location result), in the field names of 3GPP TS 29.572 LocationData: a GAD
 * shape (TS 23.032), the positioning methods used, the serving cell's global identity and, for E-CID,
 * the radio measurements its NRPPa and LPP answers carried.
 */
export interface LocationResult {
  locationEstimate: {
    shape: 'POINT_UNCERTAINTY_CIRCLE';
    point: { lat: number; lon: number };
    /** Metres. */
    uncertainty: number;
  };
  positioningDataList: PositioningData[];
  /** GNSS methods used (TS 29.572 GnssPositioningMethodAndUsage); present for `gnss` only. */
  gnssPositioningDataList?: { mode: string; gnss: string; usage: string }[];
  /** The NR cell global identity (an NR serving cell). */
  ncgi?: { plmnId: { mcc: string; mnc: string }; nrCellId: string };
  /** The E-UTRA cell global identity (an ng-eNB serving cell). */
  ecgi?: { plmnId: { mcc: string; mnc: string }; eutraCellId: string };
  radioMeasurements?: RadioMeasurement[];
}

/** One positioning method and how its result was used (TS 29.572 PositioningMethodAndUsage). */
export interface PositioningData {
  /** `CELLID`, `NR_ECID` (NR serving cell) or `ECID` (E-UTRA). */
  method: string;
  /** `CONVENTIONAL` (network based), `UE_ASSISTED` or `UE_BASED`. */
  mode: string;
  usage: Usage;
}

export type Usage = 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' | 'SUCCESS_RESULTS_NOT_USED' | 'UNSUCCESS';

/** The E-CID method's name for the serving cell's RAT (TS 29.572 PositioningMethod). */
export const ecidMethodOf = (cell: ServingCell): string => (cell.rat === 'nr' ? 'NR_ECID' : 'ECID');

/** A point with the radius of its uncertainty circle, in metres. */
export interface Circle {
  lat: number;
  lon: number;
  uncertainty: number;
}

/**
 * A result located at `estimate` (another method's) in the serving cell: the methods used, and the
 * measurements that came with it.
 */
export function resultAt(
  cell: ServingCell,
  estimate: Circle,
  positioningDataList: PositioningData[],
  measurements: RadioMeasurement[],
): LocationResult {
  const plmnId = { mcc: cell.mcc, mnc: cell.mnc };
  return {
    locationEstimate: {
      shape: 'POINT_UNCERTAINTY_CIRCLE',
      point: { lat: estimate.lat, lon: estimate.lon },
      uncertainty: estimate.uncertainty,
    },
    positioningDataList,
    ...(cell.rat === 'nr'
      ? { ncgi: { plmnId, nrCellId: cell.cellIdentity } }
      : { ecgi: { plmnId, eutraCellId: cell.cellIdentity } }),
    ...(measurements.length > 0 ? { radioMeasurements: measurements } : {}),
  };
}

/** The Cell ID circle of a provisioned cell position: its point, and the larger axis as radius. */
export const cellCircle = (position: CellPosition): Circle => ({
  lat: position.latitude,
  lon: position.longitude,
  uncertainty: Math.max(position.uncertaintySemiMajor ?? 0, position.uncertaintySemiMinor ?? 0),
});

/**
 * The Cell ID estimate: the device is where its serving cell is provisioned, within the cell's
 * uncertainty. The circle that holds the provisioned ellipse has the semi-major axis as radius; a cell
 * provisioned without uncertainty gives 0, which says no more than the provisioning did.
 */
export function cellIdResult(cell: ServingCell, position: CellPosition): LocationResult {
  // Cell ID is network-based: the mode TS 29.572 calls CONVENTIONAL.
  return resultAt(cell, cellCircle(position), [CELL_ID_USED], []);
}

export const CELL_ID_USED: PositioningData = {
  method: 'CELLID',
  mode: 'CONVENTIONAL',
  usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION',
};
