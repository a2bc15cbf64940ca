import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';

const SETTING = 'jwt_signing_secret';

/**
 * The JWT signing secret lives in the database (so every restart keeps sessions valid) and in memory
 * (so verifying a token costs no query). `rotate` replaces both.
 */
export async function loadSigningSecret(db: Db) {
  const existing = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', SETTING)
    .executeTakeFirst();
  let current = existing ? Buffer.from(existing.value, 'hex') : randomBytes(32);
  if (!existing) {
    await db
      .insertInto('settings')
      .values({ key: SETTING, value: current.toString('hex') })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    // Another process may have won the insert; the stored value is the one that counts.
    const stored = await db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', SETTING)
      .executeTakeFirstOrThrow();
    current = Buffer.from(stored.value, 'hex');
  }

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
  };
}

export type SigningSecret = Awaited<ReturnType<typeof loadSigningSecret>>;
