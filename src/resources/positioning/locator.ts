import type { LocationServices } from '../../network/lmf/location-services.ts';
import { ecidEstimate } from '../../network/lmf/ecid-estimate.ts';
import type { UeMeasuredCell } from '../../network/lmf/lpp-messages.ts';
import { ueEcidEstimate, type PlacedCell } from '../../network/lmf/ue-ecid-estimate.ts';
import type { RadioMeasurement } from '../../network/lmf/radio-measurement.ts';
import type { NetworkState, ServingCell } from '../../network/network-state.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { CellPosition, CellPositionsRepository } from '../cell-positions/cell-positions.repository.ts';
import type { SubscribersRepository } from '../subscribers/subscribers.repository.ts';
import type { LocationServicesPort } from './location-services-port.ts';
import {
  CELL_ID_USED,
  cellCircle,
  cellIdResult,
  ecidMethodOf,
  resultAt,
  type Circle,
  type LocationResult,
  type PositioningData,
  type Usage,
} from './location-result.ts';

export type Method = 'cell_id' | 'ecid' | 'gnss';
export type Mode = 'network_based' | 'ue_assisted' | 'standalone';

/** How to locate: the method, and its mode (undefined: every mode of the method). */
export interface LocateHow {
  method: Method;
  mode: Mode | undefined;
  /** Called when the network state is first read (a session's later cell changes are seen after it). */
  observed?: () => void;
}

/** What a lookup found: an estimate, or why there is none. */
export type LocateOutcome =
  | { kind: 'located'; result: LocationResult; cell: ServingCell }
  | { kind: 'unknown-subscriber' }
  | { kind: 'not-connected' }
  | { kind: 'no-serving-cell' }
  | { kind: 'no-position'; cell: ServingCell }
  /** The network or the device cannot serve the method (409, the message says why). */
  | { kind: 'unserved'; reason: string };

/** A serving cell older than this is refreshed before it is used (network.md section 8). */
const SERVING_CELL_MAX_AGE_MS = 300_000;

/** Why E-CID and GNSS cannot be served while the network side is not running. */
const NOT_RUNNING: Record<'ecid' | 'gnss', string> = {
  ecid:
    'its radio and device cannot provide E-CID measurements (timing advance, angle of arrival, RSRP, RSRQ) ' +
    'until the network side provides them: N2 (the AMF and its LMF) is not running',
  gnss:
    'its device cannot provide a GNSS estimate until the network side provides them: N2 (the AMF and ' +
    'its LMF) is not running',
};

const CELL_ID_NOT_USED: PositioningData = { ...CELL_ID_USED, usage: 'SUCCESS_RESULTS_NOT_USED' };

/**
 * Locates subscribers (docs/location.md): Cell ID from the serving cell the network reported (refreshed
 * through the AMF when older than 300 s) resolved to its provisioned position; E-CID and GNSS through
 * the network's location services (the LMF). Immediate requests and every session evaluation go
 * through here. Network waits happen outside any database transaction: call it with the database
 * itself, not a transaction.
 */
export function createLocator(deps: {
  subscribers: SubscribersRepository;
  cellPositions: CellPositionsRepository;
  state: Pick<NetworkState, 'servingCellAge' | 'subscriber'>;
  locationServices: Pick<LocationServicesPort, 'current'>;
}) {
  const { subscribers, cellPositions, state } = deps;

  /** The serving cell, refreshed first when it is unknown or stale and the network can be asked. */
  async function servingCell(imsi: string, services: LocationServices | undefined) {
    const age = state.servingCellAge(imsi) ?? Infinity;
    if (services !== undefined && age > SERVING_CELL_MAX_AGE_MS) await services.refreshServingCell(imsi);
    return state.subscriber(imsi);
  }

  async function locate(imsi: string, executor: Executor, how: LocateHow): Promise<LocateOutcome> {
    const known = await subscribers.existingImsis([imsi], executor);
    if (known.length === 0) return { kind: 'unknown-subscriber' };
    const services = deps.locationServices.current();
    how.observed?.();
    if (how.method !== 'cell_id' && services === undefined)
      return { kind: 'unserved', reason: NOT_RUNNING[how.method] };
    if (!state.subscriber(imsi).registered) return { kind: 'not-connected' };
    const live = await servingCell(imsi, services);
    if (!live.registered) return { kind: 'not-connected' };
    const cell = live.servingCell;
    if (!cell) return { kind: 'no-serving-cell' };
    const position = await cellPositions.findByCell(cell, executor);
    if (how.method === 'cell_id' || services === undefined) {
      if (!position) return { kind: 'no-position', cell };
      return { kind: 'located', result: cellIdResult(cell, position), cell };
    }
    return how.method === 'ecid'
      ? ecid(imsi, cell, position, how.mode, services, executor)
      : gnss(imsi, cell, position, services);
  }

  /**
   * The cells the device measured, placed at their provisioned positions: each by the global identity it
   * reported, the serving cell by the network's when the device gave none. Cells without RSRP, without
   * an identity or without a provisioned position are left out; each cell counts once.
   */
  async function placeCells(
    serving: ServingCell,
    position: CellPosition | undefined,
    cells: readonly UeMeasuredCell[],
    executor: Executor,
  ): Promise<PlacedCell[]> {
    const placed = new Map<string, PlacedCell>();
    for (const measured of cells) {
      const key = measured.cell ?? (measured.serving ? serving : undefined);
      if (measured.rsrpDbm === undefined || key === undefined) continue;
      const id = `${key.rat} ${key.mcc}-${key.mnc} ${key.cellIdentity}`;
      if (placed.has(id)) continue;
      const isServing =
        key.rat === serving.rat &&
        key.mcc === serving.mcc &&
        key.mnc === serving.mnc &&
        key.cellIdentity === serving.cellIdentity;
      const found = isServing ? position : await cellPositions.findByCell(key, executor);
      if (found) placed.set(id, { circle: cellCircle(found), rsrpDbm: measured.rsrpDbm });
    }
    return [...placed.values()];
  }

  /**
   * E-CID: the radio's measurements (network based) place the device on the timing advance ring around
   * the antenna; the device's (UE assisted) at the RSRP-weighted centroid of the cells it measured. Of
   * the estimates made, the one with the smaller uncertainty is the result; every measurement comes with
   * it as `radioMeasurements`. Without a mode, both run.
   */
  async function ecid(
    imsi: string,
    cell: ServingCell,
    position: CellPosition | undefined,
    mode: Mode | undefined,
    services: LocationServices,
    executor: Executor,
  ): Promise<LocateOutcome> {
    const method = ecidMethodOf(cell);
    const [network, device] = await Promise.all([
      mode === 'ue_assisted' ? undefined : services.ecidNetwork(imsi, cell.rat),
      mode === 'network_based' ? undefined : services.ueEcid(imsi, cell.rat),
    ]);
    if (device !== undefined && !device.ok && device.incapable && mode === 'ue_assisted') {
      return { kind: 'unserved', reason: device.reason };
    }
    const report = network?.ok ? network.report : undefined;
    // The antenna: where the radio says it is, else the cell's provisioned position.
    const anchor: Circle | undefined =
      report?.accessPoint ?? (position && { ...cellCircle(position), uncertainty: 0 });
    const ring = report && anchor && ecidEstimate(anchor, report);
    // Centred on the cell's own position, the ring's circle is no better than a smaller cell circle.
    const circle = position && cellCircle(position);
    const networkEstimate =
      ring && circle && circle.uncertainty > 0 && circle.lat === ring.lat && circle.lon === ring.lon
        ? { ...ring, uncertainty: Math.min(ring.uncertainty, circle.uncertainty) }
        : ring;
    const deviceEstimate = device?.ok
      ? ueEcidEstimate(await placeCells(cell, position, device.cells, executor))
      : undefined;
    const estimate =
      networkEstimate && deviceEstimate
        ? deviceEstimate.uncertainty < networkEstimate.uncertainty
          ? deviceEstimate
          : networkEstimate
        : (networkEstimate ?? deviceEstimate);
    const usage = (made: Circle | undefined, ok: boolean): Usage =>
      !ok
        ? 'UNSUCCESS'
        : made !== undefined && made === estimate
          ? 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION'
          : 'SUCCESS_RESULTS_NOT_USED';
    const used: PositioningData[] = [];
    const measurements: RadioMeasurement[] = [];
    if (network !== undefined) {
      used.push({ method, mode: 'CONVENTIONAL', usage: usage(networkEstimate, report !== undefined) });
      if (report) measurements.push(...report.measurements);
    }
    if (device !== undefined) {
      used.push({ method, mode: 'UE_ASSISTED', usage: usage(deviceEstimate, device.ok) });
      if (device.ok) measurements.push(...device.measurements);
    }
    if (estimate === undefined) {
      if (!position) return { kind: 'no-position', cell };
      return {
        kind: 'located',
        result: resultAt(cell, cellCircle(position), [CELL_ID_USED, ...used], measurements),
        cell,
      };
    }
    return { kind: 'located', result: resultAt(cell, estimate, [CELL_ID_USED, ...used], measurements), cell };
  }

  /** GNSS standalone: the device's own estimate; Cell ID when it has none. */
  async function gnss(
    imsi: string,
    cell: ServingCell,
    position: CellPosition | undefined,
    services: LocationServices,
  ): Promise<LocateOutcome> {
    const answer = await services.gnss(imsi);
    if (!answer.ok && answer.incapable) return { kind: 'unserved', reason: answer.reason };
    if (answer.ok) {
      const result = resultAt(cell, answer.estimate, [CELL_ID_NOT_USED], []);
      result.gnssPositioningDataList = [
        { mode: 'UE_BASED', gnss: 'GPS', usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' },
      ];
      return { kind: 'located', result, cell };
    }
    if (!position) return { kind: 'no-position', cell };
    const result = resultAt(cell, cellCircle(position), [CELL_ID_USED], []);
    result.gnssPositioningDataList = [{ mode: 'UE_BASED', gnss: 'GPS', usage: 'UNSUCCESS' }];
    return { kind: 'located', result, cell };
  }

  return {
    /** Locates `imsi` by `how` (Cell ID unless said otherwise). */
    locate: (imsi: string, executor: Executor, how: LocateHow = { method: 'cell_id', mode: undefined }) =>
      locate(imsi, executor, how),
  };
}

export type Locator = ReturnType<typeof createLocator>;
