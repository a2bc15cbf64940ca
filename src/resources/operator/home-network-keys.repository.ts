import type { Executor } from '../../storage/transaction.ts';

/** A stored home network key pair; the private key stays sealed by the secret box. */
export interface StoredHomeNetworkKey {
  id: number;
  scheme: 'A' | 'B';
  publicKey: string;
  privateKeySealed: string;
}

export function createHomeNetworkKeysRepository(db: Executor) {
  return {
    async list(executor: Executor = db): Promise<StoredHomeNetworkKey[]> {
      const rows = await executor
        .selectFrom('home_network_keys')
        .select(['id', 'scheme', 'public_key', 'private_key_sealed'])
        .orderBy('scheme')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        scheme: row.scheme as 'A' | 'B',
        publicKey: row.public_key,
        privateKeySealed: row.private_key_sealed,
      }));
    },
  };
}

export type HomeNetworkKeysRepository = ReturnType<typeof createHomeNetworkKeysRepository>;
