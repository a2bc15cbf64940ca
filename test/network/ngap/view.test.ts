import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromHex, toHex } from '../../../src/network/asn1/hex.ts';
import { decodeNgapPdu, encodeNgapPdu, viewNgapPdu } from '../../../src/network/ngap/ngap-codec.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../../../src/network/ngap/ngap-values.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { SAMPLES } from './samples.ts';
import { FREE5GC_NG_SETUP_UNKNOWN_IE, ngapVectors } from './vectors.ts';

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function sample(message: string): Uint8Array {
  const found = SAMPLES.find((s) => s.message === message);
  assert.ok(found, message);
  return encodeNgapPdu(found.pdu);
}

// The `decoded` JSON view of network.md section 3.
describe('NGAP JSON view', () => {
  it('shows an NGSetupRequest as the contract example does', () => {
    assert.deepEqual(json(viewNgapPdu(sample('NGSetupRequest'))), {
      initiating_message: {
        procedure_code: 'NGSetup',
        criticality: 'Reject (0)',
        value: {
          ng_setup_request: {
            ies: [
              {
                id: 'GlobalRANNodeID (27)',
                criticality: 'Reject (0)',
                global_ran_node_id: {
                  global_gnb_id: { plmn_identity: { mcc: '001', mnc: '01' }, gnb_id: '000001' },
                },
              },
              { id: 'RANNodeName (82)', criticality: 'Ignore (1)', ran_node_name: 'gnb-1' },
              {
                id: 'SupportedTAList (102)',
                criticality: 'Reject (0)',
                supported_ta_list: [
                  {
                    tac: '000001',
                    broadcast_plmn_list: [
                      {
                        plmn_identity: { mcc: '001', mnc: '01' },
                        tai_slice_support_list: [{ s_nssai: { sst: '01', sd: '000001' } }],
                      },
                    ],
                  },
                ],
              },
              { id: 'DefaultPagingDRX (21)', criticality: 'Ignore (1)', default_paging_drx: 'v128' },
            ],
          },
        },
      },
    });
  });

  it('names each IE after the IE, not its type, so two IEs of one type stay apart', () => {
    // UEContextModificationRequest (TS 38.413 9.2.2.7): AMF-UE-NGAP-ID and NewAMF-UE-NGAP-ID are
    // both of type AMF-UE-NGAP-ID.
    const pdu: NGAPPDU = {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 40,
        name: 'UEContextModification',
        criticality: 'reject',
        value: {
          protocolIEs: [
            { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: 7 },
            { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: 9 },
            { id: 40, name: 'NewAMF-UE-NGAP-ID', criticality: 'reject', value: 2 ** 33 + 1 },
          ],
        },
      },
    };
    const view = json(viewNgapPdu(encodeNgapPdu(pdu))) as {
      initiating_message: { value: { ue_context_modification_request: { ies: unknown[] } } };
    };
    assert.deepEqual(view.initiating_message.value.ue_context_modification_request.ies, [
      { id: 'AMF-UE-NGAP-ID (10)', criticality: 'Reject (0)', amf_ue_ngap_id: 7 },
      { id: 'RAN-UE-NGAP-ID (85)', criticality: 'Reject (0)', ran_ue_ngap_id: 9 },
      { id: 'NewAMF-UE-NGAP-ID (40)', criticality: 'Reject (0)', new_amf_ue_ngap_id: 8589934593 },
    ]);
  });

  it('names an extension IE after the IE too', () => {
    // UserLocationInformationNR's PSCellInformation extension (TS 38.413 9.3.1.16) is of type NGRAN-CGI.
    const cgi = { nRCGI: { pLMNIdentity: plmnIdentity('001', '01'), nRCellIdentity: bits(16, 36) } };
    const pdu: NGAPPDU = {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 46,
        name: 'UplinkNASTransport',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: 7 },
            { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: 9 },
            { id: 38, name: 'NAS-PDU', criticality: 'reject', value: Uint8Array.of(0x7e, 0x00) },
            {
              id: 121,
              name: 'UserLocationInformation',
              criticality: 'ignore',
              value: {
                choice: 'userLocationInformationNR',
                value: {
                  ...cgi,
                  tAI: { pLMNIdentity: plmnIdentity('001', '01'), tAC: tac(1) },
                  iEExtensions: [
                    {
                      id: 149,
                      name: 'PSCellInformation',
                      criticality: 'ignore',
                      extensionValue: { choice: 'nR-CGI', value: cgi.nRCGI },
                    },
                  ],
                },
              },
            },
          ],
        },
      },
    };
    const view = JSON.stringify(viewNgapPdu(encodeNgapPdu(pdu)));
    assert.match(
      view,
      /"ie_extensions":\[\{"id":"PSCellInformation \(149\)","criticality":"Ignore \(1\)","ps_cell_information":\{"nr_cgi":\{/,
    );
  });

  it('right-aligns BIT STRINGs (a 36-bit NR cell identity of 16 is 000000010) and keeps 40-bit ids exact', () => {
    const view = JSON.stringify(viewNgapPdu(sample('LocationReport')));
    assert.match(view, /"nr_cell_identity":"000000010"/);
    assert.match(view, /"amf_ue_ngap_id":8589934597/);
  });

  it('hands NAS-PDUs to the injected NAS decoder, beside their hex', () => {
    const seen: string[] = [];
    const view = viewNgapPdu(sample('InitialUEMessage'), {
      nas: (bytes) => {
        seen.push(toHex(bytes));
        return { decoded: { identity_request: {} } };
      },
    });
    assert.deepEqual(seen, ['7e005b01']);
    assert.match(
      JSON.stringify(view),
      /"nas_pdu":\{"hex":"7e005b01","decoded":\{"identity_request":\{\}\}\}/,
    );
    assert.match(JSON.stringify(viewNgapPdu(sample('InitialUEMessage'))), /"nas_pdu":\{"hex":"7e005b01"\}/);
  });

  it('decodes PDU session resource transfers in place', () => {
    const view = JSON.stringify(viewNgapPdu(sample('PDUSessionResourceSetupRequest')));
    assert.match(view, /"pdu_session_resource_setup_request_transfer":\{"ies":\[/);
    assert.match(view, /"five_qi":9/);
    assert.match(view, /"transport_layer_address":"7f000001"/);
  });

  it('shows an IE outside the object set as raw hex beside its id and criticality', () => {
    const view = JSON.stringify(viewNgapPdu(fromHex(FREE5GC_NG_SETUP_UNKNOWN_IE)));
    assert.match(
      view,
      /\{"id":"Unknown \(153\)","criticality":"Ignore \(1\)","raw":"0700676e622e73706972656e742e636f6d"\}/,
    );
  });

  it('reads IEs by name and writes PLMN identities in TBCD (TS 24.008 10.5.1.13)', () => {
    // open5gs frame 1342: NGSetupRequest from gNB "5G gNB-CU", PLMN 001/01, TAC 1.
    const decoded = decodeNgapPdu(fromHex(ngapVectors().find((v) => v.label === 'open5gs frame 1342')!.hex));
    assert.ok(
      decoded.ok && decoded.value.choice === 'initiatingMessage' && decoded.value.value.name === 'NGSetup',
    );
    const ies = decoded.value.value.value.protocolIEs;
    assert.equal(ieValue(ies, 'RANNodeName'), '5G gNB-CU');
    assert.equal(ieValue(ies, 'DefaultPagingDRX'), 'v32');
    assert.equal(ieValue(ies, 'UERetentionInformation'), undefined);
    const item = ieValue(ies, 'SupportedTAList')![0]!;
    assert.equal(toHex(item.tAC), toHex(tac(1)));
    assert.equal(toHex(item.broadcastPLMNList[0]!.pLMNIdentity), toHex(plmnIdentity('001', '01')));
    assert.equal(toHex(plmnIdentity('310', '410')), '130014');
  });

  it('gives {error} for a PDU that does not decode', () => {
    assert.deepEqual(viewNgapPdu(Uint8Array.of(0x00, 0x15)), {
      error: 'truncated: 2 more bits needed at bit 16, 0 left',
    });
  });

  it('views every vector PDU without an error', () => {
    for (const vector of ngapVectors()) {
      const view = viewNgapPdu(fromHex(vector.hex), { nas: () => ({}) });
      assert.equal(JSON.stringify(view).includes('"error"'), false, vector.label);
    }
  });
});
