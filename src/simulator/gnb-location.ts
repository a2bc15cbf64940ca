// The location side of a simulated NG-RAN node: Location Reporting Control answered with Location Reports
// (TS 38.413 8.12), and NRPPa E-CID Measurement Initiation (TS 38.455 8.2.1) carried in Downlink UE
// Associated NRPPa Transport answered in Uplink UE Associated NRPPa Transport (TS 38.413 8.13) with what the
// radio measures of the UE (its positioning configuration's `radio`), or refused, or not at all.
import { decodeComplete, encodeComplete } from '../network/asn1/complete.ts';
import {
  readDownlinkUEAssociatedNRPPaTransport,
  readLocationReportingControl,
} from '../network/ngap/generated/messages.ts';
import type { LocationReportingRequestType, NGAPPDU } from '../network/ngap/generated/types.ts';
import type { ReadFailure } from '../network/ngap/message-functions.ts';
import { decodeNRPPAPDU, encodeNRPPAPDU } from '../network/nrppa/generated/codec.ts';
import { readECIDMeasurementInitiationRequest } from '../network/nrppa/generated/messages.ts';
import { MeasuredResultsValueExtensionIE } from '../network/nrppa/generated/single-ies.ts';
import type {
  ECIDMeasurementResult,
  MeasuredResultsValue,
  MeasurementQuantitiesValue,
  NRPPAPDU,
} from '../network/nrppa/generated/types.ts';
import {
  ecidMeasurementInitiationFailure,
  ecidMeasurementInitiationResponse,
  locationReport,
  locationReportingFailureIndication,
  ngRanCgi,
  servingCellTac,
  uplinkUeAssociatedNrppaTransport,
} from './gnb-location-messages.ts';
import {
  codedLatitude,
  codedLongitude,
  eutraAngleOfArrivalValue,
  eutraRsrpValue,
  eutraRsrqValue,
  nrAzimuthValue,
  ssRsrpValue,
  ssRsrqValue,
  timingAdvanceValue,
  uncertaintyCode,
} from './location-values.ts';
import type { GnbUes, UeLink, UeLocationService } from './ue/gnb-ues.ts';
import { userLocationInformation } from './ue/ran-ue-messages.ts';
import type { RadioView } from './ue/ue-positioning.ts';

/** NRPPa is ALIGNED PER (TS 38.455 9.4). */
const ALIGNED = true;

/** How the node answers a location procedure: as a working radio, with a refusal, or not at all. */
type LocationAnswer = 'respond' | 'fail' | 'silent';

export interface GnbPositioning {
  /** The serving cell's physical cell id (0..1007 NR, 0..503 E-UTRA) its measurements name. */
  pci: number;
  /** The serving cell's SSB NR-ARFCN (NR) or EARFCN (E-UTRA). */
  arfcn: number;
  /** The antenna's position, sent as nG-RANAccessPointPosition; absent: not sent. */
  accessPoint?: { latitude: number; longitude: number; altitudeMetres?: number; uncertaintyMetres?: number };
  /** E-CID Measurement Initiation: `respond` (default), `fail` (a Failure), `silent`. */
  ecid?: LocationAnswer;
  /** Location Reporting Control: `respond` (default), `fail` (a Failure Indication), `silent`. */
  locationReporting?: LocationAnswer;
}

/** What the node did not act on, for tests. */
interface IgnoredLocationMessage {
  messageType: string;
  reason: string;
}

const UE_MEASUREMENT_IDS = 15; // UE-Measurement-ID ::= INTEGER (1..15, ...)

export class GnbLocation implements UeLocationService {
  readonly #ues: GnbUes;
  readonly #config: GnbPositioning;
  /** Connections (by RAN UE NGAP ID) with reports upon change of serving cell requested: the request. */
  readonly #onCellChange = new Map<number, LocationReportingRequestType>();
  #nextRanUeMeasurementId = 1;
  readonly ignored: IgnoredLocationMessage[] = [];

  constructor(ues: GnbUes, config: GnbPositioning) {
    validateGnbPositioning(config);
    this.#ues = ues;
    this.#config = config;
    ues.attachLocation(this);
  }

  receive(pdu: NGAPPDU): boolean {
    if (pdu.choice !== 'initiatingMessage') return false;
    const messageType = pdu.value.name;
    switch (messageType) {
      case 'LocationReportingControl': {
        const read = readLocationReportingControl(pdu);
        if (!read.ok) return this.#unread(messageType, read);
        const { ranUeNgapId, locationReportingRequestType: requestType } = read.message;
        const link = this.#link(messageType, ranUeNgapId);
        // Of criticality ignore (TS 38.413 9.2.9.1): without it there is nothing to report.
        if (link !== undefined && requestType !== undefined)
          this.#locationReportingControl(link, requestType);
        return true;
      }
      case 'DownlinkUEAssociatedNRPPaTransport': {
        const read = readDownlinkUEAssociatedNRPPaTransport(pdu);
        if (!read.ok) return this.#unread(messageType, read);
        const { ranUeNgapId, routingId, nrppaPdu } = read.message;
        const link = this.#link(messageType, ranUeNgapId);
        if (link !== undefined) this.#nrppa(link, routingId, nrppaPdu);
        return true;
      }
      default:
        return false;
    }
  }

  /** A message the generated reader refused (TS 38.413 10.3): noted, not acted on. */
  #unread(messageType: string, read: ReadFailure): true {
    this.ignored.push({ messageType, reason: `abstract syntax error: ${read.error}` });
    return true;
  }

  cellChanged(link: UeLink): void {
    const requestType = this.#onCellChange.get(link.ranUeNgapId);
    if (requestType !== undefined) this.#report(link, requestType);
  }

  released(link: UeLink): void {
    this.#onCellChange.delete(link.ranUeNgapId);
  }

  // ----- Location Reporting Control (TS 38.413 8.12.1) -----

  #locationReportingControl(link: UeLink, requestType: LocationReportingRequestType): void {
    const answer = this.#config.locationReporting ?? 'respond';
    if (answer === 'silent') return;
    if (answer === 'fail') {
      this.#failReporting(link, 'unspecified');
      return;
    }
    switch (requestType.eventType) {
      case 'direct':
        this.#report(link, requestType);
        return;
      case 'change-of-serve-cell':
        // 8.12.1.2: a report at once, and another whenever the UE's location changes.
        this.#onCellChange.set(link.ranUeNgapId, requestType);
        this.#report(link, requestType);
        return;
      case 'stop-change-of-serve-cell':
      case 'cancel-location-reporting-for-the-ue':
        this.#onCellChange.delete(link.ranUeNgapId);
        return;
      default:
        // Presence in an area of interest is not simulated (8.12.3: Location Reporting Failure Indication).
        this.#failReporting(link, 'unspecified');
        return;
    }
  }

  #report(link: UeLink, requestType: LocationReportingRequestType): void {
    if (link.amfUeNgapId === undefined) return;
    this.#ues.sendForUe(
      locationReport(
        { amfUeNgapId: link.amfUeNgapId, ranUeNgapId: link.ranUeNgapId },
        userLocationInformation(link.servingCell),
        requestType,
      ),
    );
  }

  #failReporting(link: UeLink, cause: 'unspecified'): void {
    if (link.amfUeNgapId === undefined) return;
    this.#ues.sendForUe(
      locationReportingFailureIndication(
        { amfUeNgapId: link.amfUeNgapId, ranUeNgapId: link.ranUeNgapId },
        { choice: 'radioNetwork', value: cause },
      ),
    );
  }

  // ----- NRPPa E-CID (TS 38.455 8.2.1) -----

  #nrppa(link: UeLink, routingId: Uint8Array, bytes: Uint8Array): void {
    const decoded = decodeComplete(bytes, ALIGNED, decodeNRPPAPDU);
    if (!decoded.ok) {
      this.ignored.push({ messageType: 'NRPPa', reason: `undecodable: ${decoded.error}` });
      return;
    }
    const pdu = decoded.value;
    if (pdu.choice !== 'initiatingMessage' || pdu.value.name !== 'e-CIDMeasurementInitiation') {
      // E-CID Measurement Termination and the other procedures: nothing to answer for on-demand E-CID.
      const name = pdu.choice === null ? 'extension' : (pdu.value.name ?? 'unknown');
      this.ignored.push({ messageType: `NRPPa ${name}`, reason: 'not simulated' });
      return;
    }
    const answer = this.#ecid(link, pdu.value.nrppatransactionID, pdu);
    if (answer === undefined || link.amfUeNgapId === undefined) return;
    this.#ues.sendForUe(
      uplinkUeAssociatedNrppaTransport(
        { amfUeNgapId: link.amfUeNgapId, ranUeNgapId: link.ranUeNgapId },
        routingId,
        encodeComplete(answer, ALIGNED, encodeNRPPAPDU),
      ),
    );
  }

  #ecid(link: UeLink, transactionId: number, request: NRPPAPDU): NRPPAPDU | undefined {
    const read = readECIDMeasurementInitiationRequest(request);
    if (!read.ok) {
      this.ignored.push({
        messageType: 'E-CID Measurement Initiation',
        reason: `abstract syntax error: ${read.error}`,
      });
      return undefined;
    }
    const { lmfUeMeasurementId, reportCharacteristics, measurementQuantities } = read.message;
    const answer = this.#config.ecid ?? 'respond';
    if (answer === 'silent') return undefined;
    const fail = (value: 'unspecified' | 'requested-item-not-supported') =>
      ecidMeasurementInitiationFailure({
        transactionId,
        lmfUeMeasurementId,
        cause: { choice: 'radioNetwork', value },
      });
    if (answer === 'fail') return fail('unspecified');
    // 8.2.1.2: periodic reporting needs E-CID Measurement Report procedures the simulator does not run.
    if (reportCharacteristics !== 'onDemand') return fail('requested-item-not-supported');
    const quantities = measurementQuantities.flatMap((item) =>
      item.name === 'MeasurementQuantities-Item' ? [item.value.measurementQuantitiesValue] : [],
    );
    const ranUeMeasurementId = this.#nextRanUeMeasurementId;
    this.#nextRanUeMeasurementId = (ranUeMeasurementId % UE_MEASUREMENT_IDS) + 1;
    return ecidMeasurementInitiationResponse({
      transactionId,
      lmfUeMeasurementId,
      ranUeMeasurementId,
      result: this.#measurementResult(link, new Set(quantities)),
    });
  }

  /** E-CID-MeasurementResult (TS 38.455): the serving cell and what was asked for and measured. */
  #measurementResult(link: UeLink, wanted: ReadonlySet<MeasurementQuantitiesValue>): ECIDMeasurementResult {
    const cell = link.servingCell;
    const measured =
      'eutraCellIdentity' in cell
        ? this.#eutraResults(link.ue.positioning?.radio, wanted)
        : this.#nrResults(link, wanted);
    const accessPoint = this.#config.accessPoint;
    return {
      servingCellID: ngRanCgi(cell),
      servingCellTAC: servingCellTac(cell),
      ...(accessPoint === undefined ? {} : { nGRANAccessPointPosition: accessPointPosition(accessPoint) }),
      ...(measured.length === 0 ? {} : { measuredResults: measured }),
    };
  }

  #nrResults(link: UeLink, wanted: ReadonlySet<MeasurementQuantitiesValue>): MeasuredResultsValue[] {
    const radio = link.ue.positioning?.radio;
    if (radio === undefined) return [];
    const { pci, arfcn } = this.#config;
    const cell = ngRanCgi(link.servingCell);
    const cgi =
      cell.nGRANcell.choice === 'nR-CellID'
        ? { cGINR: { pLMNIdentity: cell.pLMNIdentity, nRcellIdentifier: cell.nGRANcell.value } }
        : {};
    const results: MeasuredResultsValue[] = [];
    if (wanted.has('timingAdvanceNR')) {
      results.push({
        choice: 'choice-Extension',
        value: MeasuredResultsValueExtensionIE.nrTadv(timingAdvanceValue(radio.distanceMetres)),
      });
    }
    if (wanted.has('angleOfArrivalNR') && radio.bearingDegrees !== undefined) {
      results.push({
        choice: 'choice-Extension',
        value: MeasuredResultsValueExtensionIE.angleOfArrivalNr({
          azimuthAoA: nrAzimuthValue(radio.bearingDegrees),
        }),
      });
    }
    if (wanted.has('sS-RSRP') && radio.rsrpDbm !== undefined) {
      results.push({
        choice: 'choice-Extension',
        value: MeasuredResultsValueExtensionIE.resultSsRsrp([
          { nRPCI: pci, nRARFCN: arfcn, ...cgi, valueSSRSRPCell: ssRsrpValue(radio.rsrpDbm) },
        ]),
      });
    }
    if (wanted.has('sS-RSRQ') && radio.rsrqDb !== undefined) {
      results.push({
        choice: 'choice-Extension',
        value: MeasuredResultsValueExtensionIE.resultSsRsrq([
          { nRPCI: pci, nRARFCN: arfcn, ...cgi, valueSSRSRQCell: ssRsrqValue(radio.rsrqDb) },
        ]),
      });
    }
    return results;
  }

  #eutraResults(
    radio: RadioView | undefined,
    wanted: ReadonlySet<MeasurementQuantitiesValue>,
  ): MeasuredResultsValue[] {
    if (radio === undefined) return [];
    const { pci, arfcn } = this.#config;
    const results: MeasuredResultsValue[] = [];
    if (wanted.has('timingAdvanceType1'))
      results.push({
        choice: 'valueTimingAdvanceType1-EUTRA',
        value: timingAdvanceValue(radio.distanceMetres),
      });
    if (wanted.has('angleOfArrival') && radio.bearingDegrees !== undefined)
      results.push({
        choice: 'valueAngleOfArrival-EUTRA',
        value: eutraAngleOfArrivalValue(radio.bearingDegrees),
      });
    if (wanted.has('rSRP') && radio.rsrpDbm !== undefined) {
      results.push({
        choice: 'resultRSRP-EUTRA',
        value: [{ pCIEUTRA: pci, eARFCN: arfcn, valueRSRPEUTRA: eutraRsrpValue(radio.rsrpDbm) }],
      });
    }
    if (wanted.has('rSRQ') && radio.rsrqDb !== undefined) {
      results.push({
        choice: 'resultRSRQ-EUTRA',
        value: [{ pCIEUTRA: pci, eARFCN: arfcn, valueRSRQEUTRA: eutraRsrqValue(radio.rsrqDb) }],
      });
    }
    return results;
  }

  #link(messageType: string, ranUeNgapId: number | undefined): UeLink | undefined {
    const link = ranUeNgapId === undefined ? undefined : this.#ues.link(ranUeNgapId);
    if (link === undefined) this.ignored.push({ messageType, reason: 'unknown RAN UE NGAP ID' });
    return link;
  }
}

/** NG-RAN Access Point Position (TS 38.455): TS 23.032 point with altitude and uncertainty ellipsoid. */
function accessPointPosition(point: NonNullable<GnbPositioning['accessPoint']>) {
  const latitude = codedLatitude(point.latitude);
  const altitude = point.altitudeMetres ?? 0;
  const uncertainty = uncertaintyCode(point.uncertaintyMetres ?? 0);
  return {
    latitudeSign: latitude.sign,
    latitude: latitude.value,
    longitude: codedLongitude(point.longitude),
    directionOfAltitude: altitude < 0 ? ('depth' as const) : ('height' as const),
    altitude: Math.min(32_767, Math.round(Math.abs(altitude))),
    uncertaintySemiMajor: uncertainty,
    uncertaintySemiMinor: uncertainty,
    orientationOfMajorAxis: 0,
    uncertaintyAltitude: 0,
    confidence: 0, // TS 23.032 6.4: 0 is 'no information'
  };
}

/** Throws RangeError for values NRPPa could not carry (a caller's mistake). */
function validateGnbPositioning(config: GnbPositioning): void {
  if (!Number.isInteger(config.pci) || config.pci < 0 || config.pci > 1007)
    throw new RangeError('PCI is 0..1007');
  if (!Number.isInteger(config.arfcn) || config.arfcn < 0 || config.arfcn > 3_279_165)
    throw new RangeError('ARFCN is 0..3279165');
  const point = config.accessPoint;
  if (point === undefined) return;
  if (Math.abs(point.latitude) > 90 || Math.abs(point.longitude) > 180)
    throw new RangeError('access point outside -90..90, -180..180');
}
