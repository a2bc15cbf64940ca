// 5GS session management messages, TS 24.501 Release 17 section 8.3, one table per message.
import { bytes, nibble, uint8 } from './ie-codec.ts';
import { lv, lvE, message, N, tlv, tlvE, tv, tvHalf, v, vHalf } from './ie-table.ts';
import { gprsTimer } from './ie/mobility.ts';
import { sNssai } from './ie/nssai.ts';
import {
  dnn,
  extendedProtocolConfigurationOptions,
  integrityProtectionMaximumDataRate,
  maximumNumberOfSupportedPacketFilters,
  pduAddress,
  qosFlowDescriptions,
  qosRules,
  sessionAmbr,
} from './ie/session.ts';

const fiveGsmCause = v('fiveGsmCause', 1, uint8);
const fiveGsmCauseTv = tv(0x59, 'fiveGsmCause', 2, uint8);
const epco = tlvE(
  0x7b,
  'extendedProtocolConfigurationOptions',
  4,
  65538,
  extendedProtocolConfigurationOptions,
);
const backOffTimerValue = tlv(0x37, 'backOffTimerValue', 3, 3, gprsTimer);
const eapMessage = tlvE(0x78, 'eapMessage', 7, 1503, bytes);
const eapMessageLvE = lvE('eapMessage', 6, 1502, bytes);
const congestionReattemptIndicator = tlv(0x61, 'fiveGsmCongestionReattemptIndicator', 3, 3, bytes);
const reattemptIndicator = tlv(0x1d, 'reattemptIndicator', 3, 3, bytes);
const serviceLevelAaContainer = tlvE(0x72, 'serviceLevelAaContainer', 6, N, bytes);
const ipHeaderCompressionConfiguration = tlv(0x66, 'ipHeaderCompressionConfiguration', 5, 257, bytes);
const ethernetHeaderCompressionConfiguration = tlv(
  0x1f,
  'ethernetHeaderCompressionConfiguration',
  3,
  3,
  bytes,
);
const portManagementInformationContainer = tlvE(0x74, 'portManagementInformationContainer', 4, 65538, bytes);
const mappedEpsBearerContexts = tlvE(0x75, 'mappedEpsBearerContexts', 7, 65538, bytes);
const alwaysOnPduSessionIndication = tvHalf(0x8, 'alwaysOnPduSessionIndication', nibble);
const rqTimerValue = tv(0x56, 'rqTimerValue', 2, gprsTimer);
const atsssContainer = tlvE(0x77, 'atsssContainer', 3, 65538, bytes);
const receivedMbsContainer = tlvE(0x71, 'receivedMbsContainer', 9, 65538, bytes);
const requestedMbsContainer = tlvE(0x70, 'requestedMbsContainer', 8, 65538, bytes);
const fiveGsmCapability = tlv(0x28, 'fiveGsmCapability', 3, 15, bytes);
const maximumPacketFilters = tv(
  0x55,
  'maximumNumberOfSupportedPacketFilters',
  3,
  maximumNumberOfSupportedPacketFilters,
);
const alwaysOnPduSessionRequested = tvHalf(0xb, 'alwaysOnPduSessionRequested', nibble);

export const FIVEGSM_MESSAGES = {
  // 8.3.1
  pduSessionEstablishmentRequest: message(0xc1, 'PDU Session Establishment Request', [
    v('integrityProtectionMaximumDataRate', 2, integrityProtectionMaximumDataRate),
    tvHalf(0x9, 'pduSessionType', nibble),
    tvHalf(0xa, 'sscMode', nibble),
    fiveGsmCapability,
    maximumPacketFilters,
    alwaysOnPduSessionRequested,
    tlv(0x39, 'smPduDnRequestContainer', 3, 255, bytes),
    epco,
    ipHeaderCompressionConfiguration,
    tlv(0x6e, 'dsTtEthernetPortMacAddress', 8, 8, bytes),
    tlv(0x6f, 'ueDsTtResidenceTime', 10, 10, bytes),
    portManagementInformationContainer,
    ethernetHeaderCompressionConfiguration,
    tlv(0x29, 'suggestedInterfaceIdentifier', 11, 11, pduAddress),
    serviceLevelAaContainer,
    requestedMbsContainer,
    tlv(0x34, 'pduSessionPairId', 3, 3, bytes),
    tlv(0x35, 'rsn', 3, 3, bytes),
  ]),
  // 8.3.2
  pduSessionEstablishmentAccept: message(0xc2, 'PDU Session Establishment Accept', [
    vHalf('selectedPduSessionType', nibble),
    vHalf('selectedSscMode', nibble),
    lvE('authorizedQosRules', 6, 65538, qosRules),
    lv('sessionAmbr', 7, 7, sessionAmbr),
    fiveGsmCauseTv,
    tlv(0x29, 'pduAddress', 7, 31, pduAddress),
    rqTimerValue,
    tlv(0x22, 'sNssai', 3, 10, sNssai),
    alwaysOnPduSessionIndication,
    mappedEpsBearerContexts,
    eapMessage,
    tlvE(0x79, 'authorizedQosFlowDescriptions', 6, 65538, qosFlowDescriptions),
    epco,
    tlv(0x25, 'dnn', 3, 102, dnn),
    tlv(0x17, 'fiveGsmNetworkFeatureSupport', 3, 15, bytes),
    tlv(0x18, 'servingPlmnRateControl', 4, 4, bytes),
    atsssContainer,
    tvHalf(0xc, 'controlPlaneOnlyIndication', nibble),
    ipHeaderCompressionConfiguration,
    ethernetHeaderCompressionConfiguration,
    serviceLevelAaContainer,
    receivedMbsContainer,
  ]),
  // 8.3.3
  pduSessionEstablishmentReject: message(0xc3, 'PDU Session Establishment Reject', [
    fiveGsmCause,
    backOffTimerValue,
    tvHalf(0xf, 'allowedSscMode', nibble),
    eapMessage,
    congestionReattemptIndicator,
    epco,
    reattemptIndicator,
    serviceLevelAaContainer,
  ]),
  // 8.3.4
  pduSessionAuthenticationCommand: message(0xc5, 'PDU Session Authentication Command', [eapMessageLvE, epco]),
  // 8.3.5
  pduSessionAuthenticationComplete: message(0xc6, 'PDU Session Authentication Complete', [
    eapMessageLvE,
    epco,
  ]),
  // 8.3.6
  pduSessionAuthenticationResult: message(0xc7, 'PDU Session Authentication Result', [eapMessage, epco]),
  // 8.3.7
  pduSessionModificationRequest: message(0xc9, 'PDU Session Modification Request', [
    fiveGsmCapability,
    fiveGsmCauseTv,
    maximumPacketFilters,
    alwaysOnPduSessionRequested,
    tv(0x13, 'integrityProtectionMaximumDataRate', 3, integrityProtectionMaximumDataRate),
    tlvE(0x7a, 'requestedQosRules', 7, 65538, qosRules),
    tlvE(0x79, 'requestedQosFlowDescriptions', 6, 65538, qosFlowDescriptions),
    mappedEpsBearerContexts,
    epco,
    portManagementInformationContainer,
    ipHeaderCompressionConfiguration,
    ethernetHeaderCompressionConfiguration,
    requestedMbsContainer,
    serviceLevelAaContainer,
  ]),
  // 8.3.8
  pduSessionModificationReject: message(0xca, 'PDU Session Modification Reject', [
    fiveGsmCause,
    backOffTimerValue,
    congestionReattemptIndicator,
    epco,
    reattemptIndicator,
  ]),
  // 8.3.9
  pduSessionModificationCommand: message(0xcb, 'PDU Session Modification Command', [
    fiveGsmCauseTv,
    tlv(0x2a, 'sessionAmbr', 8, 8, sessionAmbr),
    rqTimerValue,
    alwaysOnPduSessionIndication,
    tlvE(0x7a, 'authorizedQosRules', 7, 65538, qosRules),
    mappedEpsBearerContexts,
    tlvE(0x79, 'authorizedQosFlowDescriptions', 6, 65538, qosFlowDescriptions),
    epco,
    atsssContainer,
    ipHeaderCompressionConfiguration,
    portManagementInformationContainer,
    tlv(0x1e, 'servingPlmnRateControl', 4, 4, bytes),
    ethernetHeaderCompressionConfiguration,
    receivedMbsContainer,
    serviceLevelAaContainer,
  ]),
  // 8.3.10
  pduSessionModificationComplete: message(0xcc, 'PDU Session Modification Complete', [
    epco,
    portManagementInformationContainer,
  ]),
  // 8.3.11
  pduSessionModificationCommandReject: message(0xcd, 'PDU Session Modification Command Reject', [
    fiveGsmCause,
    epco,
  ]),
  // 8.3.12
  pduSessionReleaseRequest: message(0xd1, 'PDU Session Release Request', [fiveGsmCauseTv, epco]),
  // 8.3.13
  pduSessionReleaseReject: message(0xd2, 'PDU Session Release Reject', [fiveGsmCause, epco]),
  // 8.3.14
  pduSessionReleaseCommand: message(0xd3, 'PDU Session Release Command', [
    fiveGsmCause,
    backOffTimerValue,
    eapMessage,
    congestionReattemptIndicator,
    epco,
    tvHalf(0xd, 'accessType', nibble),
    serviceLevelAaContainer,
  ]),
  // 8.3.15
  pduSessionReleaseComplete: message(0xd4, 'PDU Session Release Complete', [fiveGsmCauseTv, epco]),
  // 8.3.16
  fiveGsmStatus: message(0xd6, '5GSM Status', [fiveGsmCause]),
  // 8.3.17-8.3.18: service-level authentication and authorization (UUAA) of an uncrewed aerial
  // vehicle's PDU session; the service-level-AA container stays bytes, as in the other 5GSM messages.
  // 8.3.17
  serviceLevelAuthenticationCommand: message(0xd8, 'Service-Level Authentication Command', [
    lvE('serviceLevelAaContainer', 5, N, bytes),
  ]),
  // 8.3.18
  serviceLevelAuthenticationComplete: message(0xd9, 'Service-Level Authentication Complete', [
    lvE('serviceLevelAaContainer', 5, N, bytes),
  ]),
  // 8.3.19: a 5G ProSe layer-3 UE-to-network relay reports its remote UEs (6.6.2). Both IEs are a
  // remote UE context list (9.11.4.29), kept as bytes.
  remoteUeReport: message(0xda, 'Remote UE Report', [
    tlvE(0x76, 'remoteUeContextConnected', 16, 65538, bytes),
    tlvE(0x70, 'remoteUeContextDisconnected', 16, 65538, bytes),
  ]),
  // 8.3.20
  remoteUeReportResponse: message(0xdb, 'Remote UE Report Response', []),
};
