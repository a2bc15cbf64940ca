// What the SMSF asks of the AMF (Namf_Communication_N1N2MessageTransfer, TS 23.502 4.13.3.1-4.13.3.2,
// TS 29.518): carry an SMS container (a CP message, TS 24.011 7.2) to a UE in DL NAS Transport with
// payload container type SMS, paging it first when it is CM-IDLE. The AMF provides it (amf/sms.ts);
// core/network-functions.ts wires it.

/** The outcome of a transfer: sent to the UE, or the UE could not be reached (not registered, not paged). */
export type SmsTransferOutcome = 'sent' | 'unreachable';

export interface SmsfAmfPort {
  /**
   * Sends `container` to the UE `supi`. A CM-IDLE UE is paged and the container sent once it is
   * CM-CONNECTED, within the AMF's wait; `unreachable` otherwise.
   */
  transfer(supi: string, container: Uint8Array): Promise<SmsTransferOutcome>;
}
