import type { NGAPPDU } from '../ngap/generated/types.ts';
import type { UeNgapIds } from './ue-ngap-messages.ts';

/**
 * The UE-associated PDUs the AMF sends for location (TS 38.413 8.12, 8.13), with the criticalities of
 * NGAP-PDU-Contents and NGAP-PDU-Descriptions.
 */

/**
 * LOCATION REPORTING CONTROL (TS 38.413 9.2.9.1): one report of the current cell, at once (event type
 * `direct`, report area `cell`, 9.3.1.65).
 */
export function locationReportingControl(ids: UeNgapIds): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 16,
      name: 'LocationReportingControl',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amfUeNgapId },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ranUeNgapId },
          {
            id: 33,
            name: 'LocationReportingRequestType',
            criticality: 'ignore',
            value: { eventType: 'direct', reportArea: 'cell' },
          },
        ],
      },
    },
  };
}

/** DOWNLINK UE ASSOCIATED NRPPA TRANSPORT (TS 38.413 9.2.10.1): an NRPPa PDU for the UE's radio. */
export function downlinkUeAssociatedNrppaTransport(
  ids: UeNgapIds,
  routingId: Uint8Array,
  nrppaPdu: Uint8Array,
): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 8,
      name: 'DownlinkUEAssociatedNRPPaTransport',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amfUeNgapId },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ranUeNgapId },
          { id: 89, name: 'RoutingID', criticality: 'reject', value: routingId },
          { id: 46, name: 'NRPPa-PDU', criticality: 'reject', value: nrppaPdu },
        ],
      },
    },
  };
}
