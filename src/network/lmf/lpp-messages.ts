import { bitStringHex, type BitString } from '../asn1/bit-string.ts';
import type {
  LPPMessage,
  LPPMessageBody_c1,
  LocationCoordinates,
  CellGlobalIdEUTRAAndUTRA,
  MeasuredResultsElement,
  NCGIr15,
  NRMeasuredResultsElementr16,
  ProvideCapabilitiesr9IEs,
  ProvideLocationInformationr9IEs,
  RequestCapabilitiesr9IEs,
  RequestLocationInformationr9IEs,
} from '../lpp/generated/types.ts';
import type { RadioMeasurement } from './radio-measurement.ts';
import { latitudeOf, longitudeOf, uncertaintyOf } from './gad.ts';
import { eutraRsrpDbm, eutraRsrqDb, nrRsrpDbm, nrRsrqDb } from './measurement-mapping.ts';
import { completeBeams } from './nrppa-ecid.ts';

/** What the LMF asks the device for over LPP. */
export type LppRequest = 'nr-ecid' | 'ecid' | 'gnss';

/** A named-bit BIT STRING (X.680 22) with the bits at `indices` set, bit 0 first. */
export function namedBits(indices: readonly number[], length: number): BitString {
  const bytes = new Uint8Array(Math.ceil(length / 8));
  for (const index of indices) bytes[index >> 3] = (bytes[index >> 3] ?? 0) | (0x80 >> (index & 7));
  return { bytes, length };
}

/** True when named bit `index` is set. */
const hasBit = (bits: BitString | undefined, index: number): boolean =>
  bits !== undefined && index < bits.length && ((bits.bytes[index >> 3] ?? 0) & (0x80 >> (index & 7))) !== 0;

/** An LPP message of the location server (TS 37.355 6.2) in transaction `transaction`. */
function fromServer(transaction: number, body: LPPMessageBody_c1): LPPMessage {
  return {
    transactionID: { initiator: 'locationServer', transactionNumber: transaction },
    endTransaction: false,
    lppMessageBody: { choice: 'c1', value: body },
  };
}

/** Request Capabilities (TS 37.355 6.3): the device's support of the one method asked about. */
export function requestCapabilities(transaction: number, request: LppRequest): LPPMessage {
  const ies: RequestCapabilitiesr9IEs =
    request === 'nr-ecid'
      ? { nrECIDRequestCapabilitiesR16: {} }
      : request === 'ecid'
        ? { ecidRequestCapabilities: {} }
        : {
            aGnssRequestCapabilities: {
              gnssSupportListReq: true,
              assistanceDataSupportListReq: false,
              locationVelocityTypesReq: false,
            },
          };
  return fromServer(transaction, {
    choice: 'requestCapabilities',
    value: {
      criticalExtensions: { choice: 'c1', value: { choice: 'requestCapabilities-r9', value: ies } },
    },
  });
}

/**
 * Request Location Information (TS 37.355 6.3): NR E-CID SS-RSRP and SS-RSRQ (6.5.6.4), E-UTRA E-CID
 * RSRP, RSRQ and UE Rx-Tx (6.5.3.4), or a standalone GPS location estimate (6.5.2.6: no assistance).
 */
export function requestLocationInformation(transaction: number, request: LppRequest): LPPMessage {
  const ies: RequestLocationInformationr9IEs =
    request === 'gnss'
      ? {
          commonIEsRequestLocationInformation: { locationInformationType: 'locationEstimateRequired' },
          aGnssRequestLocationInformation: {
            gnssPositioningInstructions: {
              gnssMethods: { gnssIds: namedBits([0], 8) },
              fineTimeAssistanceMeasReq: false,
              adrMeasReq: false,
              multiFreqMeasReq: false,
              assistanceAvailability: false,
            },
          },
        }
      : {
          commonIEsRequestLocationInformation: { locationInformationType: 'locationMeasurementsRequired' },
          ...(request === 'nr-ecid'
            ? { nrECIDRequestLocationInformationR16: { requestedMeasurementsR16: namedBits([0, 1], 8) } }
            : { ecidRequestLocationInformation: { requestedMeasurements: namedBits([0, 1, 2], 8) } }),
        };
  return fromServer(transaction, {
    choice: 'requestLocationInformation',
    value: {
      criticalExtensions: { choice: 'c1', value: { choice: 'requestLocationInformation-r9', value: ies } },
    },
  });
}

/** What a device's LPP message says, for the transaction it belongs to. */
export type LppAnswer =
  | { kind: 'capabilities'; transaction: number; capabilities: ProvideCapabilitiesr9IEs }
  | { kind: 'location'; transaction: number; information: ProvideLocationInformationr9IEs }
  | { kind: 'error'; transaction: number; reason: string };

/** The device's answer in an LPP message; undefined for messages the LMF does not wait for. */
export function lppAnswerOf(message: LPPMessage): LppAnswer | undefined {
  const id = message.transactionID;
  const body = message.lppMessageBody;
  if (id === undefined || body?.choice !== 'c1') return undefined;
  const transaction = id.transactionNumber;
  const c1 = body.value;
  switch (c1.choice) {
    case 'provideCapabilities': {
      const ext = c1.value.criticalExtensions;
      if (ext.choice !== 'c1' || ext.value.choice !== 'provideCapabilities-r9') return undefined;
      return { kind: 'capabilities', transaction, capabilities: ext.value.value };
    }
    case 'provideLocationInformation': {
      const ext = c1.value.criticalExtensions;
      if (ext.choice !== 'c1' || ext.value.choice !== 'provideLocationInformation-r9') return undefined;
      return { kind: 'location', transaction, information: ext.value.value };
    }
    case 'error':
      return { kind: 'error', transaction, reason: 'the device answered with an LPP Error' };
    case 'abort':
      return { kind: 'error', transaction, reason: 'the device aborted the LPP transaction' };
    default:
      return undefined;
  }
}

/** Whether Provide Capabilities says the device can do what `request` asks (TS 37.355 6.5.x.3). */
export function capable(request: LppRequest, capabilities: ProvideCapabilitiesr9IEs): boolean {
  switch (request) {
    case 'nr-ecid':
      return hasBit(capabilities.nrECIDProvideCapabilitiesR16?.nrECIDMeasSupportedR16, 0);
    case 'ecid':
      return hasBit(capabilities.ecidProvideCapabilities?.ecidMeasSupported, 0);
    case 'gnss':
      // PositioningModes: standalone (0) among the agnss-Modes of a supported GNSS (6.5.2.3).
      return (capabilities.aGnssProvideCapabilities?.gnssSupportList ?? []).some((gnss) =>
        hasBit(gnss.agnssModes.posModes, 0),
      );
  }
}

/**
 * A cell the device measured, as the UE-assisted estimate uses it: its global identity when the device
 * reported one (always known for the serving cell, from the network), and its RSRP.
 */
export interface UeMeasuredCell {
  serving: boolean;
  /** The NR CGI or E-UTRA CGI the device reported; undefined when it named the cell by PCI and ARFCN only. */
  cell: { rat: 'nr' | 'eutra'; mcc: string; mnc: string; cellIdentity: string } | undefined;
  /** SS-RSRP or RSRP in dBm (the lower bound of the reported range); undefined when not reported. */
  rsrpDbm: number | undefined;
}

/** The device's measurements (source `UE`) and the cells they name, or why there are none. */
type UeMeasurementsOutcome =
  { ok: true; measurements: RadioMeasurement[]; cells: UeMeasuredCell[] } | { ok: false; reason: string };

/** NR E-CID (TS 37.355 6.5.6.5) or E-UTRA E-CID (6.5.3.5) measurements of Provide Location Information. */
export function ueMeasurementsOf(
  request: 'nr-ecid' | 'ecid',
  information: ProvideLocationInformationr9IEs,
): UeMeasurementsOutcome {
  const error = information.commonIEsProvideLocationInformation?.locationError;
  if (request === 'nr-ecid') {
    const nr = information.nrECIDProvideLocationInformationR16;
    const signal = nr?.nrECIDSignalMeasurementInformationR16;
    if (signal === undefined)
      return {
        ok: false,
        reason: nr?.nrECIDErrorR16 ? 'NR E-CID error' : failureText(error?.locationfailurecause),
      };
    const elements = [
      { element: signal.nrPrimaryCellMeasuredResultsR16, serving: true },
      ...(signal.nrMeasuredResultsListR16 ?? []).map((element) => ({ element, serving: false })),
    ];
    return {
      ok: true,
      measurements: elements.map(({ element, serving }) => nrMeasurement(element, serving)),
      cells: elements.map(({ element, serving }) => ({
        serving,
        cell: nrCellOf(element.nrCellGlobalIDR16),
        rsrpDbm:
          element.resultsSSBCellR16?.nrRSRPR16 === undefined
            ? undefined
            : nrRsrpDbm(element.resultsSSBCellR16.nrRSRPR16),
      })),
    };
  }
  const ecid = information.ecidProvideLocationInformation;
  const signal = ecid?.ecidSignalMeasurementInformation;
  if (signal === undefined)
    return { ok: false, reason: ecid?.ecidError ? 'E-CID error' : failureText(error?.locationfailurecause) };
  const elements = [
    ...(signal.primaryCellMeasuredResults
      ? [{ element: signal.primaryCellMeasuredResults, serving: true }]
      : []),
    ...signal.measuredResultsList.map((element) => ({ element, serving: false })),
  ];
  return {
    ok: true,
    measurements: elements.map(({ element, serving }) => eutraMeasurement(element, serving)),
    cells: elements.map(({ element, serving }) => ({
      serving,
      cell: eutraCellOf(element.cellGlobalId),
      rsrpDbm: element.rsrpResult === undefined ? undefined : eutraRsrpDbm(element.rsrpResult),
    })),
  };
}

/** MCC and MNC digits (TS 37.355 6.4.2 MCC, MNC: 3 and 2..3 digits 0..9) as text. */
const digitsText = (digits: readonly number[]): string => digits.join('');

/** An NCGI-r15 (TS 37.355 6.4.2): the PLMN and the 36-bit NR cell identity in hex. */
function nrCellOf(ncgi: NCGIr15 | undefined): UeMeasuredCell['cell'] {
  if (ncgi === undefined) return undefined;
  return {
    rat: 'nr',
    mcc: digitsText(ncgi.mccR15),
    mnc: digitsText(ncgi.mncR15),
    cellIdentity: bitStringHex(ncgi.nrCellidentityR15),
  };
}

/** A CellGlobalIdEUTRA-AndUTRA (6.4.2) of an E-UTRA cell; a UTRA cell cannot be placed. */
function eutraCellOf(cgi: CellGlobalIdEUTRAAndUTRA | undefined): UeMeasuredCell['cell'] {
  if (cgi === undefined || cgi.cellIdentity.choice !== 'eutra') return undefined;
  return {
    rat: 'eutra',
    mcc: digitsText(cgi.plmnIdentity.mcc),
    mnc: digitsText(cgi.plmnIdentity.mnc),
    cellIdentity: bitStringHex(cgi.cellIdentity.value),
  };
}

function nrMeasurement(element: NRMeasuredResultsElementr16, serving: boolean): RadioMeasurement {
  const cell = element.resultsSSBCellR16;
  const measurement: RadioMeasurement = {
    source: 'UE',
    rat: 'NR',
    serving,
    pci: element.nrPhysCellIDR16,
    arfcn: element.nrARFCNR16.value,
    arfcnType: element.nrARFCNR16.choice === 'ssb-ARFCN-r16' ? 'SSB' : 'POINT_A',
    ...(cell?.nrRSRPR16 === undefined ? {} : { ssRsrp: nrRsrpDbm(cell.nrRSRPR16) }),
    ...(cell?.nrRSRQR16 === undefined ? {} : { ssRsrq: nrRsrqDb(cell.nrRSRQR16) }),
    ssbBeams: (element.resultsSSBIndexesR16 ?? []).map((beam) => ({
      index: beam.ssbIndexR16,
      rsrp: beam.ssbResultsR16.nrRSRPR16 === undefined ? Number.NaN : nrRsrpDbm(beam.ssbResultsR16.nrRSRPR16),
      rsrq: beam.ssbResultsR16.nrRSRQR16 === undefined ? Number.NaN : nrRsrqDb(beam.ssbResultsR16.nrRSRQR16),
    })),
  };
  completeBeams(measurement);
  return measurement;
}

function eutraMeasurement(element: MeasuredResultsElement, serving: boolean): RadioMeasurement {
  return {
    source: 'UE',
    rat: 'EUTRA',
    serving,
    pci: element.physCellId,
    arfcn: element.arfcnEUTRA,
    ...(element.rsrpResult === undefined ? {} : { rsrp: eutraRsrpDbm(element.rsrpResult) }),
    ...(element.rsrqResult === undefined ? {} : { rsrq: eutraRsrqDb(element.rsrqResult) }),
  };
}

/** The device's own location estimate (TS 37.355 6.4.1 LocationCoordinates) or why there is none. */
type GnssOutcome =
  { ok: true; estimate: { lat: number; lon: number; uncertainty: number } } | { ok: false; reason: string };

/** The GNSS estimate of Provide Location Information (commonIEsProvideLocationInformation, 6.4.1). */
export function gnssEstimateOf(information: ProvideLocationInformationr9IEs): GnssOutcome {
  const common = information.commonIEsProvideLocationInformation;
  const estimate = common?.locationEstimate;
  if (estimate === undefined)
    return { ok: false, reason: failureText(common?.locationError?.locationfailurecause) };
  const point = pointOf(estimate);
  return point === undefined
    ? { ok: false, reason: `the device reported a ${estimate.choice} shape the core does not read` }
    : { ok: true, estimate: point };
}

/** The point and the radius of the circle holding the shape's uncertainty (the larger axis). */
function pointOf(
  coordinates: LocationCoordinates,
): { lat: number; lon: number; uncertainty: number } | undefined {
  switch (coordinates.choice) {
    case 'ellipsoidPoint':
    case 'ellipsoidPointWithAltitude': {
      const v = coordinates.value;
      return {
        lat: latitudeOf(v.latitudeSign, v.degreesLatitude),
        lon: longitudeOf(v.degreesLongitude),
        uncertainty: 0,
      };
    }
    case 'ellipsoidPointWithUncertaintyCircle': {
      const v = coordinates.value;
      return {
        lat: latitudeOf(v.latitudeSign, v.degreesLatitude),
        lon: longitudeOf(v.degreesLongitude),
        uncertainty: uncertaintyOf(v.uncertainty),
      };
    }
    case 'ellipsoidPointWithUncertaintyEllipse':
    case 'ellipsoidPointWithAltitudeAndUncertaintyEllipsoid': {
      const v = coordinates.value;
      return {
        lat: latitudeOf(v.latitudeSign, v.degreesLatitude),
        lon: longitudeOf(v.degreesLongitude),
        uncertainty: uncertaintyOf(Math.max(v.uncertaintySemiMajor, v.uncertaintySemiMinor)),
      };
    }
    default:
      return undefined;
  }
}

function failureText(cause: string | number | undefined): string {
  return cause === undefined ? 'the device reported no result' : `the device reported ${String(cause)}`;
}
