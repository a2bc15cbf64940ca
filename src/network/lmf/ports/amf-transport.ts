// What the LMF asks of the AMF (Namf_Communication, TS 23.273 4.3): reach the device and carry NRPPa
// to its radio and LPP to it. The AMF provides it (amf/location.ts); core/network-functions.ts wires it.

/** How the LMF reaches a device and its radio. */
export interface LmfTransport {
  /** Resolves true once the device is CM-CONNECTED (paged first when idle), false when it cannot be. */
  reach(imsi: string, withinMs: number): Promise<boolean>;
  /** Downlink UE Associated NRPPa Transport to the device's radio; false when it cannot be sent. */
  sendNrppa(imsi: string, pdu: Uint8Array): boolean;
  /** DL NAS Transport with payload container type LPP; false when it cannot be sent. */
  sendLpp(imsi: string, message: Uint8Array): boolean;
}
