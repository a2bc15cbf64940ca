import {
  buildDownlinkUEAssociatedNRPPaTransport,
  buildLocationReportingControl,
} from '../../ngap/generated/messages.ts';
import type { NGAPPDU } from '../../ngap/generated/types.ts';
import type { UeNgapIds } from './ue-ngap-messages.ts';

/**
 * The UE-associated PDUs the AMF sends for location (TS 38.413 8.12, 8.13), through the generated
 * message builders.
 */

/**
 * LOCATION REPORTING CONTROL (TS 38.413 9.2.9.1): one report of the current cell, at once (event type
 * `direct`, report area `cell`, 9.3.1.65).
 */
export function locationReportingControl(ids: UeNgapIds): NGAPPDU {
  return buildLocationReportingControl({
    ...ids,
    locationReportingRequestType: { eventType: 'direct', reportArea: 'cell' },
  });
}

/** DOWNLINK UE ASSOCIATED NRPPA TRANSPORT (TS 38.413 9.2.10.1): an NRPPa PDU for the UE's radio. */
export function downlinkUeAssociatedNrppaTransport(
  ids: UeNgapIds,
  routingId: Uint8Array,
  nrppaPdu: Uint8Array,
): NGAPPDU {
  return buildDownlinkUEAssociatedNRPPaTransport({
    amfUeNgapId: ids.amfUeNgapId,
    ranUeNgapId: ids.ranUeNgapId,
    routingId,
    nrppaPdu,
  });
}
