// The target device's side of LPP (TS 37.355) in a simulated UE: it answers the location server's Request
// Capabilities and Request Location Information (NR E-CID, E-UTRA E-CID, A-GNSS standalone) from its
// positioning configuration, carried in DL/UL NAS Transport with payload container type LPP (TS 24.501
// 5.4.5). It never throws on what the network sends: an undecodable LPP message is answered with an LPP
// Error, anything else it does not act on is left unanswered.
import { bitStringOf } from '../../network/asn1/bit-string.ts';
import { decodeComplete, encodeComplete } from '../../network/asn1/complete.ts';
import { decodeLPPMessage, encodeLPPMessage } from '../../network/lpp/generated/codec.ts';
import type {
  AGNSSProvideCapabilities,
  CommonIEsProvideLocationInformation,
  ECIDProvideLocationInformation,
  LPPMessage,
  LPPMessageBody_c1,
  LPPTransactionID,
  MeasuredResultsElement,
  NRECIDProvideLocationInformationr16,
  NRMeasuredResultsElementr16,
  ProvideCapabilitiesr9IEs,
  ProvideLocationInformationr9IEs,
  RequestCapabilitiesr9IEs,
  RequestLocationInformationr9IEs,
} from '../../network/lpp/generated/types.ts';
import type { NasMessageOf } from '../../network/nas/message-codec.ts';
import {
  codedLatitude,
  codedLongitude,
  eutraRsrpValue,
  eutraRsrqValue,
  ssRsrpValue,
  ssRsrqValue,
  uncertaintyCode,
} from '../location-values.ts';
import type { ServingCell } from './ran-ue-messages.ts';
import type { EutraCellMeasurement, NrCellMeasurement, UePositioning } from './ue-positioning.ts';

/** Payload container type LPP (TS 24.501 9.11.3.40). */
const PAYLOAD_CONTAINER_LPP = 3;

/** LPP is BASIC-PER, unaligned (TS 37.355 6.1). */
const ALIGNED = false;

interface LppContext {
  /** The cell the UE is served by: its global id goes with the primary cell's measurements. */
  cell: ServingCell;
  /** Now, in Unix milliseconds: the GNSS fix's time of day (gnss-TOD-msec). */
  nowMs: number;
}

/**
 * The UL NAS Transport answering a DL NAS Transport that carries LPP, or undefined when there is nothing
 * to send (another payload, a message the device does not answer, or silence on purpose). The routing
 * information the network gave in Additional information goes back with the answer (TS 24.501 5.4.5.2.1).
 */
export function lppUplink(
  message: NasMessageOf<'dlNasTransport'>,
  positioning: UePositioning,
  context: LppContext,
): NasMessageOf<'ulNasTransport'> | undefined {
  if (message.payloadContainerType !== PAYLOAD_CONTAINER_LPP) return undefined;
  const answer = answerLpp(message.payloadContainer, positioning, context);
  if (answer === undefined) return undefined;
  return {
    messageType: 'ulNasTransport',
    payloadContainerType: PAYLOAD_CONTAINER_LPP,
    payloadContainer: encodeComplete(answer, ALIGNED, encodeLPPMessage),
    ...(message.additionalInformation === undefined
      ? {}
      : { additionalInformation: message.additionalInformation }),
  };
}

/** The device's LPP answer to one LPP message from the location server, if any. */
export function answerLpp(
  bytes: Uint8Array,
  positioning: UePositioning,
  context: LppContext,
): LPPMessage | undefined {
  const decoded = decodeComplete(bytes, ALIGNED, decodeLPPMessage);
  // TS 37.355 4.3.3 (error handling): a message the receiver cannot decode is answered by LPP Error.
  if (!decoded.ok) return lppError();
  const request = decoded.value;
  const body = request.lppMessageBody;
  const transactionID = request.transactionID;
  if (body?.choice !== 'c1' || transactionID === undefined) return undefined;
  const message = body.value;
  switch (message.choice) {
    case 'requestCapabilities': {
      const extensions = message.value.criticalExtensions;
      if (extensions.choice !== 'c1' || extensions.value.choice !== 'requestCapabilities-r9')
        return undefined;
      return ending(transactionID, {
        choice: 'provideCapabilities',
        value: {
          criticalExtensions: {
            choice: 'c1',
            value: {
              choice: 'provideCapabilities-r9',
              value: provideCapabilities(extensions.value.value, positioning),
            },
          },
        },
      });
    }
    case 'requestLocationInformation': {
      const extensions = message.value.criticalExtensions;
      if (extensions.choice !== 'c1' || extensions.value.choice !== 'requestLocationInformation-r9')
        return undefined;
      const provided = provideLocationInformation(extensions.value.value, positioning, context);
      if (provided === undefined) return undefined;
      return ending(transactionID, {
        choice: 'provideLocationInformation',
        value: {
          criticalExtensions: {
            choice: 'c1',
            value: { choice: 'provideLocationInformation-r9', value: provided },
          },
        },
      });
    }
    default:
      // Assistance data, Abort, Error and the rest: nothing a target device answers (TS 37.355 5).
      return undefined;
  }
}

/** The device's response, which ends the location server's transaction (TS 37.355 5.1.1, 5.3.1). */
function ending(transactionID: LPPTransactionID, body: LPPMessageBody_c1): LPPMessage {
  return { transactionID, endTransaction: true, lppMessageBody: { choice: 'c1', value: body } };
}

function lppError(): LPPMessage {
  return {
    endTransaction: false,
    lppMessageBody: {
      choice: 'c1',
      value: {
        choice: 'error',
        value: { choice: 'error-r9', value: { commonIEsError: { errorCause: 'lppMessageBodyError' } } },
      },
    },
  };
}

/**
 * Provide Capabilities (TS 37.355 6.2): for each method asked about, what the device supports; a method it
 * does not support is left out.
 */
function provideCapabilities(
  request: RequestCapabilitiesr9IEs,
  { capabilities }: UePositioning,
): ProvideCapabilitiesr9IEs {
  const provided: ProvideCapabilitiesr9IEs = {};
  // nr-ECID-MeasSupported-r16: ssrsrpSup (0), ssrsrqSup (1) (TS 37.355 6.5.12.2).
  if (request.nrECIDRequestCapabilitiesR16 !== undefined && capabilities.nrEcid)
    provided.nrECIDProvideCapabilitiesR16 = { nrECIDMeasSupportedR16: bitStringOf(0b11, 2) };
  // ecid-MeasSupported: rsrpSup (0), rsrqSup (1) (TS 37.355 6.5.3.2).
  if (request.ecidRequestCapabilities !== undefined && capabilities.ecid)
    provided.ecidProvideCapabilities = { ecidMeasSupported: bitStringOf(0b11, 2) };
  if (request.aGnssRequestCapabilities !== undefined && capabilities.agnss)
    provided.aGnssProvideCapabilities = gnssCapabilities();
  return provided;
}

/** GPS L1 C/A, standalone only, a location estimate as a point with an uncertainty circle (TS 37.355 6.5.2.10). */
function gnssCapabilities(): AGNSSProvideCapabilities {
  return {
    gnssSupportList: [
      {
        gnssID: { gnssId: 'gps' },
        agnssModes: { posModes: bitStringOf(1, 1) }, // standalone (0)
        gnssSignals: { gnssSignalIDs: bitStringOf(0x80, 8) }, // GPS L1 C/A: bit 0 (TS 37.355 6.5.2.2 GNSS-SignalID)
        adrSupport: false,
        velocityMeasurementSupport: false,
      },
    ],
    locationCoordinateTypes: {
      ellipsoidPoint: true,
      ellipsoidPointWithUncertaintyCircle: true,
      ellipsoidPointWithUncertaintyEllipse: false,
      polygon: false,
      ellipsoidPointWithAltitude: false,
      ellipsoidPointWithAltitudeAndUncertaintyEllipsoid: false,
      ellipsoidArc: false,
    },
  };
}

/** Is named bit `bit` set in a BIT STRING (bit 0 is the first)? */
function bitSet(value: { bytes: Uint8Array; length: number }, bit: number): boolean {
  if (bit >= value.length) return false;
  return ((value.bytes[bit >> 3] ?? 0) & (0x80 >> (bit & 7))) !== 0;
}

/**
 * Provide Location Information (TS 37.355 6.3): the measurements or estimate for each method requested,
 * or that method's error. Undefined when the device stays silent (a GNSS request it is set to ignore).
 */
function provideLocationInformation(
  request: RequestLocationInformationr9IEs,
  positioning: UePositioning,
  context: LppContext,
): ProvideLocationInformationr9IEs | undefined {
  const provided: ProvideLocationInformationr9IEs = {};
  const nr = request.nrECIDRequestLocationInformationR16;
  if (nr !== undefined) {
    // requestedMeasurements-r16: ssrsrpReq (0), ssrsrqReq (1).
    const wanted = {
      rsrp: bitSet(nr.requestedMeasurementsR16, 0),
      rsrq: bitSet(nr.requestedMeasurementsR16, 1),
    };
    provided.nrECIDProvideLocationInformationR16 = nrEcid(positioning, wanted, context.cell);
  }
  const eutra = request.ecidRequestLocationInformation;
  if (eutra !== undefined) {
    // requestedMeasurements: rsrpReq (0), rsrqReq (1), ueRxTxReq (2): Rx-Tx is not simulated.
    const wanted = {
      rsrp: bitSet(eutra.requestedMeasurements, 0),
      rsrq: bitSet(eutra.requestedMeasurements, 1),
    };
    provided.ecidProvideLocationInformation = eutraEcid(positioning, wanted, context.cell);
  }
  if (request.aGnssRequestLocationInformation !== undefined) {
    const gnss = positioning.gnss ?? { kind: 'silent' };
    if (!positioning.capabilities.agnss) {
      provided.commonIEsProvideLocationInformation = {
        locationError: { locationfailurecause: 'requestedMethodNotSupported' },
      };
    } else if (gnss.kind === 'silent') {
      if (nr === undefined && eutra === undefined) return undefined;
    } else if (gnss.kind === 'error') {
      provided.commonIEsProvideLocationInformation = {
        locationError: { locationfailurecause: 'positionMethodFailure' },
      };
      provided.aGnssProvideLocationInformation = {
        gnssError: {
          choice: 'targetDeviceErrorCauses',
          value: { cause: 'thereWereNotEnoughSatellitesReceived' },
        },
      };
    } else {
      provided.commonIEsProvideLocationInformation = gnssEstimate(gnss);
      provided.aGnssProvideLocationInformation = {
        gnssLocationInformation: {
          // gnss-TOD-msec: the fix's time within the GNSS hour, 0..3599999 ms (TS 37.355 6.5.2.6).
          measurementReferenceTime: { gnssTODMsec: context.nowMs % 3_600_000, gnssTimeID: { gnssId: 'gps' } },
          agnssList: { gnssIds: bitStringOf(1, 1) }, // gps (0)
        },
      };
    }
  }
  if (nr === undefined && eutra === undefined && request.aGnssRequestLocationInformation === undefined) {
    provided.commonIEsProvideLocationInformation = {
      locationError: { locationfailurecause: 'requestedMethodNotSupported' },
    };
  }
  return provided;
}

function gnssEstimate(fix: {
  latitude: number;
  longitude: number;
  uncertaintyMetres: number;
}): CommonIEsProvideLocationInformation {
  const latitude = codedLatitude(fix.latitude);
  return {
    locationEstimate: {
      choice: 'ellipsoidPointWithUncertaintyCircle',
      value: {
        latitudeSign: latitude.sign,
        degreesLatitude: latitude.value,
        degreesLongitude: codedLongitude(fix.longitude),
        uncertainty: uncertaintyCode(fix.uncertaintyMetres),
      },
    },
  };
}

type Wanted = { rsrp: boolean; rsrq: boolean };

const requestedMeasurementNotAvailable = 'requestedMeasurementNotAvailable' as const;

function nrEcid(
  positioning: UePositioning,
  wanted: Wanted,
  cell: ServingCell,
): NRECIDProvideLocationInformationr16 {
  const [primary, ...neighbours] = positioning.nrCells ?? [];
  if (!positioning.capabilities.nrEcid || primary === undefined) {
    return {
      nrECIDErrorR16: {
        choice: 'targetDeviceErrorCauses-r16',
        value: { causeR16: requestedMeasurementNotAvailable },
      },
    };
  }
  const primaryResults = nrMeasured(primary, wanted);
  if ('nrCellIdentity' in cell) {
    primaryResults.nrCellGlobalIDR16 = {
      mccR15: digits(cell.plmn.mcc),
      mncR15: digits(cell.plmn.mnc),
      nrCellidentityR15: bitStringOf(BigInt(cell.nrCellIdentity), 36),
    };
  }
  return {
    nrECIDSignalMeasurementInformationR16: {
      nrPrimaryCellMeasuredResultsR16: primaryResults,
      ...(neighbours.length === 0
        ? {}
        : {
            nrMeasuredResultsListR16: neighbours.map((neighbour) => ({
              ...nrMeasured(neighbour, wanted),
              ...(neighbour.nrCellIdentity === undefined
                ? {}
                : {
                    nrCellGlobalIDR16: {
                      mccR15: digits(cell.plmn.mcc),
                      mncR15: digits(cell.plmn.mnc),
                      nrCellidentityR15: bitStringOf(BigInt(neighbour.nrCellIdentity), 36),
                    },
                  }),
            })),
          }),
    },
  };
}

function nrMeasured(cell: NrCellMeasurement, wanted: Wanted): NRMeasuredResultsElementr16 {
  const beams = cell.ssbBeams ?? [];
  return {
    nrPhysCellIDR16: cell.pci,
    nrARFCNR16: { choice: 'ssb-ARFCN-r16', value: cell.ssbArfcn },
    resultsSSBCellR16: results(wanted, ssRsrpValue(cell.ssRsrpDbm), ssRsrqValue(cell.ssRsrqDb)),
    ...(beams.length === 0
      ? {}
      : {
          resultsSSBIndexesR16: beams.map((beam) => ({
            ssbIndexR16: beam.index,
            ssbResultsR16: results(wanted, ssRsrpValue(beam.rsrpDbm), ssRsrqValue(beam.rsrqDb)),
          })),
        }),
  };
}

function results(wanted: Wanted, rsrp: number, rsrq: number): { nrRSRPR16?: number; nrRSRQR16?: number } {
  return { ...(wanted.rsrp ? { nrRSRPR16: rsrp } : {}), ...(wanted.rsrq ? { nrRSRQR16: rsrq } : {}) };
}

function eutraEcid(
  positioning: UePositioning,
  wanted: Wanted,
  cell: ServingCell,
): ECIDProvideLocationInformation {
  const [primary, ...neighbours] = positioning.eutraCells ?? [];
  if (!positioning.capabilities.ecid || primary === undefined) {
    return {
      ecidError: { choice: 'targetDeviceErrorCauses', value: { cause: requestedMeasurementNotAvailable } },
    };
  }
  const primaryResults = eutraMeasured(primary, wanted);
  if ('eutraCellIdentity' in cell) {
    primaryResults.cellGlobalId = {
      plmnIdentity: { mcc: digits(cell.plmn.mcc), mnc: digits(cell.plmn.mnc) },
      cellIdentity: { choice: 'eutra', value: bitStringOf(cell.eutraCellIdentity, 28) },
    };
  }
  // measuredResultsList is mandatory: the primary cell's results head it when there is no neighbour.
  return {
    ecidSignalMeasurementInformation: {
      primaryCellMeasuredResults: primaryResults,
      measuredResultsList: (neighbours.length === 0 ? [primary] : neighbours).map((neighbour) => ({
        ...eutraMeasured(neighbour, wanted),
        ...(neighbour.eutraCellIdentity === undefined
          ? {}
          : {
              cellGlobalId: {
                plmnIdentity: { mcc: digits(cell.plmn.mcc), mnc: digits(cell.plmn.mnc) },
                cellIdentity: {
                  choice: 'eutra' as const,
                  value: bitStringOf(neighbour.eutraCellIdentity, 28),
                },
              },
            }),
      })),
    },
  };
}

function eutraMeasured(cell: EutraCellMeasurement, wanted: Wanted): MeasuredResultsElement {
  return {
    physCellId: cell.pci,
    arfcnEUTRA: cell.earfcn,
    ...(wanted.rsrp ? { rsrpResult: eutraRsrpValue(cell.rsrpDbm) } : {}),
    ...(wanted.rsrq ? { rsrqResult: eutraRsrqValue(cell.rsrqDb) } : {}),
  };
}

const digits = (text: string): number[] => [...text].map(Number);
