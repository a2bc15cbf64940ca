import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeNrppaPdu, encodeNrppaPdu } from '../../../src/network/lmf/nrppa-codec.ts';
import { ecidMeasurementInitiationRequest } from '../../../src/network/lmf/nrppa-ecid.ts';
import {
  buildECIDMeasurementInitiationFailure,
  readECIDMeasurementInitiationFailure,
  readECIDMeasurementInitiationRequest,
  readECIDMeasurementInitiationResponse,
} from '../../../src/network/nrppa/generated/messages.ts';
import {
  MeasuredResultsValueExtensionIE,
  MeasurementQuantitiesItemIEs,
} from '../../../src/network/nrppa/generated/single-ies.ts';
import type { NRPPAPDU } from '../../../src/network/nrppa/generated/types.ts';
import { tshark } from '../../helpers/tshark.ts';
import { ECID_FAILURE, ECID_REQUEST } from './nrppa-samples.ts';

/** What the peer receives: the PDU through the PER codec. */
function overTheWire(pdu: NRPPAPDU): NRPPAPDU {
  const decoded = decodeNrppaPdu(encodeNrppaPdu(pdu));
  assert.ok(decoded.ok, decoded.ok ? '' : decoded.error);
  return decoded.value;
}

describe('generated NRPPa message functions (TS 38.455 9.1, 10.3)', () => {
  it('builds what the hand-written samples spell out: procedure, transaction id, IE ids and criticalities', () => {
    const built = buildECIDMeasurementInitiationFailure(
      { lmfUeMeasurementId: 1, cause: { choice: 'misc', value: 'unspecified' } },
      { nrppatransactionID: 7 },
    );
    assert.deepEqual(encodeNrppaPdu(built), encodeNrppaPdu(ECID_FAILURE));
    // The LMF's request for an NR cell with only cell-ID asked would be the sample; here: same header.
    const request = ecidMeasurementInitiationRequest(7, 1, 'nr');
    assert.ok(request.choice === 'initiatingMessage');
    assert.equal(request.value.nrppatransactionID, 7);
    assert.equal(request.value.procedureCode, 2);
  });

  it('round trips the LMF request build -> encode -> decode -> read', () => {
    const read = readECIDMeasurementInitiationRequest(
      overTheWire(ecidMeasurementInitiationRequest(9, 4, 'nr')),
    );
    assert.ok(read.ok);
    assert.equal(read.message.lmfUeMeasurementId, 4);
    assert.equal(read.message.reportCharacteristics, 'onDemand');
    assert.deepEqual(
      read.message.measurementQuantities.map((item) =>
        item.name === 'MeasurementQuantities-Item' ? item.value.measurementQuantitiesValue : undefined,
      ),
      ['cell-ID', 'timingAdvanceNR', 'angleOfArrivalNR', 'sS-RSRP', 'sS-RSRQ'],
    );
    const failure = readECIDMeasurementInitiationFailure(overTheWire(ECID_FAILURE));
    assert.deepEqual(failure, {
      ok: true,
      message: { lmfUeMeasurementId: 1, cause: { choice: 'misc', value: 'unspecified' } },
      notify: [],
    });
  });

  it('fails on a missing IE of criticality reject, reads a missing one of criticality ignore as absent', () => {
    assert.ok(
      ECID_FAILURE.choice === 'unsuccessfulOutcome' &&
        ECID_FAILURE.value.name === 'e-CIDMeasurementInitiation',
    );
    const ies = ECID_FAILURE.value.value.protocolIEs;
    assert.deepEqual(readECIDMeasurementInitiationFailure(ies.filter((ie) => ie.id !== 2)), {
      ok: false,
      error: 'reject',
      ies: [{ id: 2, criticality: 'reject', typeOfError: 'missing' }],
    });
    const withoutCause = readECIDMeasurementInitiationFailure(ies.filter((ie) => ie.id !== 0));
    assert.deepEqual(withoutCause, { ok: true, message: { lmfUeMeasurementId: 1 }, notify: [] });
    assert.deepEqual(readECIDMeasurementInitiationResponse(ECID_REQUEST), {
      ok: false,
      error: 'other-message',
    });
  });

  it('builds single-IE containers with the id and criticality of their object sets (TS 38.455 9.3)', () => {
    // id-MeasurementQuantities-Item 11, reject; id-NR-TADV 94, id-ResultSS-RSRP 32, ignore.
    assert.deepEqual(
      MeasurementQuantitiesItemIEs.measurementQuantitiesItem({ measurementQuantitiesValue: 'cell-ID' }),
      {
        id: 11,
        name: 'MeasurementQuantities-Item',
        criticality: 'reject',
        value: { measurementQuantitiesValue: 'cell-ID' },
      },
    );
    assert.deepEqual(MeasuredResultsValueExtensionIE.nrTadv(12), {
      id: 94,
      name: 'NR-TADV',
      criticality: 'ignore',
      value: 12,
    });
    assert.deepEqual(MeasuredResultsValueExtensionIE.resultSsRsrp([]), {
      id: 32,
      name: 'ResultSS-RSRP',
      criticality: 'ignore',
      value: [],
    });
  });

  it('tshark reads the built request clean', async () => {
    const [verdict] = await tshark('nrppa', [
      encodeNrppaPdu(ecidMeasurementInitiationRequest(7, 1, 'eutra')),
    ]);
    assert.equal(verdict!.info, 'id-e-CIDMeasurementInitiation');
    assert.equal(verdict!.malformed, false);
    assert.equal(verdict!.expert, '');
  });
});
