import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';

const SETTING = 'jwt_signing_secret';

/** Reads the stored secret, storing a new random one first when there is none. */
async function readOrCreate(executor: Executor): Promise<Buffer> {
  const existing = await executor
    .selectFrom('settings')
    .select('value')
    .where('key', '=', SETTING)
    .executeTakeFirst();
  if (existing) return Buffer.from(existing.value, 'hex');
  await executor
    .insertInto('settings')
    .values({ key: SETTING, value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  // Another process may have won the insert; the stored value is the one that counts.
  const stored = await executor
    .selectFrom('settings')
    .select('value')
    .where('key', '=', SETTING)
    .executeTakeFirstOrThrow();
  return Buffer.from(stored.value, 'hex');
}

/**
 * The JWT signing secret lives in the database (so every restart keeps sessions valid) and in memory
 * (so verifying a token costs no query). `rotate` replaces both.
 */
export async function loadSigningSecret(db: Db) {
  let current = await readOrCreate(db);

  return {
    current: (): Buffer => current,
    /** Stores a new secret within the caller's transaction; call `commit` once it has committed. */
    async replace(executor: Executor): Promise<{ commit(): void }> {
      const next = randomBytes(32);
      await executor
        .updateTable('settings')
        .set({ value: next.toString('hex') })
        .where('key', '=', SETTING)
        .execute();
      return {
        commit: () => {
          current = next;
        },
      };
    },
    /** Reads the secret again, after a restore has replaced the database it came from. */
    async reload(executor: Executor): Promise<void> {
      current = await readOrCreate(executor);
    },
  };
}

export type SigningSecret = Awaited<ReturnType<typeof loadSigningSecret>>;
