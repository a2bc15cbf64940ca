import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeComplete } from '../../../src/network/asn1/complete.ts';
import { toHex } from '../../../src/network/asn1/hex.ts';
import { decodeNRPPAPDU } from '../../../src/network/nrppa/generated/codec.ts';
import type { NRPPAPDU } from '../../../src/network/nrppa/generated/types.ts';
import { viewNRPPAPDU } from '../../../src/network/nrppa/generated/view.ts';
import { tshark } from '../../helpers/tshark.ts';
import { ECID_FAILURE, ECID_REQUEST, encodeNrppa } from './nrppa-samples.ts';

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

// The generator serves NRPPa (TS 38.455, ALIGNED PER) from the same code as NGAP.
describe('generated NRPPa codec', () => {
  const samples = [
    { pdu: ECID_REQUEST, message: 'E_CIDMeasurementInitiationRequest' },
    { pdu: ECID_FAILURE, message: 'E_CIDMeasurementInitiationFailure' },
  ];

  it('round-trips its PDUs', () => {
    for (const { pdu } of samples) {
      const bytes = encodeNrppa(pdu);
      const decoded = decodeComplete(bytes, true, decodeNRPPAPDU);
      assert.ok(decoded.ok);
      assert.deepEqual(json(viewNRPPAPDU(decoded.value, {})), json(viewNRPPAPDU(pdu, {})));
      assert.equal(toHex(encodeNrppa(decoded.value)), toHex(bytes));
    }
    assert.deepEqual(json(viewNRPPAPDU(ECID_FAILURE, {})), {
      unsuccessful_outcome: {
        procedure_code: 'e-CIDMeasurementInitiation',
        criticality: 'Reject (0)',
        nrppatransaction_id: 7,
        value: {
          e_cid_measurement_initiation_failure: {
            ies: [
              { id: 'LMF-UE-Measurement-ID (2)', criticality: 'Reject (0)', lmf_ue_measurement_id: 1 },
              { id: 'Cause (0)', criticality: 'Ignore (1)', cause: { misc: 'unspecified' } },
            ],
          },
        },
      },
    });
  });

  it('names each IE after the IE, so two IEs of one type stay apart', () => {
    // E-CID Measurement Termination (TS 38.455 9.1.1.4): LMF- and RAN-UE-Measurement-ID are both of
    // type UE-Measurement-ID.
    const pdu: NRPPAPDU = {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 5,
        name: 'e-CIDMeasurementTermination',
        criticality: 'ignore',
        nrppatransactionID: 8,
        value: {
          protocolIEs: [
            { id: 2, name: 'LMF-UE-Measurement-ID', criticality: 'reject', value: 1 },
            { id: 6, name: 'RAN-UE-Measurement-ID', criticality: 'reject', value: 2 },
          ],
        },
      },
    };
    const decoded = decodeComplete(encodeNrppa(pdu), true, decodeNRPPAPDU);
    assert.ok(decoded.ok);
    const view = json(viewNRPPAPDU(decoded.value, {})) as {
      initiating_message: { value: { e_cid_measurement_termination_command: { ies: unknown[] } } };
    };
    assert.deepEqual(view.initiating_message.value.e_cid_measurement_termination_command.ies, [
      { id: 'LMF-UE-Measurement-ID (2)', criticality: 'Reject (0)', lmf_ue_measurement_id: 1 },
      { id: 'RAN-UE-Measurement-ID (6)', criticality: 'Reject (0)', ran_ue_measurement_id: 2 },
    ]);
  });

  it('tshark reads them as the intended messages, clean', async () => {
    const verdicts = await tshark(
      'nrppa',
      samples.map(({ pdu }) => encodeNrppa(pdu)),
    );
    samples.forEach(({ message }, index) => {
      // Wireshark's NRPPa dissector names the procedure in the Info column; the NGAP samples check the
      // message itself in the dissection tree (test/network/ngap/tshark.test.ts).
      assert.equal(verdicts[index]!.info, 'id-e-CIDMeasurementInitiation', message);
      assert.equal(verdicts[index]!.malformed, false);
      assert.equal(verdicts[index]!.expert, '');
    });
  });
});
