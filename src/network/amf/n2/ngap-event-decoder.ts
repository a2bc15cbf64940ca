import { viewNgapPdu } from '../../ngap/ngap-codec.ts';
import { nasView } from '../gmm/nas-summary.ts';

/**
 * The `decoded` view of a stored NGAP radio event (network.md section 3), NAS-PDUs inside decoded by
 * the NAS codec. A PDU that does not decode gives `{error}`; the view never throws.
 */
export function decodeNgapEvent(raw: Uint8Array): Record<string, unknown> {
  return viewNgapPdu(raw, { nas: nasView }) as Record<string, unknown>;
}
