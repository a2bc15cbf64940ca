// What the AMF (SEAF role) asks of the AUSF and of the SIDF (TS 33.501 6.1.3.2, 6.12.2), in its own
// terms. core/network-functions.ts provides it from the AUSF in process.
import type { HomeNetworkKey } from '../../ports/operator-configuration.ts';
import type { Suci } from '../../nas/ie/mobile-identity.ts';

/** One challenge in flight, opaque to the AMF: it hands it back to settle the challenge. */
export interface PendingAuthentication {
  /** The SUPI (IMSI digits) being authenticated. */
  readonly supi: string;
  readonly servingNetworkName: string;
  readonly rand: Buffer;
}

/** What the Authentication Request carries (TS 24.501 8.2.1): RAND, AUTN and ABBA. */
export interface AuthenticationChallenge {
  rand: Buffer;
  autn: Buffer;
  abba: Buffer;
  pending: PendingAuthentication;
}

/** RES* checked (TS 33.501 6.1.3.2 steps 8-10): KSEAF when right. */
type AuthenticationConfirmation =
  { ok: true; supi: string; kseaf: Buffer } | { ok: false; reason: 'res-star-mismatch' | 'not-pending' };

/** The SUPI of a SUCI (TS 23.003 2.2B), or why there is none; every failure is 5GMM cause #7. */
type SupiResolution = { ok: true; supi: string } | { ok: false; error: string };

export interface Authentication {
  /** Nausf_UEAuthentication_Authenticate: a 5G-AKA challenge, undefined for an unknown subscriber. */
  authenticate(supi: string, servingNetworkName: string): Promise<AuthenticationChallenge | undefined>;
  /** Nausf_UEAuthentication_Authenticate with RES*: confirms the challenge once. */
  confirm(pending: PendingAuthentication, resStar: Uint8Array): AuthenticationConfirmation;
  /** Synch failure (TS 33.102 6.3.5): AUTS checked and SQN resynchronised; false when it is not. */
  resynchronise(pending: PendingAuthentication, auts: Uint8Array): Promise<boolean>;
  /** The SIDF's deconcealment under the operator's home network keys (TS 33.501 6.12.2). */
  resolveSupi(suci: Suci, homeNetworkKeys: readonly HomeNetworkKey[]): SupiResolution;
}
