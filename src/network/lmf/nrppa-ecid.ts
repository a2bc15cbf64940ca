import { bitStringHex } from '../asn1/bit-string.ts';
import { plmnOf } from '../common/plmn-identity.ts';
import type { RadioMeasurement } from './radio-measurement.ts';
import {
  buildECIDMeasurementInitiationRequest,
  readECIDMeasurementInitiationFailure,
  readECIDMeasurementInitiationResponse,
} from '../nrppa/generated/messages.ts';
import { MeasurementQuantitiesItemIEs } from '../nrppa/generated/single-ies.ts';
import type {
  ECIDMeasurementResult,
  MeasuredResultsValue,
  MeasurementQuantitiesValue,
  NRPPAPDU,
  ResultSSRSRP,
  ResultSSRSRQ,
} from '../nrppa/generated/types.ts';
import { latitudeOf, longitudeOf, uncertaintyOf } from './gad.ts';
import { eutraRsrpDbm, eutraRsrqDb, nrRsrpDbm, nrRsrqDb } from './measurement-mapping.ts';

/** What the radio measured for one E-CID Measurement Initiation (TS 38.455 9.2.5 E-CID Measurement Result). */
export interface NetworkEcidReport {
  /** The serving cell the radio names (NR CGI or E-UTRA CGI). */
  servingCell: { rat: 'nr' | 'eutra'; mcc: string; mnc: string; cellIdentity: string } | undefined;
  /** The antenna's position, when the radio reports it (NG-RAN Access Point Position, 9.2.28). */
  accessPoint: { lat: number; lon: number; uncertainty: number } | undefined;
  /** The reported TADV value (0..7690): Timing Advance Type 1 (E-UTRA) or NR-TADV. */
  timingAdvance: number | undefined;
  /** Azimuth of arrival, degrees counter-clockwise from geographical north (TS 36.214 5.2.5, TS 38.215). */
  angleOfArrival: number | undefined;
  /** Resolution of that azimuth in degrees (0.5 E-UTRA, 0.1 NR). */
  angleResolution: number;
  measurements: RadioMeasurement[];
}

/** E-CID quantities asked for (TS 38.455 9.2.6 Measurement Quantities), by the serving cell's RAT. */
const QUANTITIES: Record<'nr' | 'eutra', MeasurementQuantitiesValue[]> = {
  nr: ['cell-ID', 'timingAdvanceNR', 'angleOfArrivalNR', 'sS-RSRP', 'sS-RSRQ'],
  eutra: ['cell-ID', 'timingAdvanceType1', 'angleOfArrival', 'rSRP', 'rSRQ'],
};

/** E-CID MEASUREMENT INITIATION REQUEST (TS 38.455 9.1.1.1), on demand (8.2.1.2). */
export function ecidMeasurementInitiationRequest(
  transactionId: number,
  measurementId: number,
  rat: 'nr' | 'eutra',
): NRPPAPDU {
  return buildECIDMeasurementInitiationRequest(
    {
      lmfUeMeasurementId: measurementId,
      reportCharacteristics: 'onDemand',
      measurementQuantities: QUANTITIES[rat].map((quantity) =>
        MeasurementQuantitiesItemIEs.measurementQuantitiesItem({ measurementQuantitiesValue: quantity }),
      ),
    },
    { nrppatransactionID: transactionId },
  );
}

/** What an E-CID answer says: the report, or the failure, each under the LMF's measurement id. */
type EcidAnswer =
  | { kind: 'report'; measurementId: number; report: NetworkEcidReport }
  | { kind: 'failure'; measurementId: number; cause: string };

/** The E-CID Measurement Initiation Response or Failure in an NRPPa PDU; undefined for anything else. */
export function ecidAnswerOf(pdu: NRPPAPDU): EcidAnswer | undefined {
  const response = readECIDMeasurementInitiationResponse(pdu);
  if (response.ok) {
    const { lmfUeMeasurementId: measurementId, eCidMeasurementResult: result } = response.message;
    if (result === undefined) return { kind: 'failure', measurementId, cause: 'no E-CID measurement result' };
    return { kind: 'report', measurementId, report: reportOf(result) };
  }
  const failure = readECIDMeasurementInitiationFailure(pdu);
  if (failure.ok) {
    const { lmfUeMeasurementId: measurementId, cause } = failure.message;
    const text =
      cause === undefined || cause.choice === 'choice-Extension' ? 'unspecified' : String(cause.value);
    return { kind: 'failure', measurementId, cause: text };
  }
  return undefined;
}

function reportOf(result: ECIDMeasurementResult): NetworkEcidReport {
  const cgi = result.servingCellID;
  const plmn = plmnOf(cgi.pLMNIdentity);
  const cell = cgi.nGRANcell;
  const servingCell =
    plmn === undefined || cell.choice === 'choice-Extension'
      ? undefined
      : {
          rat: cell.choice === 'nR-CellID' ? ('nr' as const) : ('eutra' as const),
          ...plmn,
          cellIdentity: bitStringHex(cell.value),
        };
  const position = result.nGRANAccessPointPosition;
  const report: NetworkEcidReport = {
    servingCell,
    accessPoint:
      position === undefined
        ? undefined
        : {
            lat: latitudeOf(position.latitudeSign, position.latitude),
            lon: longitudeOf(position.longitude),
            uncertainty: uncertaintyOf(position.uncertaintySemiMajor),
          },
    timingAdvance: undefined,
    angleOfArrival: undefined,
    angleResolution: servingCell?.rat === 'nr' ? 0.1 : 0.5,
    measurements: [],
  };
  for (const value of result.measuredResults ?? []) readMeasured(report, value);
  for (const measurement of report.measurements) completeBeams(measurement);
  return report;
}

/** One Measured Results Value (TS 38.455 9.2.7) into the report. */
function readMeasured(report: NetworkEcidReport, measured: MeasuredResultsValue): void {
  switch (measured.choice) {
    case 'valueAngleOfArrival-EUTRA':
      report.angleOfArrival = measured.value * 0.5;
      return;
    case 'valueTimingAdvanceType1-EUTRA':
      report.timingAdvance = measured.value;
      return;
    case 'valueTimingAdvanceType2-EUTRA':
      // Type 2 is the eNB's Rx-Tx alone (TS 36.214 5.2.4); Type 1 is preferred when both come.
      report.timingAdvance ??= measured.value;
      return;
    case 'resultRSRP-EUTRA':
      for (const item of measured.value)
        eutraCell(report, item.pCIEUTRA, item.eARFCN, item.cGIEUTRA?.eUTRAcellIdentifier).rsrp = eutraRsrpDbm(
          item.valueRSRPEUTRA,
        );
      return;
    case 'resultRSRQ-EUTRA':
      for (const item of measured.value)
        eutraCell(report, item.pCIEUTRA, item.eARFCN, item.cGIUTRA?.eUTRAcellIdentifier).rsrq = eutraRsrqDb(
          item.valueRSRQEUTRA,
        );
      return;
    case 'choice-Extension': {
      const extension = measured.value;
      switch (extension.name) {
        case 'NR-TADV':
          report.timingAdvance = extension.value;
          return;
        case 'AngleOfArrivalNR':
          report.angleOfArrival = extension.value.azimuthAoA * 0.1;
          return;
        case 'ResultSS-RSRP':
          return readSsRsrp(report, extension.value);
        case 'ResultSS-RSRQ':
          return readSsRsrq(report, extension.value);
        default:
          return;
      }
    }
  }
}

function isServing(report: NetworkEcidReport, cellIdentity: string | undefined, first: boolean): boolean {
  if (cellIdentity === undefined || report.servingCell === undefined) return first;
  return cellIdentity === report.servingCell.cellIdentity;
}

/** The NETWORK measurement of one cell, by PCI and ARFCN, added at first sight. */
function measurementOf(
  report: NetworkEcidReport,
  rat: 'NR' | 'EUTRA',
  pci: number,
  arfcn: number,
  cellIdentity: string | undefined,
): RadioMeasurement {
  const found = report.measurements.find((m) => m.rat === rat && m.pci === pci && m.arfcn === arfcn);
  if (found) return found;
  const created: RadioMeasurement = {
    source: 'NETWORK',
    rat,
    serving: isServing(report, cellIdentity, report.measurements.length === 0),
    pci,
    arfcn,
    ...(rat === 'NR' ? { arfcnType: 'SSB' } : {}),
  };
  report.measurements.push(created);
  return created;
}

function eutraCell(
  report: NetworkEcidReport,
  pci: number,
  earfcn: number,
  cellIdentity: { bytes: Uint8Array; length: number } | undefined,
): RadioMeasurement {
  return measurementOf(report, 'EUTRA', pci, earfcn, cellIdentity && bitStringHex(cellIdentity));
}

function beam(measurement: RadioMeasurement, index: number): { index: number; rsrp: number; rsrq: number } {
  measurement.ssbBeams ??= [];
  let found = measurement.ssbBeams.find((b) => b.index === index);
  if (!found) measurement.ssbBeams.push((found = { index, rsrp: Number.NaN, rsrq: Number.NaN }));
  return found;
}

function readSsRsrp(report: NetworkEcidReport, items: ResultSSRSRP): void {
  for (const item of items) {
    const cell = item.cGINR && bitStringHex(item.cGINR.nRcellIdentifier);
    const measurement = measurementOf(report, 'NR', item.nRPCI, item.nRARFCN, cell);
    if (item.valueSSRSRPCell !== undefined) measurement.ssRsrp = nrRsrpDbm(item.valueSSRSRPCell);
    for (const ssb of item.sSRSRPPerSSB ?? [])
      beam(measurement, ssb.sSBIndex).rsrp = nrRsrpDbm(ssb.valueSSRSRP);
  }
}

function readSsRsrq(report: NetworkEcidReport, items: ResultSSRSRQ): void {
  for (const item of items) {
    const cell = item.cGINR && bitStringHex(item.cGINR.nRcellIdentifier);
    const measurement = measurementOf(report, 'NR', item.nRPCI, item.nRARFCN, cell);
    if (item.valueSSRSRQCell !== undefined) measurement.ssRsrq = nrRsrqDb(item.valueSSRSRQCell);
    for (const ssb of item.sSRSRQPerSSB ?? [])
      beam(measurement, ssb.sSBIndex).rsrq = nrRsrqDb(ssb.valueSSRSRQ);
  }
}

/** A beam is reported with both quantities or not at all (the Location result's `ssbBeams` items). */
export function completeBeams(measurement: RadioMeasurement): void {
  const beams = measurement.ssbBeams?.filter((b) => Number.isFinite(b.rsrp) && Number.isFinite(b.rsrq));
  if (beams === undefined || beams.length === 0) delete measurement.ssbBeams;
  else measurement.ssbBeams = beams;
}
