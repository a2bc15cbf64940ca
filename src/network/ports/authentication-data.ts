/**
 * The UDM/ARPF's authentication data of one subscriber, as the AUSF role needs it to build a 5G-AKA
 * authentication vector (TS 33.501 6.1.3.2, TS 29.503 AuthenticationSubscription). Reads are not
 * audited: they are the network's own use, not an operator reading credentials.
 */
interface AuthenticationData {
  /** The subscriber's permanent key K, 16 bytes. */
  k: Buffer;
  /** OPc, 16 bytes (TS 35.206). */
  opc: Buffer;
  /** The fresh SQN for this vector, 6 bytes; already stored as the subscriber's SQN_HE. */
  sqn: Buffer;
}

export interface AuthenticationDataPort {
  /**
   * K, OPc and a fresh SQN for one authentication vector, or undefined for an unknown IMSI. The new SQN
   * is stored before it is returned (TS 33.102 Annex C): concurrent calls for one subscriber never get
   * the same SQN, and a vector that never reaches the device costs only a skipped value.
   */
  generateAuthenticationData(imsi: string): Promise<AuthenticationData | undefined>;
  /**
   * A synchronisation failure: SQN_MS, recovered from the device's AUTS and verified by the caller,
   * becomes SQN_HE so that the next vector is fresh for the device (TS 33.102 6.3.5). False for an
   * unknown IMSI.
   */
  resynchronise(imsi: string, sqnMs: Buffer): Promise<boolean>;
}
