// The operator's home network keys, prepared once for de-concealment (an import costs a point
// multiplication for Profile B) and found by the protection scheme and key identifier a SUCI names.
import {
  importHomeNetworkKey,
  PROTECTION_SCHEME,
  type EciesProfile,
  type HomeNetworkKey as PreparedKey,
} from '../../crypto/suci.ts';
import type { HomeNetworkKey } from '../ports/operator-configuration.ts';

export interface HomeNetworkKeyRing {
  /** The prepared key of a scheme and identifier, or undefined when none is configured. */
  find(profile: EciesProfile, homeNetworkPublicKeyId: number): PreparedKey | undefined;
}

/**
 * Imports every configured key; a key whose private part does not import is left out (a SUCI under it
 * then fails as under an unknown key). Rebuild the ring when the operator configuration changes.
 */
export function createHomeNetworkKeyRing(keys: readonly HomeNetworkKey[]): HomeNetworkKeyRing {
  const prepared = new Map<string, PreparedKey>();
  for (const key of keys) {
    const profile = key.scheme === 'A' ? PROTECTION_SCHEME.profileA : PROTECTION_SCHEME.profileB;
    const imported = importHomeNetworkKey(profile, key.privateKey);
    if (imported.ok) prepared.set(slot(profile, key.id), imported.value);
  }
  return { find: (profile, id) => prepared.get(slot(profile, id)) };
}

function slot(profile: EciesProfile, id: number): string {
  return `${profile}/${id}`;
}
