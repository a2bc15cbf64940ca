import type { SecretBox } from '../../crypto/secret-box.ts';
import { importHomeNetworkKey, PROTECTION_SCHEME } from '../../crypto/suci.ts';
import { at, inStep, overRowids, type Candidate } from './candidate.ts';

const HEX_128 = /^[0-9a-f]{32}$/;
const HEX = /^([0-9a-f]{2})+$/;

/** Opens a sealed value; its plain text, or undefined when it does not open under this key file. */
function opened(secretBox: SecretBox, sealed: string): string | undefined {
  try {
    return secretBox.open(sealed);
  } catch {
    return undefined;
  }
}

/**
 * Every sealed value opens under the service's key file and holds what the service expects: subscriber K
 * and OPc and the operator's OP are 128-bit hex (TS 35.206), a home network private key is one of its
 * scheme whose public key is the one stored beside it (TS 33.501 Annex C.3). A value sealed under another
 * key, or garbage, would answer 500 to every read of the credentials and break authentication for good.
 * (The JWT signing secret is not checked: one that does not open is replaced, see signing-secret.ts.)
 */
export async function checkSealedValues(
  candidate: Candidate,
  secretBox: SecretBox,
): Promise<string | undefined> {
  const sealed128 = (table: string, columns: string[]) => {
    const rows = candidate.prepare(
      `SELECT CAST(rowid AS TEXT) AS row, ${columns.join(', ')} FROM ${table} WHERE ${inStep}`,
    );
    return overRowids(candidate, table, (from, to) => {
      for (const row of rows.all(from, to) as Record<string, string>[]) {
        for (const column of columns) {
          const value = opened(secretBox, row[column] ?? '');
          if (value === undefined) {
            return at(table, row.row, column, 'does not open under the key file of this service');
          }
          if (!HEX_128.test(value)) return at(table, row.row, column, 'does not hold 128 bits in hex');
        }
      }
      return undefined;
    });
  };
  const problem =
    (await sealed128('operator', ['op_sealed'])) ??
    (await sealed128('subscribers', ['key_sealed', 'opc_sealed']));
  if (problem) return problem;

  const keys = candidate.prepare(
    `SELECT CAST(rowid AS TEXT) AS row, scheme, public_key, private_key_sealed FROM home_network_keys WHERE ${inStep}`,
  );
  return overRowids(candidate, 'home_network_keys', (from, to) => {
    for (const key of keys.all(from, to) as {
      row: string;
      scheme: string;
      public_key: string;
      private_key_sealed: string;
    }[]) {
      const privateKey = opened(secretBox, key.private_key_sealed);
      if (privateKey === undefined) {
        return at(
          'home_network_keys',
          key.row,
          'private_key_sealed',
          'does not open under the key file of this service',
        );
      }
      const profile =
        key.scheme === 'A'
          ? PROTECTION_SCHEME.profileA
          : key.scheme === 'B'
            ? PROTECTION_SCHEME.profileB
            : undefined;
      if (profile === undefined) return at('home_network_keys', key.row, 'scheme', 'is not A or B');
      const imported = HEX.test(privateKey)
        ? importHomeNetworkKey(profile, Buffer.from(privateKey, 'hex'))
        : undefined;
      if (!imported?.ok) {
        return at(
          'home_network_keys',
          key.row,
          'private_key_sealed',
          `does not hold a scheme ${key.scheme} private key`,
        );
      }
      if (imported.value.publicKey.toString('hex') !== key.public_key) {
        return at('home_network_keys', key.row, 'public_key', 'is not the public key of its private key');
      }
    }
    return undefined;
  });
}
