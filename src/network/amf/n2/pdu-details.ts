import type { Cause, NGAPPDU, UENGAPIDs } from '../../ngap/generated/types.ts';
import { causeText } from './criticality-diagnostics.ts';
import { nasMessageName } from '../gmm/nas-summary.ts';

/** The summary of one NGAP PDU a radio event carries in `details` (network.md section 3). */
export type PduDetails = {
  ran_ue_ngap_id?: number;
  amf_ue_ngap_id?: number;
  /** The 5GMM/5GSM message name of a plain or integrity-protected NAS-PDU inside. */
  nas?: string;
  /** `<group>/<value>`, e.g. `misc/unknown-PLMN-or-SNPN`. */
  cause?: string;
  /** The SUPI of the UE the ids name, once the AMF knows it (the caller adds it). */
  imsi?: string;
};

interface AnyIe {
  name: string | null;
  value: unknown;
}

function protocolIes(pdu: NGAPPDU): readonly AnyIe[] {
  if (pdu.choice === null) return [];
  const body: unknown = pdu.value.value;
  if (body === null || typeof body !== 'object' || !('protocolIEs' in body)) return [];
  const ies = body.protocolIEs;
  return Array.isArray(ies) ? (ies as AnyIe[]) : [];
}

/**
 * The UE NGAP ids, the NAS message and the cause a PDU carries at its top level, whatever its message:
 * the same keys serve the procedures without a UE and the UE-associated ones.
 */
export function pduDetails(pdu: NGAPPDU): PduDetails {
  const details: PduDetails = {};
  for (const ie of protocolIes(pdu)) {
    switch (ie.name) {
      case 'RAN-UE-NGAP-ID':
        details.ran_ue_ngap_id = ie.value as number;
        break;
      case 'AMF-UE-NGAP-ID':
        details.amf_ue_ngap_id = ie.value as number;
        break;
      case 'NAS-PDU': {
        const name = nasMessageName(ie.value as Uint8Array);
        if (name !== undefined) details.nas = name;
        break;
      }
      case 'Cause':
        details.cause = causeText(ie.value as Cause);
        break;
      case 'UE-NGAP-IDs': {
        // UE Context Release Command names the UE by this CHOICE (TS 38.413 9.2.2.5, 9.3.3.13).
        const ids = ie.value as UENGAPIDs;
        if (ids.choice === 'uE-NGAP-ID-pair') {
          details.amf_ue_ngap_id = ids.value.aMFUENGAPID;
          details.ran_ue_ngap_id = ids.value.rANUENGAPID;
        } else if (ids.choice === 'aMF-UE-NGAP-ID') details.amf_ue_ngap_id = ids.value;
        break;
      }
      default:
        // Other IEs are in the decoded PDU, not in the summary.
        break;
    }
  }
  return details;
}
