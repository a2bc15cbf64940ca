import type { GnssLocateOutcome, NetworkEcidOutcome, UeEcidOutcome } from './lmf.ts';

/**
 * What the network offers location (the API's locator): a fresh serving cell and the LMF's methods.
 * The AMF provides it while N2 runs (amf/location.ts); the network state holds it for the API.
 */
export interface LocationServices {
  /**
   * Asks the radio for the device's current cell: Location Reporting Control when the device is
   * connected, Paging when it is idle. True once a report came, false after the wait (network.md 8).
   */
  refreshServingCell(imsi: string): Promise<boolean>;
  ecidNetwork(imsi: string, rat: 'nr' | 'eutra'): Promise<NetworkEcidOutcome>;
  ueEcid(imsi: string, rat: 'nr' | 'eutra'): Promise<UeEcidOutcome>;
  gnss(imsi: string): Promise<GnssLocateOutcome>;
}
