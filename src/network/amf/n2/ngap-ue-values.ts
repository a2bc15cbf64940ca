import { bitStringOf } from '../../asn1/bit-string.ts';
import type { SNssai, UeSecurityCapability } from '../../nas/index.ts';
import type { AllowedNSSAI, UESecurityCapabilities } from '../../ngap/generated/types.ts';

// The UE's NAS values as the NGAP IEs that carry them to the radio.

/** NGAP's UE Security Capabilities (TS 38.413 9.3.1.86): bit 1 is 128-NEA1/NIA1, up to 3, of 16 bits. */
function ngapAlgorithms(algorithms: readonly number[] | undefined): ReturnType<typeof bitStringOf> {
  const value = (algorithms ?? []).reduce(
    (bits, a) => (a >= 1 && a <= 3 ? bits | (0x8000 >> (a - 1)) : bits),
    0,
  );
  return bitStringOf(value, 16);
}

export function ngapSecurityCapabilities(capability: UeSecurityCapability): UESecurityCapabilities {
  return {
    nRencryptionAlgorithms: ngapAlgorithms(capability.ea),
    nRintegrityProtectionAlgorithms: ngapAlgorithms(capability.ia),
    eUTRAencryptionAlgorithms: ngapAlgorithms(capability.eea),
    eUTRAintegrityProtectionAlgorithms: ngapAlgorithms(capability.eia),
  };
}

export function ngapAllowedNssai(slices: readonly SNssai[]): AllowedNSSAI {
  return slices.map((slice) => ({
    sNSSAI: {
      sST: Uint8Array.of(slice.sst),
      ...(slice.sd === undefined
        ? {}
        : { sD: Uint8Array.of(slice.sd >> 16, (slice.sd >> 8) & 0xff, slice.sd & 0xff) }),
    },
  }));
}
