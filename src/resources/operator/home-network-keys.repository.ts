import type { Executor } from '../../storage/transaction.ts';

/** A stored home network key pair; the private key stays sealed by the secret box. */
interface StoredHomeNetworkKey {
  id: number;
  scheme: 'A' | 'B';
  publicKey: string;
  privateKeySealed: string;
}

export function createHomeNetworkKeysRepository(db: Executor) {
  return {
    async find(scheme: 'A' | 'B', id: number, executor: Executor = db): Promise<boolean> {
      const row = await executor
        .selectFrom('home_network_keys')
        .select('id')
        .where('scheme', '=', scheme)
        .where('id', '=', id)
        .executeTakeFirst();
      return row !== undefined;
    },

    async insert(
      key: { id: number; scheme: 'A' | 'B'; publicKey: string; privateKeySealed: string; createdAt: number },
      executor: Executor = db,
    ): Promise<void> {
      await executor
        .insertInto('home_network_keys')
        .values({
          id: key.id,
          scheme: key.scheme,
          public_key: key.publicKey,
          private_key_sealed: key.privateKeySealed,
          created_at: key.createdAt,
        })
        .execute();
    },

    /** False when no such key exists. */
    async delete(scheme: 'A' | 'B', id: number, executor: Executor = db): Promise<boolean> {
      const result = await executor
        .deleteFrom('home_network_keys')
        .where('scheme', '=', scheme)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

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
