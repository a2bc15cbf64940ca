// What the SMF asks of the AMF, in its own terms. The AMF provides it (amf/session-management.ts);
// core/network-functions.ts wires it.
import type { FiveGsmMessage, SNssai } from '../../nas/index.ts';

/** An N2 SM information item for one PDU session (TS 38.413 9.3.1.x items: id, S-NSSAI, transfer). */
export interface N2SmItem {
  pduSessionId: number;
  sNssai: SNssai;
  transfer: Uint8Array;
  /** The 5GSM message the item carries to the UE (NAS-PDU of the item), if any. */
  n1?: FiveGsmMessage;
}

/**
 * What the SMF asks of the AMF (Namf_Communication_N1N2MessageTransfer, TS 23.502 5.2.2.2.7): a 5GSM
 * message alone in DL NAS Transport, or N2 SM information in PDU Session Resource Setup/Modify/
 * Release. Each is false when the UE has no N2 connection (CM-IDLE) or the send failed.
 */
export interface SmfAmfPort {
  sendN1(supi: string, message: FiveGsmMessage): boolean;
  setupResources(supi: string, item: N2SmItem): boolean;
  modifyResources(supi: string, item: N2SmItem & { n1: FiveGsmMessage }): boolean;
  releaseResources(supi: string, item: N2SmItem): boolean;
  /**
   * Downlink data for a UE in CM-IDLE (N1N2MessageTransfer with N2 SM information, TS 23.502 4.2.3.3
   * step 3a): the AMF pages it, or is paging it already. False when it cannot: the UE is unknown, not
   * registered, connected, or no radio serves its registration area.
   */
  pageForDownlinkData(supi: string): boolean;
}
