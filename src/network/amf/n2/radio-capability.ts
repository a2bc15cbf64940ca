import type { UERadioCapabilityForPaging } from '../../ngap/generated/types.ts';
import { REGISTRATION_TYPE, type NasMessageOf } from '../../nas/index.ts';
import type { PeerLogLimiter } from '../../peer-log-limiter.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import type { UeConnection } from '../context/ue-connections.ts';
import type { RadioCapabilityEndpoint, ReceivedUeRadioCapabilityInfoIndication } from './ue-ngap.ts';

/** What the AMF keeps of a UE Radio Capability Info Indication (TS 38.413 9.2.9.1). */
export interface UeRadioCapability {
  /** UE Radio Capability (9.3.1.74): the RRC UERadioAccessCapabilityInformation, opaque here. */
  ue: Uint8Array;
  /** UE Radio Capability for Paging (9.3.1.68). */
  forPaging?: UERadioCapabilityForPaging;
}

/**
 * The most bytes of capability kept per UE. The IEs are OCTET STRINGs without a size bound in TS 38.413,
 * and the AMF holds up to 110,000 UE contexts (amf-settings.ts), so an unbounded copy per UE lets a radio
 * take the AMF's memory; 16 KiB holds an NR capability with many band combinations (a few kB usually)
 * and caps the worst case near 1.8 GB. A larger one is not kept: without the IE in Initial Context Setup
 * the radio asks the UE itself (TS 38.413 8.3.1.2), so the cost is one RRC exchange, not a failure.
 */
export const MAX_RADIO_CAPABILITY_BYTES = 16_384;

/** Copies, so a kept capability does not pin the whole received SCTP buffer its bytes may view. */
const copy = (bytes: Uint8Array | undefined): Uint8Array | undefined =>
  bytes === undefined ? undefined : Uint8Array.from(bytes);

/** The capability to keep from an indication, or undefined when it is above the bound. */
function capabilityToKeep(message: ReceivedUeRadioCapabilityInfoIndication): UeRadioCapability | undefined {
  const paging = message.ueRadioCapabilityForPaging;
  const size =
    message.ueRadioCapability.length +
    (paging?.uERadioCapabilityForPagingOfNR?.length ?? 0) +
    (paging?.uERadioCapabilityForPagingOfEUTRA?.length ?? 0);
  if (size > MAX_RADIO_CAPABILITY_BYTES) return undefined;
  const nr = copy(paging?.uERadioCapabilityForPagingOfNR);
  const eutra = copy(paging?.uERadioCapabilityForPagingOfEUTRA);
  const forPaging: UERadioCapabilityForPaging | undefined =
    nr === undefined && eutra === undefined
      ? undefined
      : {
          ...(nr === undefined ? {} : { uERadioCapabilityForPagingOfNR: nr }),
          ...(eutra === undefined ? {} : { uERadioCapabilityForPagingOfEUTRA: eutra }),
        };
  return {
    ue: Uint8Array.from(message.ueRadioCapability),
    ...(forPaging === undefined ? {} : { forPaging }),
  };
}

/**
 * UE Radio Capability Info Indication (TS 38.413 8.14.1) for the AMF's UE contexts: the capability
 * replaces the one the UE context held ("the AMF shall, if supported, use it ... replace"), and goes
 * back to the radio in the next Initial Context Setup Request (9.2.2.1). The E-UTRA format capability
 * (for EPS interworking) is not kept.
 */
export function createRadioCapability(peerLog: PeerLogLimiter): RadioCapabilityEndpoint<AmfUe> {
  return {
    indicated(connection: UeConnection<AmfUe>, message: ReceivedUeRadioCapabilityInfoIndication): void {
      const ue = connection.owner;
      if (ue === undefined) return;
      const kept = capabilityToKeep(message);
      if (kept !== undefined) {
        ue.radioCapability = kept;
        return;
      }
      // The older capability no longer describes the UE: the radio asks the UE again when it needs it.
      delete ue.radioCapability;
      peerLog.warn(
        'radio_capability_too_large',
        connection.radio.id,
        { radio: connection.radio.name, ue: ue.id, bytes: message.ueRadioCapability.length },
        `AMF: UE radio capability above ${MAX_RADIO_CAPABILITY_BYTES} bytes not kept`,
      );
    },
    of: (connection: UeConnection<AmfUe>): UeRadioCapability | undefined => connection.owner?.radioCapability,
  };
}

/** NG-RAN-RCU, "NG-RAN radio capability update needed": bit 2 of the 5GS update type (TS 24.501 9.11.3.9A). */
const NG_RAN_RCU = 0x02;

/**
 * TS 23.501 5.4.4.1: the AMF deletes the UE radio capability it kept when the UE registers initially or
 * asks for an NG-RAN radio capability update (NG-RAN-RCU); the radio then asks the UE for it and sends
 * the new one in UE Radio Capability Info Indication. (At deregistration the UE context, capability
 * included, goes: ue-lifecycle.ts `removeContext`.)
 */
export function radioCapabilityOutdated(request: NasMessageOf<'registrationRequest'>): boolean {
  return (
    request.registrationType.value === REGISTRATION_TYPE.initial ||
    ((request.fiveGsUpdateType?.[0] ?? 0) & NG_RAN_RCU) !== 0
  );
}
