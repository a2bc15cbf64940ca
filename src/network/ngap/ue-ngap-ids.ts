import type { NGAPPDU, UENGAPIDs } from './generated/types.ts';

/** The UE NGAP ids a PDU names at its top level (TS 38.413 9.3.3.1, 9.3.3.2), either side's. */
interface UeNgapIds {
  amfUeNgapId?: number;
  ranUeNgapId?: number;
}

interface AnyIe {
  name: string | null;
  value: unknown;
}

/** The message's protocol IEs as decoded, whatever its message; none for an extension alternative. */
export function protocolIes(pdu: NGAPPDU): readonly AnyIe[] {
  if (pdu.choice === null) return [];
  const body: unknown = pdu.value.value;
  if (body === null || typeof body !== 'object' || !('protocolIEs' in body)) return [];
  const ies = body.protocolIEs;
  return Array.isArray(ies) ? (ies as AnyIe[]) : [];
}

/**
 * The AMF and RAN UE NGAP IDs of a PDU: a message that names neither is not UE-associated signalling
 * (TS 38.412 7 keeps those on stream 0). UE Context Release Command names the UE by the UE-NGAP-IDs
 * CHOICE (TS 38.413 9.2.2.5, 9.3.3.13).
 */
export function ueNgapIdsOf(pdu: NGAPPDU): UeNgapIds {
  const ids: UeNgapIds = {};
  for (const ie of protocolIes(pdu)) {
    if (ie.name === 'AMF-UE-NGAP-ID') ids.amfUeNgapId = ie.value as number;
    else if (ie.name === 'RAN-UE-NGAP-ID') ids.ranUeNgapId = ie.value as number;
    else if (ie.name === 'UE-NGAP-IDs') {
      const pair = ie.value as UENGAPIDs;
      if (pair.choice === 'uE-NGAP-ID-pair') {
        ids.amfUeNgapId = pair.value.aMFUENGAPID;
        ids.ranUeNgapId = pair.value.rANUENGAPID;
      } else if (pair.choice === 'aMF-UE-NGAP-ID') ids.amfUeNgapId = pair.value;
    }
  }
  return ids;
}
