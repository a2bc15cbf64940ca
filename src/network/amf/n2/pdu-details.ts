import type { Cause, NGAPPDU } from '../../ngap/generated/types.ts';
import { protocolIes, ueNgapIdsOf } from '../../ngap/ue-ngap-ids.ts';
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

/**
 * The UE NGAP ids, the NAS message and the cause a PDU carries at its top level, whatever its message:
 * the same keys serve the procedures without a UE and the UE-associated ones.
 */
export function pduDetails(pdu: NGAPPDU): PduDetails {
  const details: PduDetails = {};
  const { amfUeNgapId, ranUeNgapId } = ueNgapIdsOf(pdu);
  if (ranUeNgapId !== undefined) details.ran_ue_ngap_id = ranUeNgapId;
  if (amfUeNgapId !== undefined) details.amf_ue_ngap_id = amfUeNgapId;
  for (const ie of protocolIes(pdu)) {
    switch (ie.name) {
      case 'NAS-PDU': {
        const name = nasMessageName(ie.value as Uint8Array);
        if (name !== undefined) details.nas = name;
        break;
      }
      case 'Cause':
        details.cause = causeText(ie.value as Cause);
        break;
      default:
        // Other IEs are in the decoded PDU, not in the summary.
        break;
    }
  }
  return details;
}
