import type { RadioMeasurement, ServingCell } from '../../network/network-state.ts';
import type { CellPosition } from '../cell-positions/cell-positions.repository.ts';

/**
 * A location result (spec: Location result), in the field names of 3GPP TS 29.572 LocationData: a GAD
 * shape (TS 23.032), the positioning methods used, the serving cell's global identity and the radio
 * measurements the network holds.
 */
export interface LocationResult {
  locationEstimate: {
    shape: 'POINT_UNCERTAINTY_CIRCLE';
    point: { lat: number; lon: number };
    /** Metres. */
    uncertainty: number;
  };
  positioningDataList: { method: string; mode: string; usage: string }[];
  /** The NR cell global identity (an NR serving cell). */
  ncgi?: { plmnId: { mcc: string; mnc: string }; nrCellId: string };
  /** The E-UTRA cell global identity (an ng-eNB serving cell). */
  ecgi?: { plmnId: { mcc: string; mnc: string }; eutraCellId: string };
  radioMeasurements?: RadioMeasurement[];
}

/**
 * The Cell ID estimate: the device is where its serving cell is provisioned, within the cell's
 * uncertainty. The circle that holds the provisioned ellipse has the semi-major axis as radius; a cell
 * provisioned without uncertainty gives 0, which says no more than the provisioning did.
 */
export function cellIdResult(
  cell: ServingCell,
  position: CellPosition,
  measurements: RadioMeasurement[],
): LocationResult {
  const uncertainty = Math.max(position.uncertaintySemiMajor ?? 0, position.uncertaintySemiMinor ?? 0);
  const plmnId = { mcc: cell.mcc, mnc: cell.mnc };
  return {
    locationEstimate: {
      shape: 'POINT_UNCERTAINTY_CIRCLE',
      point: { lat: position.latitude, lon: position.longitude },
      uncertainty,
    },
    // Cell ID is network-based: the mode TS 29.572 calls CONVENTIONAL.
    positioningDataList: [
      { method: 'CELLID', mode: 'CONVENTIONAL', usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' },
    ],
    ...(cell.rat === 'nr'
      ? { ncgi: { plmnId, nrCellId: cell.cellIdentity } }
      : { ecgi: { plmnId, eutraCellId: cell.cellIdentity } }),
    ...(measurements.length > 0 ? { radioMeasurements: measurements } : {}),
  };
}
