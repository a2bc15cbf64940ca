// What the AMF hands the SMSF (Nsmsf_SMService, TS 23.502 4.13.2, 4.13.3; TS 29.540): SMS over NAS
// activated at registration, deactivated when the UE leaves, uplink SMS containers, and the UE's
// reachability (Namf_EventExposure UE reachability, which the SMSF uses to retry stored messages,
// TS 23.502 4.13.3.9). core/network-functions.ts provides it from the SMSF.

export interface SmsService {
  /**
   * Nsmsf_SMService_Activate (TS 23.502 4.13.2.2): true when the SMSF serves the UE, i.e. its
   * subscription allows SMS; the Registration Accept then says "SMS over NAS allowed".
   */
  activate(supi: string): Promise<boolean>;
  /** Nsmsf_SMService_Deactivate (4.13.2.3): the UE deregistered or no longer asks for SMS over NAS. */
  deactivate(supi: string): void;
  /** Nsmsf_SMService_UplinkSMS (4.13.3.1): a CP message from UL NAS Transport with payload container type SMS. */
  uplinkSms(supi: string, container: Uint8Array): void;
  /** The UE is reachable again (Registration Complete, or a Service Request's connection set up). */
  ueReachable(supi: string): void;
}
