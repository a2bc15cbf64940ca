import { encodeComplete } from '../../../src/network/asn1/complete.ts';
import {
  encodePDUSessionResourceModifyRequestTransfer,
  encodePDUSessionResourceModifyResponseTransfer,
  encodePDUSessionResourceReleaseCommandTransfer,
  encodePDUSessionResourceReleaseResponseTransfer,
  encodePDUSessionResourceSetupRequestTransfer,
  encodePDUSessionResourceSetupResponseTransfer,
} from '../../../src/network/ngap/generated/codec.ts';
import type {
  Cause,
  GUAMI,
  NGAPPDU,
  PDUSessionResourceSetupRequestTransfer,
  UserLocationInformation,
} from '../../../src/network/ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../../../src/network/ngap/ngap-values.ts';
import { ECID_FAILURE, ECID_REQUEST, encodeNrppa } from '../asn1/nrppa-samples.ts';

/** One PDU built from scratch, with the Info column tshark must show for it. */
export interface Sample {
  /** tshark's Info column (an NRPPa payload names its procedure there instead). */
  info: string;
  /** The NGAP message, as tshark's tree names it. */
  message: string;
  /** A message carried inside (NRPPa), as tshark's tree names it. */
  nested?: string;
  pdu: NGAPPDU;
}

const plmn = plmnIdentity('001', '01');
const nas = Uint8Array.from(Buffer.from('7e005b01', 'hex')); // Identity request (TS 24.501 8.2.21)
const amfUe = 2 ** 33 + 5; // beyond 32 bits: AMF-UE-NGAP-ID is 40 bits
const ranUe = 4_000_000_000;
const guami: GUAMI = {
  pLMNIdentity: plmn,
  aMFRegionID: bits(2, 8),
  aMFSetID: bits(1, 10),
  aMFPointer: bits(0, 6),
};
const cause: Cause = { choice: 'misc', value: 'unknown-PLMN-or-SNPN' };
const location: UserLocationInformation = {
  choice: 'userLocationInformationNR',
  value: {
    nRCGI: { pLMNIdentity: plmn, nRCellIdentity: bits(16, 36) },
    tAI: { pLMNIdentity: plmn, tAC: tac(1) },
  },
};
const sliceSupport = [{ sNSSAI: { sST: Uint8Array.of(1), sD: Uint8Array.of(0, 0, 1) } }];
const ids = [
  { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: amfUe },
  { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ranUe },
] as const;
const idsIgnore = [
  { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: amfUe },
  { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: ranUe },
] as const;
const gtp = {
  choice: 'gTPTunnel',
  value: { transportLayerAddress: bits(0x7f000001, 32), gTPTEID: Uint8Array.of(0, 0, 0, 1) },
} as const;

const setupTransfer: PDUSessionResourceSetupRequestTransfer = {
  protocolIEs: [
    {
      id: 130,
      name: 'PDUSessionAggregateMaximumBitRate',
      criticality: 'reject',
      value: {
        pDUSessionAggregateMaximumBitRateDL: 100_000_000_000,
        pDUSessionAggregateMaximumBitRateUL: 50_000_000,
      },
    },
    { id: 139, name: 'UL-NGU-UP-TNLInformation', criticality: 'reject', value: gtp },
    { id: 134, name: 'PDUSessionType', criticality: 'reject', value: 'ipv4' },
    {
      id: 136,
      name: 'QosFlowSetupRequestList',
      criticality: 'reject',
      value: [
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
    },
  ],
};
const aligned = true;
const transfer = {
  setupRequest: encodeComplete(setupTransfer, aligned, encodePDUSessionResourceSetupRequestTransfer),
  setupResponse: encodeComplete(
    {
      dLQosFlowPerTNLInformation: {
        uPTransportLayerInformation: gtp,
        associatedQosFlowList: [{ qosFlowIdentifier: 1 }],
      },
    },
    aligned,
    encodePDUSessionResourceSetupResponseTransfer,
  ),
  modifyRequest: encodeComplete(
    {
      protocolIEs: [
        {
          id: 135,
          name: 'QosFlowAddOrModifyRequestList',
          criticality: 'reject',
          value: [{ qosFlowIdentifier: 1 }],
        },
      ],
    },
    aligned,
    encodePDUSessionResourceModifyRequestTransfer,
  ),
  modifyResponse: encodeComplete(
    { qosFlowAddOrModifyResponseList: [{ qosFlowIdentifier: 1 }] },
    aligned,
    encodePDUSessionResourceModifyResponseTransfer,
  ),
  releaseCommand: encodeComplete(
    { cause: { choice: 'nas', value: 'normal-release' } },
    aligned,
    encodePDUSessionResourceReleaseCommandTransfer,
  ),
  releaseResponse: encodeComplete({}, aligned, encodePDUSessionResourceReleaseResponseTransfer),
};

/** At least one of each message the AMF uses (issue 14 item 3), every IE value filled from scratch. */
export const SAMPLES: Sample[] = [
  {
    info: 'NGSetupRequest',
    message: 'NGSetupRequest',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 21,
        name: 'NGSetup',
        criticality: 'reject',
        value: {
          protocolIEs: [
            {
              id: 27,
              name: 'GlobalRANNodeID',
              criticality: 'reject',
              value: {
                choice: 'globalGNB-ID',
                value: { pLMNIdentity: plmn, gNBID: { choice: 'gNB-ID', value: bits(1, 22) } },
              },
            },
            { id: 82, name: 'RANNodeName', criticality: 'ignore', value: 'gnb-1' },
            {
              id: 102,
              name: 'SupportedTAList',
              criticality: 'reject',
              value: [
                {
                  tAC: tac(1),
                  broadcastPLMNList: [{ pLMNIdentity: plmn, tAISliceSupportList: sliceSupport }],
                },
              ],
            },
            { id: 21, name: 'DefaultPagingDRX', criticality: 'ignore', value: 'v128' },
          ],
        },
      },
    },
  },
  {
    info: 'NGSetupResponse',
    message: 'NGSetupResponse',
    pdu: {
      choice: 'successfulOutcome',
      value: {
        procedureCode: 21,
        name: 'NGSetup',
        criticality: 'reject',
        value: {
          protocolIEs: [
            { id: 1, name: 'AMFName', criticality: 'reject', value: 'amf.pmn' },
            { id: 96, name: 'ServedGUAMIList', criticality: 'reject', value: [{ gUAMI: guami }] },
            { id: 86, name: 'RelativeAMFCapacity', criticality: 'ignore', value: 255 },
            {
              id: 80,
              name: 'PLMNSupportList',
              criticality: 'reject',
              value: [{ pLMNIdentity: plmn, sliceSupportList: sliceSupport }],
            },
          ],
        },
      },
    },
  },
  {
    info: 'NGSetupFailure',
    message: 'NGSetupFailure',
    pdu: {
      choice: 'unsuccessfulOutcome',
      value: {
        procedureCode: 21,
        name: 'NGSetup',
        criticality: 'reject',
        value: {
          protocolIEs: [
            { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
            { id: 107, name: 'TimeToWait', criticality: 'ignore', value: 'v10s' },
          ],
        },
      },
    },
  },
  {
    info: 'RANConfigurationUpdate',
    message: 'RANConfigurationUpdate',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 35,
        name: 'RANConfigurationUpdate',
        criticality: 'reject',
        value: {
          protocolIEs: [
            { id: 82, name: 'RANNodeName', criticality: 'ignore', value: 'gnb-1b' },
            {
              id: 102,
              name: 'SupportedTAList',
              criticality: 'reject',
              value: [
                {
                  tAC: tac(2),
                  broadcastPLMNList: [{ pLMNIdentity: plmn, tAISliceSupportList: sliceSupport }],
                },
              ],
            },
          ],
        },
      },
    },
  },
  {
    info: 'RANConfigurationUpdateAcknowledge',
    message: 'RANConfigurationUpdateAcknowledge',
    pdu: {
      choice: 'successfulOutcome',
      value: {
        procedureCode: 35,
        name: 'RANConfigurationUpdate',
        criticality: 'reject',
        value: { protocolIEs: [] },
      },
    },
  },
  {
    info: 'RANConfigurationUpdateFailure',
    message: 'RANConfigurationUpdateFailure',
    pdu: {
      choice: 'unsuccessfulOutcome',
      value: {
        procedureCode: 35,
        name: 'RANConfigurationUpdate',
        criticality: 'reject',
        value: { protocolIEs: [{ id: 15, name: 'Cause', criticality: 'ignore', value: cause }] },
      },
    },
  },
  {
    info: 'NGReset',
    message: 'NGReset',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 20,
        name: 'NGReset',
        criticality: 'reject',
        value: {
          protocolIEs: [
            {
              id: 15,
              name: 'Cause',
              criticality: 'ignore',
              value: { choice: 'transport', value: 'unspecified' },
            },
            {
              id: 88,
              name: 'ResetType',
              criticality: 'reject',
              value: { choice: 'nG-Interface', value: 'reset-all' },
            },
          ],
        },
      },
    },
  },
  {
    info: 'NGResetAcknowledge',
    message: 'NGResetAcknowledge',
    pdu: {
      choice: 'successfulOutcome',
      value: { procedureCode: 20, name: 'NGReset', criticality: 'reject', value: { protocolIEs: [] } },
    },
  },
  {
    info: 'ErrorIndication',
    message: 'ErrorIndication',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 9,
        name: 'ErrorIndication',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            {
              id: 15,
              name: 'Cause',
              criticality: 'ignore',
              value: { choice: 'protocol', value: 'transfer-syntax-error' },
            },
            {
              id: 19,
              name: 'CriticalityDiagnostics',
              criticality: 'ignore',
              value: {
                procedureCode: 21,
                triggeringMessage: 'initiating-message',
                procedureCriticality: 'reject',
              },
            },
          ],
        },
      },
    },
  },
  {
    info: 'AMFConfigurationUpdate',
    message: 'AMFConfigurationUpdate',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 0,
        name: 'AMFConfigurationUpdate',
        criticality: 'reject',
        value: {
          protocolIEs: [
            { id: 1, name: 'AMFName', criticality: 'reject', value: 'amf.pmn' },
            { id: 96, name: 'ServedGUAMIList', criticality: 'reject', value: [{ gUAMI: guami }] },
            {
              id: 80,
              name: 'PLMNSupportList',
              criticality: 'reject',
              value: [{ pLMNIdentity: plmn, sliceSupportList: sliceSupport }],
            },
          ],
        },
      },
    },
  },
  {
    info: 'AMFConfigurationUpdateAcknowledge',
    message: 'AMFConfigurationUpdateAcknowledge',
    pdu: {
      choice: 'successfulOutcome',
      value: {
        procedureCode: 0,
        name: 'AMFConfigurationUpdate',
        criticality: 'reject',
        value: { protocolIEs: [] },
      },
    },
  },
  {
    info: 'AMFConfigurationUpdateFailure',
    message: 'AMFConfigurationUpdateFailure',
    pdu: {
      choice: 'unsuccessfulOutcome',
      value: {
        procedureCode: 0,
        name: 'AMFConfigurationUpdate',
        criticality: 'reject',
        value: { protocolIEs: [{ id: 15, name: 'Cause', criticality: 'ignore', value: cause }] },
      },
    },
  },
  {
    info: 'InitialUEMessage, Identity request',
    message: 'InitialUEMessage',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 15,
        name: 'InitialUEMessage',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ranUe },
            { id: 38, name: 'NAS-PDU', criticality: 'reject', value: nas },
            { id: 121, name: 'UserLocationInformation', criticality: 'reject', value: location },
            { id: 90, name: 'RRCEstablishmentCause', criticality: 'ignore', value: 'mo-Signalling' },
            { id: 112, name: 'UEContextRequest', criticality: 'ignore', value: 'requested' },
          ],
        },
      },
    },
  },
  {
    info: 'DownlinkNASTransport, Identity request',
    message: 'DownlinkNASTransport',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 4,
        name: 'DownlinkNASTransport',
        criticality: 'ignore',
        value: { protocolIEs: [...ids, { id: 38, name: 'NAS-PDU', criticality: 'reject', value: nas }] },
      },
    },
  },
  {
    info: 'UplinkNASTransport, Identity request',
    message: 'UplinkNASTransport',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 46,
        name: 'UplinkNASTransport',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            ...ids,
            { id: 38, name: 'NAS-PDU', criticality: 'reject', value: nas },
            { id: 121, name: 'UserLocationInformation', criticality: 'ignore', value: location },
          ],
        },
      },
    },
  },
  {
    info: 'InitialContextSetupRequest',
    message: 'InitialContextSetupRequest',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 14,
        name: 'InitialContextSetup',
        criticality: 'reject',
        value: {
          protocolIEs: [
            ...ids,
            { id: 28, name: 'GUAMI', criticality: 'reject', value: guami },
            { id: 0, name: 'AllowedNSSAI', criticality: 'reject', value: sliceSupport },
            {
              id: 119,
              name: 'UESecurityCapabilities',
              criticality: 'reject',
              value: {
                nRencryptionAlgorithms: bits(0xe000, 16),
                nRintegrityProtectionAlgorithms: bits(0xe000, 16),
                eUTRAencryptionAlgorithms: bits(0, 16),
                eUTRAintegrityProtectionAlgorithms: bits(0, 16),
              },
            },
            {
              id: 94,
              name: 'SecurityKey',
              criticality: 'reject',
              value: { bytes: new Uint8Array(32).fill(0x5a), length: 256 },
            },
          ],
        },
      },
    },
  },
  {
    info: 'InitialContextSetupResponse',
    message: 'InitialContextSetupResponse',
    pdu: {
      choice: 'successfulOutcome',
      value: {
        procedureCode: 14,
        name: 'InitialContextSetup',
        criticality: 'reject',
        value: { protocolIEs: [...idsIgnore] },
      },
    },
  },
  {
    info: 'InitialContextSetupFailure',
    message: 'InitialContextSetupFailure',
    pdu: {
      choice: 'unsuccessfulOutcome',
      value: {
        procedureCode: 14,
        name: 'InitialContextSetup',
        criticality: 'reject',
        value: {
          protocolIEs: [...idsIgnore, { id: 15, name: 'Cause', criticality: 'ignore', value: cause }],
        },
      },
    },
  },
  {
    info: 'UEContextReleaseRequest',
    message: 'UEContextReleaseRequest',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 42,
        name: 'UEContextReleaseRequest',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            ...ids,
            {
              id: 15,
              name: 'Cause',
              criticality: 'ignore',
              value: { choice: 'radioNetwork', value: 'user-inactivity' },
            },
          ],
        },
      },
    },
  },
  {
    info: 'UEContextReleaseCommand',
    message: 'UEContextReleaseCommand',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 41,
        name: 'UEContextRelease',
        criticality: 'reject',
        value: {
          protocolIEs: [
            {
              id: 114,
              name: 'UE-NGAP-IDs',
              criticality: 'reject',
              value: { choice: 'uE-NGAP-ID-pair', value: { aMFUENGAPID: amfUe, rANUENGAPID: ranUe } },
            },
            {
              id: 15,
              name: 'Cause',
              criticality: 'ignore',
              value: { choice: 'nas', value: 'normal-release' },
            },
          ],
        },
      },
    },
  },
  {
    info: 'UEContextReleaseComplete',
    message: 'UEContextReleaseComplete',
    pdu: {
      choice: 'successfulOutcome',
      value: {
        procedureCode: 41,
        name: 'UEContextRelease',
        criticality: 'reject',
        value: {
          protocolIEs: [
            ...idsIgnore,
            { id: 121, name: 'UserLocationInformation', criticality: 'ignore', value: location },
          ],
        },
      },
    },
  },
  {
    info: 'PDUSessionResourceSetupRequest, Identity request',
    message: 'PDUSessionResourceSetupRequest',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 29,
        name: 'PDUSessionResourceSetup',
        criticality: 'reject',
        value: {
          protocolIEs: [
            ...ids,
            {
              id: 74,
              name: 'PDUSessionResourceSetupListSUReq',
              criticality: 'reject',
              value: [
                {
                  pDUSessionID: 1,
                  pDUSessionNASPDU: nas,
                  sNSSAI: sliceSupport[0]!.sNSSAI,
                  pDUSessionResourceSetupRequestTransfer: transfer.setupRequest,
                },
              ],
            },
          ],
        },
      },
    },
  },
  {
    info: 'PDUSessionResourceSetupResponse',
    message: 'PDUSessionResourceSetupResponse',
    pdu: {
      choice: 'successfulOutcome',
      value: {
        procedureCode: 29,
        name: 'PDUSessionResourceSetup',
        criticality: 'reject',
        value: {
          protocolIEs: [
            ...idsIgnore,
            {
              id: 75,
              name: 'PDUSessionResourceSetupListSURes',
              criticality: 'ignore',
              value: [{ pDUSessionID: 1, pDUSessionResourceSetupResponseTransfer: transfer.setupResponse }],
            },
          ],
        },
      },
    },
  },
  {
    info: 'PDUSessionResourceModifyRequest',
    message: 'PDUSessionResourceModifyRequest',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 26,
        name: 'PDUSessionResourceModify',
        criticality: 'reject',
        value: {
          protocolIEs: [
            ...ids,
            {
              id: 64,
              name: 'PDUSessionResourceModifyListModReq',
              criticality: 'reject',
              value: [{ pDUSessionID: 1, pDUSessionResourceModifyRequestTransfer: transfer.modifyRequest }],
            },
          ],
        },
      },
    },
  },
  {
    info: 'PDUSessionResourceModifyResponse',
    message: 'PDUSessionResourceModifyResponse',
    pdu: {
      choice: 'successfulOutcome',
      value: {
        procedureCode: 26,
        name: 'PDUSessionResourceModify',
        criticality: 'reject',
        value: {
          protocolIEs: [
            ...idsIgnore,
            {
              id: 65,
              name: 'PDUSessionResourceModifyListModRes',
              criticality: 'ignore',
              value: [{ pDUSessionID: 1, pDUSessionResourceModifyResponseTransfer: transfer.modifyResponse }],
            },
          ],
        },
      },
    },
  },
  {
    info: 'PDUSessionResourceReleaseCommand',
    message: 'PDUSessionResourceReleaseCommand',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 28,
        name: 'PDUSessionResourceRelease',
        criticality: 'reject',
        value: {
          protocolIEs: [
            ...ids,
            {
              id: 79,
              name: 'PDUSessionResourceToReleaseListRelCmd',
              criticality: 'reject',
              value: [{ pDUSessionID: 1, pDUSessionResourceReleaseCommandTransfer: transfer.releaseCommand }],
            },
          ],
        },
      },
    },
  },
  {
    info: 'PDUSessionResourceReleaseResponse',
    message: 'PDUSessionResourceReleaseResponse',
    pdu: {
      choice: 'successfulOutcome',
      value: {
        procedureCode: 28,
        name: 'PDUSessionResourceRelease',
        criticality: 'reject',
        value: {
          protocolIEs: [
            ...idsIgnore,
            {
              id: 70,
              name: 'PDUSessionResourceReleasedListRelRes',
              criticality: 'ignore',
              value: [
                { pDUSessionID: 1, pDUSessionResourceReleaseResponseTransfer: transfer.releaseResponse },
              ],
            },
          ],
        },
      },
    },
  },
  {
    info: 'Paging',
    message: 'Paging',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 24,
        name: 'Paging',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            {
              id: 115,
              name: 'UEPagingIdentity',
              criticality: 'ignore',
              value: {
                choice: 'fiveG-S-TMSI',
                value: {
                  aMFSetID: bits(1, 10),
                  aMFPointer: bits(0, 6),
                  fiveGTMSI: Uint8Array.of(0xc0, 0, 0, 1),
                },
              },
            },
            {
              id: 103,
              name: 'TAIListForPaging',
              criticality: 'ignore',
              value: [{ tAI: { pLMNIdentity: plmn, tAC: tac(1) } }],
            },
          ],
        },
      },
    },
  },
  {
    info: 'LocationReportingControl',
    message: 'LocationReportingControl',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 16,
        name: 'LocationReportingControl',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            ...ids,
            {
              id: 33,
              name: 'LocationReportingRequestType',
              criticality: 'ignore',
              value: { eventType: 'direct', reportArea: 'cell' },
            },
          ],
        },
      },
    },
  },
  {
    info: 'LocationReport',
    message: 'LocationReport',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 18,
        name: 'LocationReport',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            ...ids,
            { id: 121, name: 'UserLocationInformation', criticality: 'ignore', value: location },
            {
              id: 33,
              name: 'LocationReportingRequestType',
              criticality: 'ignore',
              value: { eventType: 'direct', reportArea: 'cell' },
            },
          ],
        },
      },
    },
  },
  {
    info: 'id-e-CIDMeasurementInitiation',
    message: 'DownlinkUEAssociatedNRPPaTransport',
    nested: 'nrppa.E_CIDMeasurementInitiationRequest',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 8,
        name: 'DownlinkUEAssociatedNRPPaTransport',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            ...ids,
            { id: 89, name: 'RoutingID', criticality: 'reject', value: Uint8Array.of(1, 2) },
            { id: 46, name: 'NRPPa-PDU', criticality: 'reject', value: encodeNrppa(ECID_REQUEST) },
          ],
        },
      },
    },
  },
  {
    info: 'id-e-CIDMeasurementInitiation',
    message: 'UplinkUEAssociatedNRPPaTransport',
    nested: 'nrppa.E_CIDMeasurementInitiationFailure',
    pdu: {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 50,
        name: 'UplinkUEAssociatedNRPPaTransport',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            ...ids,
            { id: 89, name: 'RoutingID', criticality: 'reject', value: Uint8Array.of(1, 2) },
            { id: 46, name: 'NRPPa-PDU', criticality: 'reject', value: encodeNrppa(ECID_FAILURE) },
          ],
        },
      },
    },
  },
];
