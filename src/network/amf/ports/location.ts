// What the AMF hands the LMF (TS 23.273 4.3.1): the uplink positioning messages it routes by the LMF's
// Routing ID, NRPPa from the radio and LPP from the device. core/network-functions.ts provides it.

export interface LocationManagement {
  /** An uplink NRPPa PDU of the UE's radio (UE-associated NRPPa transport, TS 38.413 8.12). */
  nrppaReceived(supi: string, pdu: Uint8Array): void;
  /** An LPP message of the device (UL NAS Transport, payload container type LPP). */
  lppReceived(supi: string, message: Uint8Array): void;
}
