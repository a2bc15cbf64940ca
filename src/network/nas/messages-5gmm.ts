// 5GS mobility management messages, TS 24.501 Release 17 section 8.2, one table per message. The IE
// keys are the tables' names in camelCase; lengths are the tables' own (whole IE, in octets).
import { bytes, fixedBytes, nibble, uint8 } from './ie-codec.ts';
import {
  conditional,
  lv,
  lvE,
  message,
  N,
  spareHalfOctet,
  tlv,
  tlvE,
  tv,
  tvHalf,
  v,
  vHalf,
} from './ie-table.ts';
import { mobileIdentity } from './ie/mobile-identity.ts';
import {
  deregistrationType,
  gprsTimer,
  nasKeySetIdentifier,
  nasSecurityAlgorithms,
  pduSessionStatus,
  registrationResult,
  registrationType,
  ueSecurityCapability,
} from './ie/mobility.ts';
import { nssai, rejectedNssai, sNssai } from './ie/nssai.ts';
import { dnn } from './ie/session.ts';
import { plmnList, tai, taiList } from './ie/tracking-area.ts';

// IEs that several messages share, with the same IEI, format and length in each.
const eapMessage = tlvE(0x78, 'eapMessage', 7, 1503, bytes);
const pduSessionStatusIe = tlv(0x50, 'pduSessionStatus', 4, 34, pduSessionStatus);
const uplinkDataStatus = tlv(0x40, 'uplinkDataStatus', 4, 34, pduSessionStatus);
const allowedPduSessionStatus = tlv(0x25, 'allowedPduSessionStatus', 4, 34, pduSessionStatus);
const nasMessageContainer = tlvE(0x71, 'nasMessageContainer', 4, N, bytes);
const t3346Value = tlv(0x5f, 't3346Value', 3, 3, gprsTimer);
const t3448Value = tlv(0x6b, 't3448Value', 3, 3, gprsTimer);
const cagInformationList = tlvE(0x75, 'cagInformationList', 3, N, bytes);
const extendedRejectedNssai = tlv(0x68, 'extendedRejectedNssai', 5, 90, bytes);
const disasterReturnWaitRange = tlv(0x2c, 'disasterReturnWaitRange', 4, 4, bytes);
const extendedCagInformationList = tlvE(0x71, 'extendedCagInformationList', 3, N, bytes);
const lowerBoundTimerValue = tlv(0x3a, 'lowerBoundTimerValue', 3, 3, gprsTimer);
const forbiddenTaiRoaming = tlv(0x1d, 'forbiddenTaiForRoaming', 9, 114, taiList);
const forbiddenTaiRegional = tlv(0x1e, 'forbiddenTaiForRegionalProvisionOfService', 9, 114, taiList);
const fiveGmmCause = v('fiveGmmCause', 1, uint8);
const ngKsi = vHalf('ngKsi', nasKeySetIdentifier);
const ueRequestType = tlv(0x29, 'ueRequestType', 3, 3, bytes);
const pagingRestriction = tlv(0x28, 'pagingRestriction', 3, 35, bytes);
const serviceLevelAaContainer = tlvE(0x72, 'serviceLevelAaContainer', 6, N, bytes);
const pduSessionId = conditional(tv(0x12, 'pduSessionId', 2, uint8));
const additionalInformation = tlv(0x24, 'additionalInformation', 3, N, bytes);
const releaseAssistanceIndication = tvHalf(0xf, 'releaseAssistanceIndication', nibble);
const sNssaiLv = lv('sNssai', 2, 5, sNssai);
const eapMessageLvE = lvE('eapMessage', 6, 1502, bytes);
// ProSe relay transaction identity (9.11.3.88): one octet pairing a relay message with its answer.
const prti = v('prti', 1, uint8);

export const FIVEGMM_MESSAGES = {
  // 8.2.6
  registrationRequest: message(0x41, 'Registration Request', [
    vHalf('registrationType', registrationType),
    ngKsi,
    lvE('mobileIdentity', 6, N, mobileIdentity),
    tvHalf(0xc, 'nonCurrentNativeNasKeySetIdentifier', nasKeySetIdentifier),
    tlv(0x10, 'fiveGmmCapability', 3, 15, bytes),
    tlv(0x2e, 'ueSecurityCapability', 4, 10, ueSecurityCapability),
    tlv(0x2f, 'requestedNssai', 4, 74, nssai),
    tv(0x52, 'lastVisitedRegisteredTai', 7, tai),
    tlv(0x17, 's1UeNetworkCapability', 4, 15, bytes),
    uplinkDataStatus,
    pduSessionStatusIe,
    tvHalf(0xb, 'micoIndication', nibble),
    tlv(0x2b, 'ueStatus', 3, 3, bytes),
    tlvE(0x77, 'additionalGuti', 14, 14, mobileIdentity),
    allowedPduSessionStatus,
    tlv(0x18, 'ueUsageSetting', 3, 3, bytes),
    tlv(0x51, 'requestedDrxParameters', 3, 3, bytes),
    tlvE(0x70, 'epsNasMessageContainer', 4, N, bytes),
    tlvE(0x74, 'ladnIndication', 3, 811, bytes),
    tvHalf(0x8, 'payloadContainerType', nibble),
    tlvE(0x7b, 'payloadContainer', 4, 65538, bytes),
    tvHalf(0x9, 'networkSlicingIndication', nibble),
    tlv(0x53, 'fiveGsUpdateType', 3, 3, bytes),
    tlv(0x41, 'mobileStationClassmark2', 5, 5, bytes),
    tlv(0x42, 'supportedCodecs', 5, N, bytes),
    nasMessageContainer,
    tlv(0x60, 'epsBearerContextStatus', 4, 4, bytes),
    tlv(0x6e, 'requestedExtendedDrxParameters', 3, 4, bytes),
    tlv(0x6a, 't3324Value', 3, 3, gprsTimer),
    tlv(0x67, 'ueRadioCapabilityId', 3, N, bytes),
    tlv(0x35, 'requestedMappedNssai', 3, 42, bytes),
    tlv(0x48, 'additionalInformationRequested', 3, 3, bytes),
    tlv(0x1a, 'requestedWusAssistanceInformation', 3, N, bytes),
    tvHalf(0xa, 'n5gcIndication', nibble),
    tlv(0x30, 'requestedNbN1ModeDrxParameters', 3, 3, bytes),
    ueRequestType,
    pagingRestriction,
    serviceLevelAaContainer,
    tlv(0x32, 'nid', 8, 8, bytes),
    tlv(0x16, 'msDeterminedPlmnWithDisasterCondition', 5, 5, bytes),
    tlv(0x2a, 'requestedPeipsAssistanceInformation', 3, N, bytes),
  ]),
  // 8.2.7
  registrationAccept: message(0x42, 'Registration Accept', [
    lv('registrationResult', 2, 2, registrationResult),
    tlvE(0x77, 'fiveGGuti', 14, 14, mobileIdentity),
    tlv(0x4a, 'equivalentPlmns', 5, 47, plmnList),
    tlv(0x54, 'taiList', 9, 114, taiList),
    tlv(0x15, 'allowedNssai', 4, 74, nssai),
    tlv(0x11, 'rejectedNssai', 4, 42, rejectedNssai),
    tlv(0x31, 'configuredNssai', 4, 146, nssai),
    tlv(0x21, 'fiveGsNetworkFeatureSupport', 3, 6, bytes),
    pduSessionStatusIe,
    tlv(0x26, 'pduSessionReactivationResult', 4, 34, pduSessionStatus),
    tlvE(0x72, 'pduSessionReactivationResultErrorCause', 5, 515, bytes),
    tlvE(0x79, 'ladnInformation', 3, 1715, bytes),
    tvHalf(0xb, 'micoIndication', nibble),
    tvHalf(0x9, 'networkSlicingIndication', nibble),
    tlv(0x27, 'serviceAreaList', 6, 114, bytes),
    tlv(0x5e, 't3512Value', 3, 3, gprsTimer),
    tlv(0x5d, 'non3gppDeregistrationTimerValue', 3, 3, gprsTimer),
    tlv(0x16, 't3502Value', 3, 3, gprsTimer),
    tlv(0x34, 'emergencyNumberList', 5, 50, bytes),
    tlvE(0x7a, 'extendedEmergencyNumberList', 7, 65538, bytes),
    tlvE(0x73, 'sorTransparentContainer', 20, N, bytes),
    eapMessage,
    tvHalf(0xa, 'nssaiInclusionMode', nibble),
    tlvE(0x76, 'operatorDefinedAccessCategoryDefinitions', 3, N, bytes),
    tlv(0x51, 'negotiatedDrxParameters', 3, 3, bytes),
    tvHalf(0xd, 'non3gppNwPolicies', nibble),
    tlv(0x60, 'epsBearerContextStatus', 4, 4, bytes),
    tlv(0x6e, 'negotiatedExtendedDrxParameters', 3, 4, bytes),
    tlv(0x6c, 't3447Value', 3, 3, gprsTimer),
    t3448Value,
    tlv(0x6a, 't3324Value', 3, 3, gprsTimer),
    tlv(0x67, 'ueRadioCapabilityId', 3, N, bytes),
    tvHalf(0xe, 'ueRadioCapabilityIdDeletionIndication', nibble),
    tlv(0x39, 'pendingNssai', 4, 146, nssai),
    tlvE(0x74, 'cipheringKeyData', 34, N, bytes),
    cagInformationList,
    tlv(0x1b, 'truncated5gSTmsiConfiguration', 3, 3, bytes),
    tlv(0x1c, 'negotiatedWusAssistanceInformation', 3, 3, bytes),
    tlv(0x29, 'negotiatedNbN1ModeDrxParameters', 3, 3, bytes),
    extendedRejectedNssai,
    tlvE(0x7b, 'serviceLevelAaContainer', 6, N, bytes),
    tlv(0x33, 'negotiatedPeipsAssistanceInformation', 3, 3, bytes),
    tlv(0x35, 'fiveGsAdditionalRequestResult', 3, 3, bytes),
    tlvE(0x70, 'nssrgInformation', 7, 4099, bytes),
    tlv(0x14, 'disasterRoamingWaitRange', 4, 4, bytes),
    disasterReturnWaitRange,
    tlv(0x13, 'listOfPlmnsToBeUsedInDisasterCondition', 2, N, bytes),
    forbiddenTaiRoaming,
    forbiddenTaiRegional,
    extendedCagInformationList,
    tlvE(0x7c, 'nsagInformation', 9, 3143, bytes),
  ]),
  // 8.2.8
  registrationComplete: message(0x43, 'Registration Complete', [
    tlvE(0x73, 'sorTransparentContainer', 20, N, bytes),
  ]),
  // 8.2.9
  registrationReject: message(0x44, 'Registration Reject', [
    fiveGmmCause,
    t3346Value,
    tlv(0x16, 't3502Value', 3, 3, gprsTimer),
    eapMessage,
    tlv(0x69, 'rejectedNssai', 4, 42, rejectedNssai),
    cagInformationList,
    extendedRejectedNssai,
    disasterReturnWaitRange,
    extendedCagInformationList,
    lowerBoundTimerValue,
    forbiddenTaiRoaming,
    forbiddenTaiRegional,
  ]),
  // 8.2.12
  deregistrationRequestUeOriginating: message(0x45, 'Deregistration Request', [
    vHalf('deregistrationType', deregistrationType),
    ngKsi,
    lvE('mobileIdentity', 6, N, mobileIdentity),
  ]),
  // 8.2.13
  deregistrationAcceptUeOriginating: message(0x46, 'Deregistration Accept', []),
  // 8.2.14
  deregistrationRequestUeTerminated: message(0x47, 'Deregistration Request', [
    vHalf('deregistrationType', deregistrationType),
    spareHalfOctet,
    tv(0x58, 'fiveGmmCause', 2, uint8),
    t3346Value,
    tlv(0x6d, 'rejectedNssai', 4, 42, rejectedNssai),
    cagInformationList,
    extendedRejectedNssai,
    disasterReturnWaitRange,
    extendedCagInformationList,
    lowerBoundTimerValue,
    forbiddenTaiRoaming,
    forbiddenTaiRegional,
  ]),
  // 8.2.15
  deregistrationAcceptUeTerminated: message(0x48, 'Deregistration Accept', []),
  // 8.2.16
  serviceRequest: message(0x4c, 'Service Request', [
    ngKsi,
    vHalf('serviceType', nibble),
    lvE('fiveGSTmsi', 9, 9, mobileIdentity),
    uplinkDataStatus,
    pduSessionStatusIe,
    allowedPduSessionStatus,
    nasMessageContainer,
    ueRequestType,
    pagingRestriction,
  ]),
  // 8.2.18
  serviceReject: message(0x4d, 'Service Reject', [
    fiveGmmCause,
    pduSessionStatusIe,
    t3346Value,
    eapMessage,
    t3448Value,
    cagInformationList,
    disasterReturnWaitRange,
    extendedCagInformationList,
    lowerBoundTimerValue,
    forbiddenTaiRoaming,
    forbiddenTaiRegional,
  ]),
  // 8.2.17
  serviceAccept: message(0x4e, 'Service Accept', [
    pduSessionStatusIe,
    tlv(0x26, 'pduSessionReactivationResult', 4, 34, pduSessionStatus),
    tlvE(0x72, 'pduSessionReactivationResultErrorCause', 5, 515, bytes),
    eapMessage,
    t3448Value,
    tlv(0x34, 'fiveGsAdditionalRequestResult', 3, 3, bytes),
    forbiddenTaiRoaming,
    forbiddenTaiRegional,
  ]),
  // 8.2.30
  controlPlaneServiceRequest: message(0x4f, 'Control Plane Service Request', [
    vHalf('controlPlaneServiceType', nibble),
    ngKsi,
    tlv(0x6f, 'ciotSmallDataContainer', 4, 257, bytes),
    tvHalf(0x8, 'payloadContainerType', nibble),
    tlvE(0x7b, 'payloadContainer', 4, 65538, bytes),
    tv(0x12, 'pduSessionId', 2, uint8),
    pduSessionStatusIe,
    releaseAssistanceIndication,
    uplinkDataStatus,
    nasMessageContainer,
    additionalInformation,
    allowedPduSessionStatus,
    ueRequestType,
    pagingRestriction,
  ]),
  // 8.2.31
  networkSliceSpecificAuthenticationCommand: message(0x50, 'Network Slice-Specific Authentication Command', [
    sNssaiLv,
    eapMessageLvE,
  ]),
  // 8.2.32
  networkSliceSpecificAuthenticationComplete: message(
    0x51,
    'Network Slice-Specific Authentication Complete',
    [sNssaiLv, eapMessageLvE],
  ),
  // 8.2.33
  networkSliceSpecificAuthenticationResult: message(0x52, 'Network Slice-Specific Authentication Result', [
    sNssaiLv,
    eapMessageLvE,
  ]),
  // 8.2.19
  configurationUpdateCommand: message(0x54, 'Configuration Update Command', [
    tvHalf(0xd, 'configurationUpdateIndication', nibble),
    tlvE(0x77, 'fiveGGuti', 14, 14, mobileIdentity),
    tlv(0x54, 'taiList', 9, 114, taiList),
    tlv(0x15, 'allowedNssai', 4, 74, nssai),
    tlv(0x27, 'serviceAreaList', 6, 114, bytes),
    tlv(0x43, 'fullNameForNetwork', 3, N, bytes),
    tlv(0x45, 'shortNameForNetwork', 3, N, bytes),
    tv(0x46, 'localTimeZone', 2, uint8),
    tv(0x47, 'universalTimeAndLocalTimeZone', 8, bytes),
    tlv(0x49, 'networkDaylightSavingTime', 3, 3, bytes),
    tlvE(0x79, 'ladnInformation', 3, 1715, bytes),
    tvHalf(0xb, 'micoIndication', nibble),
    tvHalf(0x9, 'networkSlicingIndication', nibble),
    tlv(0x31, 'configuredNssai', 4, 146, nssai),
    tlv(0x11, 'rejectedNssai', 4, 42, rejectedNssai),
    tlvE(0x76, 'operatorDefinedAccessCategoryDefinitions', 3, N, bytes),
    tvHalf(0xf, 'smsIndication', nibble),
    tlv(0x6c, 't3447Value', 3, 3, gprsTimer),
    cagInformationList,
    tlv(0x67, 'ueRadioCapabilityId', 3, N, bytes),
    tvHalf(0xa, 'ueRadioCapabilityIdDeletionIndication', nibble),
    tlv(0x44, 'fiveGsRegistrationResult', 3, 3, registrationResult),
    tlv(0x1b, 'truncated5gSTmsiConfiguration', 3, 3, bytes),
    tvHalf(0xc, 'additionalConfigurationIndication', nibble),
    extendedRejectedNssai,
    serviceLevelAaContainer,
    tlvE(0x70, 'nssrgInformation', 7, 4099, bytes),
    tlv(0x14, 'disasterRoamingWaitRange', 4, 4, bytes),
    disasterReturnWaitRange,
    tlv(0x13, 'listOfPlmnsToBeUsedInDisasterCondition', 2, N, bytes),
    extendedCagInformationList,
    tlv(0x1f, 'updatedPeipsAssistanceInformation', 3, N, bytes),
    tlvE(0x7c, 'nsagInformation', 9, 3143, bytes),
    tvHalf(0xe, 'priorityIndicator', nibble),
  ]),
  // 8.2.20
  configurationUpdateComplete: message(0x55, 'Configuration Update Complete', []),
  // 8.2.1
  authenticationRequest: message(0x56, 'Authentication Request', [
    ngKsi,
    spareHalfOctet,
    lv('abba', 3, N, bytes),
    tv(0x21, 'authenticationParameterRand', 17, fixedBytes(16)),
    tlv(0x20, 'authenticationParameterAutn', 18, 18, fixedBytes(16)),
    eapMessage,
  ]),
  // 8.2.2
  authenticationResponse: message(0x57, 'Authentication Response', [
    tlv(0x2d, 'authenticationResponseParameter', 18, 18, fixedBytes(16)),
    eapMessage,
  ]),
  // 8.2.5
  authenticationReject: message(0x58, 'Authentication Reject', [eapMessage]),
  // 8.2.4
  authenticationFailure: message(0x59, 'Authentication Failure', [
    fiveGmmCause,
    tlv(0x30, 'authenticationFailureParameter', 16, 16, fixedBytes(14)),
  ]),
  // 8.2.3
  authenticationResult: message(0x5a, 'Authentication Result', [
    ngKsi,
    spareHalfOctet,
    eapMessageLvE,
    tlv(0x38, 'abba', 4, N, bytes),
  ]),
  // 8.2.21
  identityRequest: message(0x5b, 'Identity Request', [vHalf('identityType', nibble), spareHalfOctet]),
  // 8.2.22
  identityResponse: message(0x5c, 'Identity Response', [lvE('mobileIdentity', 3, N, mobileIdentity)]),
  // 8.2.25
  securityModeCommand: message(0x5d, 'Security Mode Command', [
    v('selectedNasSecurityAlgorithms', 1, nasSecurityAlgorithms),
    ngKsi,
    spareHalfOctet,
    lv('replayedUeSecurityCapabilities', 3, 9, ueSecurityCapability),
    tvHalf(0xe, 'imeisvRequest', nibble),
    tv(0x57, 'selectedEpsNasSecurityAlgorithms', 2, nasSecurityAlgorithms),
    tlv(0x36, 'additional5gSecurityInformation', 3, 3, bytes),
    eapMessage,
    tlv(0x38, 'abba', 4, N, bytes),
    tlv(0x19, 'replayedS1UeSecurityCapabilities', 4, 7, bytes),
  ]),
  // 8.2.26
  securityModeComplete: message(0x5e, 'Security Mode Complete', [
    tlvE(0x77, 'imeisv', 12, 12, mobileIdentity),
    nasMessageContainer,
    tlvE(0x78, 'nonImeisvPei', 7, N, mobileIdentity),
  ]),
  // 8.2.27
  securityModeReject: message(0x5f, 'Security Mode Reject', [fiveGmmCause]),
  // 8.2.29
  fiveGmmStatus: message(0x64, '5GMM Status', [fiveGmmCause]),
  // 8.2.23
  notification: message(0x65, 'Notification', [vHalf('accessType', nibble), spareHalfOctet]),
  // 8.2.24
  notificationResponse: message(0x66, 'Notification Response', [pduSessionStatusIe]),
  // 8.2.10
  ulNasTransport: message(0x67, 'UL NAS Transport', [
    vHalf('payloadContainerType', nibble),
    spareHalfOctet,
    lvE('payloadContainer', 3, 65537, bytes),
    pduSessionId,
    tv(0x59, 'oldPduSessionId', 2, uint8),
    tvHalf(0x8, 'requestType', nibble),
    tlv(0x22, 'sNssai', 3, 10, sNssai),
    tlv(0x25, 'dnn', 3, 102, dnn),
    additionalInformation,
    tvHalf(0xa, 'maPduSessionInformation', nibble),
    releaseAssistanceIndication,
  ]),
  // 8.2.11
  dlNasTransport: message(0x68, 'DL NAS Transport', [
    vHalf('payloadContainerType', nibble),
    spareHalfOctet,
    lvE('payloadContainer', 3, 65537, bytes),
    pduSessionId,
    additionalInformation,
    tv(0x58, 'fiveGmmCause', 2, uint8),
    tlv(0x37, 'backOffTimerValue', 3, 3, gprsTimer),
    lowerBoundTimerValue,
  ]),
  // 8.2.34-8.2.38: 5G ProSe UE-to-network relay security over the control plane (TS 33.503). The
  // parameters are kept as bytes: nothing in the AMF reads them yet.
  // 8.2.34
  relayKeyRequest: message(0x69, 'Relay Key Request', [
    prti,
    lvE('relayKeyRequestParameters', 22, 65537, bytes),
  ]),
  // 8.2.35
  relayKeyAccept: message(0x6a, 'Relay Key Accept', [
    prti,
    lvE('relayKeyResponseParameters', 51, 65537, bytes),
    eapMessage,
  ]),
  // 8.2.36
  relayKeyReject: message(0x6b, 'Relay Key Reject', [prti, eapMessage]),
  // 8.2.37
  relayAuthenticationRequest: message(0x6c, 'Relay Authentication Request', [prti, eapMessageLvE]),
  // 8.2.38
  relayAuthenticationResponse: message(0x6d, 'Relay Authentication Response', [prti, eapMessageLvE]),
};
