import { encodeComplete } from '../../../src/network/asn1/complete.ts';
import { encodeNRPPAPDU } from '../../../src/network/nrppa/generated/codec.ts';
import type { NRPPAPDU } from '../../../src/network/nrppa/generated/types.ts';

/** NRPPa (TS 38.455 8.2.1) E-CID Measurement Initiation: what an LMF sends to a gNB through the AMF. */
export const ECID_REQUEST: NRPPAPDU = {
  choice: 'initiatingMessage',
  value: {
    procedureCode: 2,
    name: 'e-CIDMeasurementInitiation',
    criticality: 'reject',
    nrppatransactionID: 7,
    value: {
      protocolIEs: [
        { id: 2, name: 'LMF-UE-Measurement-ID', criticality: 'reject', value: 1 },
        { id: 3, name: 'ReportCharacteristics', criticality: 'reject', value: 'onDemand' },
        {
          id: 5,
          name: 'MeasurementQuantities',
          criticality: 'reject',
          value: [
            {
              id: 11,
              name: 'MeasurementQuantities-Item',
              criticality: 'reject',
              value: { measurementQuantitiesValue: 'cell-ID' },
            },
          ],
        },
      ],
    },
  },
};

/** The gNB's refusal (TS 38.455 8.2.1.3). */
export const ECID_FAILURE: NRPPAPDU = {
  choice: 'unsuccessfulOutcome',
  value: {
    procedureCode: 2,
    name: 'e-CIDMeasurementInitiation',
    criticality: 'reject',
    nrppatransactionID: 7,
    value: {
      protocolIEs: [
        { id: 2, name: 'LMF-UE-Measurement-ID', criticality: 'reject', value: 1 },
        { id: 0, name: 'Cause', criticality: 'ignore', value: { choice: 'misc', value: 'unspecified' } },
      ],
    },
  },
};

export function encodeNrppa(pdu: NRPPAPDU): Uint8Array {
  return encodeComplete(pdu, true, encodeNRPPAPDU);
}
