// The 5GMM messages a UE sends (TS 24.501 8.2), built from its configuration and state. A registration
// request that is an initial NAS message carries the cleartext IEs only (TS 24.501 4.4.6); the full one
// travels later, protected, in the Security Mode Complete's NAS message container.
import type { MobileIdentity } from '../../network/nas/ie/mobile-identity.ts';
import {
  NO_KEY_AVAILABLE,
  REGISTRATION_TYPE,
  type NasKeySetIdentifier,
  type UeSecurityCapability,
} from '../../network/nas/ie/mobility.ts';
import type { SNssai } from '../../network/nas/ie/nssai.ts';
import type { NasMessageOf } from '../../network/nas/message-codec.ts';

export const NO_KEY: NasKeySetIdentifier = { mapped: false, ksi: NO_KEY_AVAILABLE };

export type RegistrationKind = 'initial' | 'mobility' | 'periodic';

const REGISTRATION_TYPE_OF: Record<RegistrationKind, number> = {
  initial: REGISTRATION_TYPE.initial,
  mobility: REGISTRATION_TYPE.mobilityUpdating,
  periodic: REGISTRATION_TYPE.periodicUpdating,
};

interface RegistrationRequestInput {
  kind: RegistrationKind;
  ngKsi: NasKeySetIdentifier;
  identity: MobileIdentity;
  securityCapability: UeSecurityCapability;
  requestedNssai: readonly SNssai[];
  /** SMS over NAS asked for: the 5GS update type's "SMS requested" bit (TS 24.501 9.11.3.9A). */
  smsRequested?: boolean;
  /** IMS voice supported, voice centric: UE's usage setting (TS 24.501 9.11.3.55, bit 1 = 0). */
  imsVoice?: boolean;
}

/** The cleartext IEs of TS 24.501 4.4.6 only: what an unprotected initial Registration Request may carry. */
export function cleartextRegistrationRequest(
  input: RegistrationRequestInput,
): NasMessageOf<'registrationRequest'> {
  return {
    messageType: 'registrationRequest',
    registrationType: { followOnRequestPending: false, value: REGISTRATION_TYPE_OF[input.kind] },
    ngKsi: input.ngKsi,
    mobileIdentity: input.identity,
    ueSecurityCapability: input.securityCapability,
  };
}

/** The whole Registration Request (TS 24.501 8.2.6), with the requested NSSAI. */
export function fullRegistrationRequest(
  input: RegistrationRequestInput,
): NasMessageOf<'registrationRequest'> {
  return {
    ...cleartextRegistrationRequest(input),
    ...(input.requestedNssai.length === 0 ? {} : { requestedNssai: [...input.requestedNssai] }),
    // Not a cleartext IE (4.4.6): it travels in the container.
    ...(input.smsRequested === true ? { fiveGsUpdateType: Uint8Array.of(0x01) } : {}),
    ...(input.imsVoice === true ? { ueUsageSetting: Uint8Array.of(0x00) } : {}),
  };
}

/** 5GMM causes the UE sends (TS 24.501 9.11.3.2). */
export const UE_CAUSE = {
  macFailure: 20,
  synchFailure: 21,
  ueSecurityCapabilitiesMismatch: 23,
  securityModeRejectedUnspecified: 24,
  non5gAuthenticationUnacceptable: 26,
} as const;

/** Service type (TS 24.501 9.11.3.50). */
export const SERVICE_TYPE = { signalling: 0, data: 1, mobileTerminatedServices: 2 } as const;
