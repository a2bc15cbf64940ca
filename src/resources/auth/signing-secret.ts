import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';

const SETTING = 'jwt_signing_secret';
const SECRET_BYTES = 32;

/**
 * The JWT signing secret lives in the database, sealed under the key file (so a backup or a copy of the
 * database alone cannot mint tokens, and every restart keeps sessions valid), and in memory (so verifying
 * a token costs no query). `replace` rotates it.
 */
export async function loadSigningSecret(db: Db, secretBox: SecretBox) {
  const sealedSecret = (): { secret: Buffer; sealed: string } => {
    const secret = randomBytes(SECRET_BYTES);
    return { secret, sealed: secretBox.seal(secret.toString('hex')) };
  };

  /**
   * The stored secret, when it opens under the key file and is 32 bytes. Anything else (none yet, a
   * plain-text secret from before sealing, garbage from a crafted backup, a secret sealed under another
   * key) is replaced by a new random secret: bearer tokens signed before end, login sessions stay.
   */
  async function readOrCreate(executor: Executor): Promise<Buffer> {
    const existing = await executor
      .selectFrom('settings')
      .select('value')
      .where('key', '=', SETTING)
      .executeTakeFirst();
    if (existing) {
      try {
        const secret = Buffer.from(secretBox.open(existing.value), 'hex');
        if (secret.length === SECRET_BYTES) return secret;
      } catch {
        // Not sealed under this key file: rotated below.
      }
    }
    const { secret, sealed } = sealedSecret();
    await executor
      .insertInto('settings')
      .values({ key: SETTING, value: sealed })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: sealed }))
      .execute();
    return secret;
  }

  let current = await readOrCreate(db);

  return {
    current: (): Buffer => current,
    /** Stores a new secret within the caller's transaction; call `commit` once it has committed. */
    async replace(executor: Executor): Promise<{ commit(): void }> {
      const { secret: next, sealed } = sealedSecret();
      await executor.updateTable('settings').set({ value: sealed }).where('key', '=', SETTING).execute();
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
