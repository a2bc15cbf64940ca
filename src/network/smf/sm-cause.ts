/** The 5GSM causes the SMF sends (TS 24.501 9.11.4.2, Table 9.11.4.2.1). */
export const SM_CAUSE = {
  insufficientResources: 26,
  missingOrUnknownDnn: 27,
  unknownPduSessionType: 28,
  requestRejectedUnspecified: 31,
  requestedServiceOptionNotSubscribed: 33,
  regularDeactivation: 36,
  fiveGsQosNotAccepted: 37,
  networkFailure: 38,
  reactivationRequested: 39,
  invalidPduSessionIdentity: 43,
  pduSessionTypeIpv4OnlyAllowed: 50,
  pduSessionDoesNotExist: 54,
  unsupported5qiValue: 59,
  missingOrUnknownDnnInASlice: 70,
  semanticErrorInQosOperation: 83,
  messageTypeNonExistentOrNotImplemented: 97,
} as const;
