import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildErrorIndication,
  buildInitialUEMessage,
  buildNGSetupRequest,
  buildPathSwitchRequest,
  buildPathSwitchRequestAcknowledge,
  buildPDUSessionResourceSetupRequestTransfer,
  readErrorIndication,
  readInitialUEMessage,
  readNGSetupRequest,
  readPathSwitchRequest,
  readPathSwitchRequestAcknowledge,
  readPDUSessionResourceSetupRequestTransfer,
  type PathSwitchRequest,
} from '../../../src/network/ngap/generated/messages.ts';
import { decodeComplete, encodeComplete } from '../../../src/network/asn1/complete.ts';
import {
  decodePDUSessionResourceSetupRequestTransfer,
  encodePDUSessionResourceSetupRequestTransfer,
} from '../../../src/network/ngap/generated/codec.ts';
import type { NGAPPDU, UserLocationInformation } from '../../../src/network/ngap/generated/types.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../../../src/network/ngap/ngap-codec.ts';
import { bits, plmnIdentity, tac } from '../../../src/network/ngap/ngap-values.ts';
import { tsharkTree } from '../../helpers/tshark.ts';

const plmn = plmnIdentity('001', '01');
const location: UserLocationInformation = {
  choice: 'userLocationInformationNR',
  value: {
    nRCGI: { pLMNIdentity: plmn, nRCellIdentity: bits(16, 36) },
    tAI: { pLMNIdentity: plmn, tAC: tac(1) },
  },
};
const capabilities = {
  nRencryptionAlgorithms: bits(0xe000, 16),
  nRintegrityProtectionAlgorithms: bits(0xe000, 16),
  eUTRAencryptionAlgorithms: bits(0, 16),
  eUTRAintegrityProtectionAlgorithms: bits(0, 16),
};
const pathSwitch: PathSwitchRequest = {
  ranUeNgapId: 7,
  sourceAmfUeNgapId: 2 ** 33 + 5,
  userLocationInformation: location,
  ueSecurityCapabilities: capabilities,
  pduSessionResourceToBeSwitchedDlList: [
    {
      pDUSessionID: 1,
      pathSwitchRequestTransfer: Uint8Array.of(0, 0x0f, 0x80, 0x7f, 0, 0, 1, 0, 0, 0, 1, 0, 0),
    },
  ],
};

/** What the peer receives: the PDU through the PER codec. */
function overTheWire(pdu: NGAPPDU): NGAPPDU {
  const decoded = decodeNgapPdu(encodeNgapPdu(pdu));
  assert.ok(decoded.ok, decoded.ok ? '' : decoded.error);
  return decoded.value;
}

/** The PDU with its IE container changed by `edit` (a peer's faulty message). */
function withIes(pdu: NGAPPDU, edit: (ies: { id: number }[]) => { id: number }[]): NGAPPDU {
  assert.ok(pdu.choice !== null);
  const value = pdu.value.value as { protocolIEs: { id: number }[] };
  return {
    ...pdu,
    value: { ...pdu.value, value: { ...value, protocolIEs: edit(value.protocolIEs) } },
  } as NGAPPDU;
}

describe('generated NGAP message functions (TS 38.413 9.2, 10.3)', () => {
  const samples = {
    ngSetup: buildNGSetupRequest({
      globalRanNodeId: {
        choice: 'globalGNB-ID',
        value: { pLMNIdentity: plmn, gNBID: { choice: 'gNB-ID', value: bits(1, 22) } },
      },
      ranNodeName: 'gnb-1',
      supportedTaList: [
        {
          tAC: tac(1),
          broadcastPLMNList: [
            { pLMNIdentity: plmn, tAISliceSupportList: [{ sNSSAI: { sST: Uint8Array.of(1) } }] },
          ],
        },
      ],
      defaultPagingDrx: 'v128',
    }),
    initialUe: buildInitialUEMessage({
      ranUeNgapId: 1,
      nasPdu: Uint8Array.of(0x7e, 0x00, 0x5b, 0x01),
      userLocationInformation: location,
      rrcEstablishmentCause: 'mo-Signalling',
      ueContextRequest: 'requested',
    }),
    pathSwitch: buildPathSwitchRequest(pathSwitch),
    acknowledge: buildPathSwitchRequestAcknowledge({
      amfUeNgapId: 9,
      ranUeNgapId: 7,
      ueSecurityCapabilities: capabilities,
      securityContext: { nextHopChainingCount: 2, nextHopNH: { bytes: new Uint8Array(32), length: 256 } },
      pduSessionResourceSwitchedList: [
        { pDUSessionID: 1, pathSwitchRequestAcknowledgeTransfer: Uint8Array.of(0) },
      ],
      allowedNssai: [{ sNSSAI: { sST: Uint8Array.of(1) } }],
    }),
    errorIndication: buildErrorIndication({ cause: { choice: 'protocol', value: 'semantic-error' } }),
  };

  it('fills procedure code, kind, criticality and IE ids and criticalities from the object sets', () => {
    const pdu = samples.pathSwitch;
    assert.equal(pdu.choice, 'initiatingMessage');
    assert.ok(pdu.choice === 'initiatingMessage');
    assert.equal(pdu.value.procedureCode, 25);
    assert.equal(pdu.value.criticality, 'reject');
    const ies = (pdu.value.value as { protocolIEs: { id: number; criticality: string }[] }).protocolIEs;
    // PathSwitchRequestIEs: RAN-UE-NGAP-ID reject, SourceAMF-UE-NGAP-ID reject, UserLocationInformation
    // ignore, UESecurityCapabilities ignore, PDUSessionResourceToBeSwitchedDLList reject.
    assert.deepEqual(
      ies.map((ie) => [ie.id, ie.criticality]),
      [
        [85, 'reject'],
        [100, 'reject'],
        [121, 'ignore'],
        [119, 'ignore'],
        [76, 'reject'],
      ],
    );
    const ack = samples.acknowledge;
    assert.ok(ack.choice === 'successfulOutcome');
    assert.equal(ack.value.procedureCode, 25);
    assert.equal(ngapMessageType(ack), 'PathSwitchRequestAcknowledge');
  });

  it('round trips build -> encode -> decode -> read', () => {
    const read = readPathSwitchRequest(overTheWire(samples.pathSwitch));
    assert.ok(read.ok);
    assert.deepEqual(read.notify, []);
    assert.equal(read.message.sourceAmfUeNgapId, 2 ** 33 + 5);
    // The decoder spells absent extensions as undefined keys: compare what goes on the wire.
    const { userLocationInformation, ueSecurityCapabilities, ...rest } = read.message;
    assert.ok(userLocationInformation !== undefined && ueSecurityCapabilities !== undefined);
    const again = buildPathSwitchRequest({ ...rest, userLocationInformation, ueSecurityCapabilities });
    assert.deepEqual(encodeNgapPdu(again), encodeNgapPdu(samples.pathSwitch));
    const setup = readNGSetupRequest(overTheWire(samples.ngSetup));
    assert.ok(setup.ok);
    assert.equal(setup.message.ranNodeName, 'gnb-1');
    assert.equal(setup.message.defaultPagingDrx, 'v128');
    const initial = readInitialUEMessage(overTheWire(samples.initialUe));
    assert.ok(initial.ok);
    assert.deepEqual(initial.message.nasPdu, Uint8Array.of(0x7e, 0x00, 0x5b, 0x01));
    assert.equal(initial.message.ueContextRequest, 'requested');
    const ack = readPathSwitchRequestAcknowledge(overTheWire(samples.acknowledge));
    assert.ok(ack.ok);
    assert.equal(ack.message.securityContext.nextHopChainingCount, 2);
    const error = readErrorIndication(overTheWire(samples.errorIndication));
    assert.deepEqual(error, {
      ok: true,
      message: { cause: { choice: 'protocol', value: 'semantic-error' } },
      notify: [],
    });
  });

  it('reads an absent optional IE as absent', () => {
    const read = readInitialUEMessage(overTheWire(samples.initialUe));
    assert.ok(read.ok);
    assert.equal('fiveGSTmsi' in read.message, false);
  });

  it('fails on a missing mandatory IE of criticality reject, with its diagnostics (10.3.5)', () => {
    const pdu = withIes(samples.pathSwitch, (ies) => ies.filter((ie) => ie.id !== 85));
    assert.deepEqual(readPathSwitchRequest(overTheWire(pdu)), {
      ok: false,
      error: 'reject',
      ies: [{ id: 85, criticality: 'reject', typeOfError: 'missing' }],
    });
  });

  it('reads a message missing a mandatory IE of criticality ignore, the IE absent (10.3.5)', () => {
    const pdu = withIes(samples.pathSwitch, (ies) => ies.filter((ie) => ie.id !== 121));
    const read = readPathSwitchRequest(overTheWire(pdu));
    assert.ok(read.ok);
    assert.equal(read.message.userLocationInformation, undefined);
    assert.deepEqual(read.notify, []);
  });

  it('fails on an IE of criticality reject it does not comprehend (10.3.4.2)', () => {
    const unknown = { id: 9999, name: null, criticality: 'reject', value: Uint8Array.of(0) };
    const pdu = withIes(samples.errorIndication, (ies) => [...ies, unknown]);
    assert.deepEqual(readErrorIndication(overTheWire(pdu)), {
      ok: false,
      error: 'reject',
      ies: [{ id: 9999, criticality: 'reject', typeOfError: 'not-understood' }],
    });
  });

  it('reads past an IE of criticality notify it does not comprehend, reporting it (10.3.4.2)', () => {
    const unknown = { id: 9999, name: null, criticality: 'notify', value: Uint8Array.of(0) };
    const read = readErrorIndication(
      overTheWire(withIes(samples.errorIndication, (ies) => [...ies, unknown])),
    );
    assert.ok(read.ok);
    assert.deepEqual(read.notify, [{ id: 9999, criticality: 'notify', typeOfError: 'not-understood' }]);
  });

  it('fails on IEs out of the object set order (10.3.6) and on another message', () => {
    const reversed = withIes(samples.pathSwitch, (ies) => [...ies].reverse());
    assert.deepEqual(readPathSwitchRequest(overTheWire(reversed)), {
      ok: false,
      error: 'falsely-constructed',
    });
    assert.deepEqual(readPathSwitchRequest(samples.acknowledge), { ok: false, error: 'other-message' });
  });

  it('reads a bare IE container too', () => {
    const pdu = overTheWire(samples.errorIndication);
    assert.ok(pdu.choice === 'initiatingMessage' && pdu.value.name === 'ErrorIndication');
    assert.equal(readErrorIndication(pdu.value.value.protocolIEs).ok, true);
  });

  it('builds and reads a request transfer, an IE container outside the messages, by the same rules (9.3.4.1, 10.3)', () => {
    const transfer = buildPDUSessionResourceSetupRequestTransfer({
      ulNguUpTnlInformation: {
        choice: 'gTPTunnel',
        value: { transportLayerAddress: bits(0x0a000001, 32), gTPTEID: Uint8Array.of(0, 0, 0, 9) },
      },
      pduSessionType: 'ipv4',
      qosFlowSetupRequestList: [
        {
          qosFlowIdentifier: 1,
          qosFlowLevelQosParameters: {
            qosCharacteristics: { choice: 'nonDynamic5QI', value: { fiveQI: 9 } },
            allocationAndRetentionPriority: {
              priorityLevelARP: 8,
              preEmptionCapability: 'shall-not-trigger-pre-emption',
              preEmptionVulnerability: 'not-pre-emptable',
            },
          },
        },
      ],
    });
    // id-UL-NGU-UP-TNLInformation 139, id-PDUSessionType 134, id-QosFlowSetupRequestList 136: reject.
    assert.deepEqual(
      transfer.protocolIEs.map(({ id, criticality }) => [id, criticality]),
      [
        [139, 'reject'],
        [134, 'reject'],
        [136, 'reject'],
      ],
    );
    const bytes = encodeComplete(transfer, true, encodePDUSessionResourceSetupRequestTransfer);
    const decoded = decodeComplete(bytes, true, decodePDUSessionResourceSetupRequestTransfer);
    assert.ok(decoded.ok);
    const read = readPDUSessionResourceSetupRequestTransfer(decoded.value);
    assert.ok(read.ok);
    assert.equal(read.message.pduSessionType, 'ipv4');
    assert.equal(read.message.qosFlowSetupRequestList[0]?.qosFlowIdentifier, 1);
    assert.equal(read.message.pduSessionAggregateMaximumBitRate, undefined);
    const [tunnel, type, flows] = decoded.value.protocolIEs;
    assert.deepEqual(readPDUSessionResourceSetupRequestTransfer({ protocolIEs: [tunnel!, flows!] }), {
      ok: false,
      error: 'reject',
      ies: [{ id: 134, criticality: 'reject', typeOfError: 'missing' }],
    });
    assert.deepEqual(readPDUSessionResourceSetupRequestTransfer({ protocolIEs: [type!, tunnel!, flows!] }), {
      ok: false,
      error: 'falsely-constructed',
    });
  });

  it('tshark reads each built PDU as the intended message, not malformed, with no expert error', async () => {
    const expected = [
      'NGSetupRequest',
      'InitialUEMessage',
      'PathSwitchRequest',
      'PathSwitchRequestAcknowledge',
      'ErrorIndication',
    ];
    const pdus = Object.values(samples);
    const verdicts = await tsharkTree(
      'ngap',
      pdus.map((pdu) => encodeNgapPdu(pdu)),
    );
    for (const [index, message] of expected.entries()) {
      const verdict = verdicts[index]!;
      assert.match(JSON.stringify(verdict.layer), new RegExp(`"ngap.${message}_element"`), message);
      assert.equal(verdict.malformed, false, message);
      assert.equal(verdict.expert, '', message);
    }
  });
});
