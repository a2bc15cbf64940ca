// The SIDF (TS 33.501 6.12.2): the SUPI of a SUCI of SUPI type IMSI (TS 23.003 2.2B), under the null
// scheme or an ECIES profile with the home network key the SUCI names. Every failure is a value; the AMF
// answers all of them with 5GMM cause #7, "5GS services not allowed" (registration.ts, NOT_A_SUBSCRIBER).
import { deconcealSuci, PROTECTION_SCHEME, type EciesProfile, type SuciError } from '../../crypto/suci.ts';
import type { Suci } from '../nas/ie/mobile-identity.ts';
import type { HomeNetworkKeyRing } from './home-network-keys.ts';

type SupiResolutionError =
  /** A SUCI in NAI form (SUPI type network specific identifier): this core serves IMSIs only. */
  | 'unsupported-supi-format'
  /** A protection scheme other than null, Profile A and Profile B. */
  | 'unsupported-protection-scheme'
  | SuciError;

/** The SUPI of type IMSI as its digits: MCC, MNC, MSIN. */
type SupiResolution = { ok: true; supi: string } | { ok: false; error: SupiResolutionError };

export function resolveSupi(suci: Suci, keys: HomeNetworkKeyRing): SupiResolution {
  if (suci.supiFormat !== 'imsi') return { ok: false, error: 'unsupported-supi-format' };
  const output = suci.schemeOutput;
  let schemeOutput: Uint8Array;
  switch (output.scheme) {
    case 'null':
      // The codec keeps the nibbles as hex digits; an MSIN is 1 to 10 decimal digits (TS 23.003 2.2).
      if (!/^\d{1,10}$/.test(output.msin)) return { ok: false, error: 'invalid-msin' };
      return { ok: true, supi: suci.mcc + suci.mnc + output.msin };
    case 'profile-a':
    case 'profile-b':
      schemeOutput = Buffer.concat([output.eccEphemeralPublicKey, output.ciphertext, output.macTag]);
      break;
    case 'other':
      return { ok: false, error: 'unsupported-protection-scheme' };
  }
  const profile: EciesProfile =
    output.scheme === 'profile-a' ? PROTECTION_SCHEME.profileA : PROTECTION_SCHEME.profileB;
  const msin = deconcealSuci(
    { protectionScheme: profile, homeNetworkPublicKeyId: suci.homeNetworkPublicKeyId, schemeOutput },
    (id) => keys.find(profile, id),
  );
  return msin.ok ? { ok: true, supi: suci.mcc + suci.mnc + msin.value } : msin;
}
