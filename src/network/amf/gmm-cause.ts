/** The 5GMM causes the AMF sends or reads (TS 24.501 9.11.3.2), by their meaning. */
export const GMM_CAUSE = {
  illegalUe: 3,
  fiveGsServicesNotAllowed: 7,
  ueIdentityCannotBeDerived: 9,
  implicitlyDeregistered: 10,
  plmnNotAllowed: 11,
  trackingAreaNotAllowed: 12,
  macFailure: 20,
  synchFailure: 21,
  congestion: 22,
  ueSecurityCapabilitiesMismatch: 23,
  non5gAuthenticationUnacceptable: 26,
  noNetworkSlicesAvailable: 62,
  semanticallyIncorrectMessage: 95,
  messageNotCompatibleWithProtocolState: 101,
  protocolErrorUnspecified: 111,
} as const;
