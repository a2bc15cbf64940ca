// The PDUs a simulated NG-RAN node sends for location: NGAP Location Report, Location Reporting Failure
// Indication and Uplink UE Associated NRPPa Transport (TS 38.413 9.2.8, 9.2.9), and inside the latter the
// NRPPa E-CID Measurement Initiation Response or Failure (TS 38.455 9.1.1), through the generated message
// builders of each protocol.
import { bitStringOf } from '../network/asn1/bit-string.ts';
import {
  buildLocationReport,
  buildLocationReportingFailureIndication,
  buildUplinkUEAssociatedNRPPaTransport,
} from '../network/ngap/generated/messages.ts';
import type {
  Cause,
  LocationReportingRequestType,
  NGAPPDU,
  UserLocationInformation,
} from '../network/ngap/generated/types.ts';
import {
  buildECIDMeasurementInitiationFailure,
  buildECIDMeasurementInitiationResponse,
} from '../network/nrppa/generated/messages.ts';
import type {
  Cause as NrppaCause,
  ECIDMeasurementResult,
  NGRANCGI,
  NRPPAPDU,
} from '../network/nrppa/generated/types.ts';
import { plmnIdentity, tac } from '../network/ngap/ngap-values.ts';
import type { ServingCell } from './ue/ran-ue-messages.ts';

interface UeIds {
  amfUeNgapId: number;
  ranUeNgapId: number;
}

/** LOCATION REPORT (TS 38.413 9.2.9.2), echoing the request it answers. */
export function locationReport(
  ids: UeIds,
  location: UserLocationInformation,
  requestType: LocationReportingRequestType,
): NGAPPDU {
  return buildLocationReport({
    ...ids,
    userLocationInformation: location,
    locationReportingRequestType: requestType,
  });
}

/** LOCATION REPORTING FAILURE INDICATION (TS 38.413 9.2.9.3). */
export function locationReportingFailureIndication(ids: UeIds, cause: Cause): NGAPPDU {
  return buildLocationReportingFailureIndication({ ...ids, cause });
}

/** UPLINK UE ASSOCIATED NRPPA TRANSPORT (TS 38.413 9.2.8.2). */
export function uplinkUeAssociatedNrppaTransport(
  ids: UeIds,
  routingId: Uint8Array,
  nrppaPdu: Uint8Array,
): NGAPPDU {
  return buildUplinkUEAssociatedNRPPaTransport({ ...ids, routingId, nrppaPdu });
}

/** The serving cell as NRPPa names it (the NG-RAN CGI IE of TS 38.455). */
export function ngRanCgi(cell: ServingCell): NGRANCGI {
  return {
    pLMNIdentity: plmnIdentity(cell.plmn.mcc, cell.plmn.mnc),
    nGRANcell:
      'eutraCellIdentity' in cell
        ? { choice: 'eUTRA-CellID', value: bitStringOf(cell.eutraCellIdentity, 28) }
        : { choice: 'nR-CellID', value: bitStringOf(BigInt(cell.nrCellIdentity), 36) },
  };
}

export const servingCellTac = (cell: ServingCell): Uint8Array => tac(cell.tac);

/** E-CID MEASUREMENT INITIATION RESPONSE (TS 38.455 9.1.1.2), in the request's transaction. */
export function ecidMeasurementInitiationResponse(input: {
  transactionId: number;
  lmfUeMeasurementId: number;
  ranUeMeasurementId: number;
  result: ECIDMeasurementResult;
}): NRPPAPDU {
  return buildECIDMeasurementInitiationResponse(
    {
      lmfUeMeasurementId: input.lmfUeMeasurementId,
      ranUeMeasurementId: input.ranUeMeasurementId,
      eCidMeasurementResult: input.result,
    },
    { nrppatransactionID: input.transactionId },
  );
}

/** E-CID MEASUREMENT INITIATION FAILURE (TS 38.455 9.1.1.3). */
export function ecidMeasurementInitiationFailure(input: {
  transactionId: number;
  lmfUeMeasurementId: number;
  cause: NrppaCause;
}): NRPPAPDU {
  return buildECIDMeasurementInitiationFailure(
    { lmfUeMeasurementId: input.lmfUeMeasurementId, cause: input.cause },
    { nrppatransactionID: input.transactionId },
  );
}
