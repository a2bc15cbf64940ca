import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { localChangeNotices, type ChangeNotices } from '../../storage/change-notices.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';

const SETTING = 'jwt_signing_secret';
const SECRET_BYTES = 32;
const TOPIC = 'signing-secret';

/**
 * The JWT signing secret lives in the database, sealed under the key file (so a backup or a copy of the
 * database alone cannot mint tokens, and every restart keeps sessions valid), and in memory (so verifying
 * a token costs no query). `replace` rotates it; the other processes on the database hear of it
 * (`notices`) and read it again, as they do when notices may have been missed.
 */
export async function loadSigningSecret(
  db: Db,
  secretBox: SecretBox,
  notices: ChangeNotices = localChangeNotices,
) {
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
  // Moves at every change of `current`: a read that started before one must not undo it.
  let version = 0;
  const set = (secret: Buffer) => {
    current = secret;
    version += 1;
  };

  const readAgain = async (): Promise<void> => {
    const started = version;
    const secret = await readOrCreate(db);
    if (version === started) set(secret);
  };
  notices.listen(TOPIC, readAgain);
  notices.onMissed(readAgain);

  return {
    current: (): Buffer => current,
    /** Stores a new secret within the caller's transaction; call `commit` once it has committed. */
    async replace(executor: Executor): Promise<{ commit(): void }> {
      const { secret: next, sealed } = sealedSecret();
      await executor.updateTable('settings').set({ value: sealed }).where('key', '=', SETTING).execute();
      return {
        commit: () => {
          set(next);
          notices.send(TOPIC, null);
        },
      };
    },
    /** Reads the secret again, after a restore has replaced the database it came from. */
    async reload(executor: Executor): Promise<void> {
      set(await readOrCreate(executor));
    },
  };
}

export type SigningSecret = Awaited<ReturnType<typeof loadSigningSecret>>;
