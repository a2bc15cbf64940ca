// One instance of every message kind the codec encodes, for the tshark check and the fuzzer's seeds.
// Values are chosen so that each carries the IEs the AMF and SMF use in practice, with valid contents.
import type {
  ExtendedProtocolConfigurationOptions,
  NasMessage,
  NasMessageType,
} from '../../../src/network/nas/index.ts';

const plmn = { mcc: '001', mnc: '01' };
const guti = {
  type: '5g-guti',
  ...plmn,
  amfRegionId: 2,
  amfSetId: 1,
  amfPointer: 0,
  tmsi: 0xc0000580,
} as const;
const suci = {
  type: 'suci',
  supiFormat: 'imsi',
  ...plmn,
  routingIndicator: '0',
  protectionScheme: 0,
  homeNetworkPublicKeyId: 0,
  schemeOutput: { scheme: 'null', msin: '0000000001' },
} as const;
const ngKsi = { mapped: false, ksi: 1 };
const timer = { unit: 1, value: 6 };
// Plain Uint8Arrays, as the decoder returns them, so decoded values compare equal to these.
const hex = (value: string): Uint8Array => new Uint8Array(Buffer.from(value, 'hex'));
const eap = hex('0101000401');
const epco: ExtendedProtocolConfigurationOptions = {
  configurationProtocol: 0,
  options: [
    { kind: 'dns-server-ipv4', address: '8.8.8.8' },
    { kind: 'ipv4-link-mtu', mtu: 1400 },
  ],
};
const sm = { pduSessionId: 5, pti: 1 };
const qosRules = [
  {
    identifier: 1,
    operationCode: 1,
    defaultRule: true,
    packetFilters: [{ identifier: 1, direction: 3, contents: hex('01') }],
    precedence: 255,
    segregation: false,
    qfi: 1,
  },
];
const qosFlows = [
  { qfi: 1, operationCode: 1, eBit: true, parameters: [{ identifier: 1, contents: hex('09') }] },
];
type LateRel17MessageType =
  | 'relayKeyRequest'
  | 'relayKeyAccept'
  | 'relayKeyReject'
  | 'relayAuthenticationRequest'
  | 'relayAuthenticationResponse'
  | 'serviceLevelAuthenticationCommand'
  | 'serviceLevelAuthenticationComplete'
  | 'remoteUeReport'
  | 'remoteUeReportResponse';
const ambr = { downlink: { unit: 6, value: 1000 }, uplink: { unit: 6, value: 500 } };

/**
 * The Release 17 messages Wireshark 4.0 does not know (5G ProSe relay security, service-level
 * authentication, remote UE report): checked by round trip against the cited tables, not by tshark.
 * The codec keeps their parameters as bytes; lengths are the tables' minimums or a little more.
 */
export const LATE_REL17_INSTANCES = {
  relayKeyRequest: {
    messageType: 'relayKeyRequest',
    prti: 1,
    // Relay service code (3 octets), Nonce_1 (16), remote UE identity (here 1 octet): 20 octets.
    relayKeyRequestParameters: hex('000001' + '00112233445566778899aabbccddeeff' + '01'),
  },
  relayKeyAccept: {
    messageType: 'relayKeyAccept',
    prti: 1,
    // K_NR_ProSe (32 octets), Nonce_2 (16), CP-PRUK ID (here 2 octets): 50 octets.
    relayKeyResponseParameters: new Uint8Array(50).fill(0xa5),
    eapMessage: hex('03010004'),
  },
  relayKeyReject: { messageType: 'relayKeyReject', prti: 2, eapMessage: hex('04020004') },
  relayAuthenticationRequest: { messageType: 'relayAuthenticationRequest', prti: 3, eapMessage: eap },
  relayAuthenticationResponse: {
    messageType: 'relayAuthenticationResponse',
    prti: 3,
    eapMessage: hex('0201000401'),
  },
  // A service-level-AA container (9.11.2.10) with one parameter: type, length, value.
  serviceLevelAuthenticationCommand: {
    messageType: 'serviceLevelAuthenticationCommand',
    ...sm,
    serviceLevelAaContainer: hex('0403aabbcc'),
  },
  serviceLevelAuthenticationComplete: {
    messageType: 'serviceLevelAuthenticationComplete',
    ...sm,
    serviceLevelAaContainer: hex('0403ccbbaa'),
  },
  // Remote UE context lists (9.11.4.29) of 13 octets, the least the table allows.
  remoteUeReport: {
    messageType: 'remoteUeReport',
    ...sm,
    remoteUeContextConnected: hex('010b0109010102030405060708'),
    remoteUeContextDisconnected: hex('010b0109010102030405060809'),
  },
  remoteUeReportResponse: { messageType: 'remoteUeReportResponse', ...sm },
} satisfies {
  [K in LateRel17MessageType]: Extract<NasMessage, { messageType: K }>;
};

export const INSTANCES = {
  registrationRequest: {
    messageType: 'registrationRequest',
    registrationType: { followOnRequestPending: true, value: 1 },
    ngKsi: { mapped: false, ksi: 7 },
    mobileIdentity: suci,
    fiveGmmCapability: hex('07'),
    ueSecurityCapability: { ea: [0, 1, 2, 3], ia: [0, 1, 2, 3], eea: [0, 1, 2, 3], eia: [0, 1, 2, 3] },
    requestedNssai: [{ sst: 1 }, { sst: 1, sd: 0x010203 }],
    lastVisitedRegisteredTai: { ...plmn, tac: 1 },
    ueUsageSetting: hex('01'),
    uplinkDataStatus: [1, 5],
    pduSessionStatus: [5],
  },
  registrationAccept: {
    messageType: 'registrationAccept',
    registrationResult: {
      value: 1,
      smsAllowed: false,
      nssaaToBePerformed: false,
      emergencyRegistered: false,
      disasterRoamingRegistration: false,
    },
    fiveGGuti: guti,
    equivalentPlmns: [{ mcc: '001', mnc: '001' }],
    taiList: [
      { type: 'non-consecutive-tacs', plmn, tacs: [1, 2] },
      { type: 'consecutive-tacs', plmn, firstTac: 16, count: 4 },
      { type: 'multiple-plmns', tais: [{ mcc: '002', mnc: '02', tac: 7 }] },
    ],
    allowedNssai: [{ sst: 1 }, { sst: 2, sd: 0xabcdef }],
    rejectedNssai: [{ cause: 0, sst: 3 }],
    fiveGsNetworkFeatureSupport: hex('0100'),
    pduSessionStatus: [5],
    t3512Value: { unit: 5, value: 9 },
    t3502Value: timer,
  },
  registrationComplete: { messageType: 'registrationComplete' },
  registrationReject: {
    messageType: 'registrationReject',
    fiveGmmCause: 9,
    t3346Value: timer,
    t3502Value: timer,
  },
  deregistrationRequestUeOriginating: {
    messageType: 'deregistrationRequestUeOriginating',
    deregistrationType: { switchOff: true, reRegistrationRequired: false, accessType: 1 },
    ngKsi,
    mobileIdentity: guti,
  },
  deregistrationAcceptUeOriginating: { messageType: 'deregistrationAcceptUeOriginating' },
  deregistrationRequestUeTerminated: {
    messageType: 'deregistrationRequestUeTerminated',
    deregistrationType: { switchOff: false, reRegistrationRequired: true, accessType: 1 },
    fiveGmmCause: 7,
    t3346Value: timer,
  },
  deregistrationAcceptUeTerminated: { messageType: 'deregistrationAcceptUeTerminated' },
  serviceRequest: {
    messageType: 'serviceRequest',
    ngKsi,
    serviceType: 1,
    fiveGSTmsi: { type: '5g-s-tmsi', amfSetId: 1, amfPointer: 0, tmsi: 0xc0000580 },
    uplinkDataStatus: [5],
    pduSessionStatus: [5],
  },
  serviceReject: { messageType: 'serviceReject', fiveGmmCause: 22, pduSessionStatus: [5], t3346Value: timer },
  serviceAccept: { messageType: 'serviceAccept', pduSessionStatus: [5], pduSessionReactivationResult: [] },
  controlPlaneServiceRequest: {
    messageType: 'controlPlaneServiceRequest',
    controlPlaneServiceType: 0,
    ngKsi,
    pduSessionStatus: [5],
  },
  networkSliceSpecificAuthenticationCommand: {
    messageType: 'networkSliceSpecificAuthenticationCommand',
    sNssai: { sst: 1 },
    eapMessage: eap,
  },
  networkSliceSpecificAuthenticationComplete: {
    messageType: 'networkSliceSpecificAuthenticationComplete',
    sNssai: { sst: 1, sd: 1 },
    eapMessage: hex('0201000401'),
  },
  networkSliceSpecificAuthenticationResult: {
    messageType: 'networkSliceSpecificAuthenticationResult',
    sNssai: { sst: 1 },
    eapMessage: hex('03010004'),
  },
  configurationUpdateCommand: {
    messageType: 'configurationUpdateCommand',
    configurationUpdateIndication: 1,
    fiveGGuti: guti,
    taiList: [{ type: 'consecutive-tacs', plmn, firstTac: 1, count: 1 }],
    allowedNssai: [{ sst: 1 }],
    localTimeZone: 0x40,
    universalTimeAndLocalTimeZone: hex('42502141000040'),
    networkDaylightSavingTime: hex('00'),
  },
  configurationUpdateComplete: { messageType: 'configurationUpdateComplete' },
  authenticationRequest: {
    messageType: 'authenticationRequest',
    ngKsi,
    abba: hex('0000'),
    authenticationParameterRand: hex('56387c70f45e176c3a6fc8afca3f754e'),
    authenticationParameterAutn: hex('76cc421882ce8000861d1febac23cb7a'),
  },
  authenticationResponse: {
    messageType: 'authenticationResponse',
    authenticationResponseParameter: hex('fe24b9b3a1b42ebc163018e44cf46833'),
  },
  authenticationReject: { messageType: 'authenticationReject', eapMessage: hex('04010004') },
  authenticationFailure: {
    messageType: 'authenticationFailure',
    fiveGmmCause: 21,
    authenticationFailureParameter: hex('0102030405060708090a0b0c0d0e'),
  },
  authenticationResult: {
    messageType: 'authenticationResult',
    ngKsi,
    eapMessage: hex('03010004'),
    abba: hex('0000'),
  },
  identityRequest: { messageType: 'identityRequest', identityType: 1 },
  identityResponse: {
    messageType: 'identityResponse',
    mobileIdentity: {
      ...suci,
      protectionScheme: 1,
      homeNetworkPublicKeyId: 1,
      schemeOutput: {
        scheme: 'profile-a',
        eccEphemeralPublicKey: new Uint8Array(32).fill(0x11),
        ciphertext: hex('0123456789'),
        macTag: hex('0102030405060708'),
      },
    },
  },
  securityModeCommand: {
    messageType: 'securityModeCommand',
    selectedNasSecurityAlgorithms: { ciphering: 0, integrity: 2 },
    ngKsi,
    replayedUeSecurityCapabilities: { ea: [0, 1, 2], ia: [1, 2] },
    imeisvRequest: 1,
    additional5gSecurityInformation: hex('02'),
  },
  securityModeComplete: {
    messageType: 'securityModeComplete',
    imeisv: { type: 'imeisv', digits: '4370816125816151' },
  },
  securityModeReject: { messageType: 'securityModeReject', fiveGmmCause: 23 },
  fiveGmmStatus: { messageType: 'fiveGmmStatus', fiveGmmCause: 96 },
  notification: { messageType: 'notification', accessType: 1 },
  notificationResponse: { messageType: 'notificationResponse', pduSessionStatus: [5] },
  ulNasTransport: {
    messageType: 'ulNasTransport',
    payloadContainerType: 1,
    payloadContainer: hex('2e0501c1ffff91a1'),
    pduSessionId: 5,
    requestType: 1,
    sNssai: { sst: 1 },
    dnn: 'internet',
  },
  dlNasTransport: {
    messageType: 'dlNasTransport',
    payloadContainerType: 1,
    payloadContainer: hex('2e0501c31a'),
    pduSessionId: 5,
    fiveGmmCause: 90,
    backOffTimerValue: timer,
  },
  pduSessionEstablishmentRequest: {
    messageType: 'pduSessionEstablishmentRequest',
    ...sm,
    integrityProtectionMaximumDataRate: { uplink: 0xff, downlink: 0xff },
    pduSessionType: 3,
    sscMode: 1,
    maximumNumberOfSupportedPacketFilters: 16,
    extendedProtocolConfigurationOptions: {
      configurationProtocol: 0,
      options: [
        { kind: 'raw', identifier: 0x000d, contents: new Uint8Array() },
        { kind: 'raw', identifier: 0x0010, contents: new Uint8Array() },
      ],
    },
  },
  pduSessionEstablishmentAccept: {
    messageType: 'pduSessionEstablishmentAccept',
    ...sm,
    selectedPduSessionType: 1,
    selectedSscMode: 1,
    authorizedQosRules: qosRules,
    sessionAmbr: ambr,
    pduAddress: { type: 1, ipv4: '10.45.0.2' },
    sNssai: { sst: 1 },
    authorizedQosFlowDescriptions: qosFlows,
    extendedProtocolConfigurationOptions: epco,
    dnn: 'internet',
  },
  pduSessionEstablishmentReject: {
    messageType: 'pduSessionEstablishmentReject',
    ...sm,
    fiveGsmCause: 27,
    backOffTimerValue: timer,
    allowedSscMode: 1,
  },
  pduSessionAuthenticationCommand: { messageType: 'pduSessionAuthenticationCommand', ...sm, eapMessage: eap },
  pduSessionAuthenticationComplete: {
    messageType: 'pduSessionAuthenticationComplete',
    ...sm,
    eapMessage: hex('0201000401'),
  },
  pduSessionAuthenticationResult: {
    messageType: 'pduSessionAuthenticationResult',
    ...sm,
    eapMessage: hex('03010004'),
  },
  pduSessionModificationRequest: {
    messageType: 'pduSessionModificationRequest',
    ...sm,
    fiveGsmCause: 31,
    requestedQosFlowDescriptions: qosFlows,
  },
  pduSessionModificationReject: {
    messageType: 'pduSessionModificationReject',
    ...sm,
    fiveGsmCause: 26,
    backOffTimerValue: timer,
  },
  pduSessionModificationCommand: {
    messageType: 'pduSessionModificationCommand',
    ...sm,
    sessionAmbr: ambr,
    authorizedQosRules: qosRules,
    authorizedQosFlowDescriptions: qosFlows,
  },
  pduSessionModificationComplete: { messageType: 'pduSessionModificationComplete', ...sm },
  pduSessionModificationCommandReject: {
    messageType: 'pduSessionModificationCommandReject',
    ...sm,
    fiveGsmCause: 83,
  },
  pduSessionReleaseRequest: { messageType: 'pduSessionReleaseRequest', ...sm, fiveGsmCause: 36 },
  pduSessionReleaseReject: { messageType: 'pduSessionReleaseReject', ...sm, fiveGsmCause: 43 },
  pduSessionReleaseCommand: {
    messageType: 'pduSessionReleaseCommand',
    ...sm,
    fiveGsmCause: 39,
    accessType: 1,
  },
  pduSessionReleaseComplete: { messageType: 'pduSessionReleaseComplete', ...sm },
  fiveGsmStatus: { messageType: 'fiveGsmStatus', ...sm, fiveGsmCause: 97 },
  ...LATE_REL17_INSTANCES,
} satisfies { [K in NasMessageType]: Extract<NasMessage, { messageType: K }> };
