import { hashSecret, verifySecret, type ScryptCost } from '../crypto/password-hash.ts';
import { auditIdentity, type Actor } from './actor.ts';
import type { HashingQueue } from './hashing-queue.ts';
import { secretHashProblem } from './secret-hash-format.ts';

/**
 * Hashing of passwords and token secrets, as the services use it. `key` names who the work is for (a
 * client address, a token id), so that the queue can keep one of them from taking every worker.
 */
export interface SecretHasher {
  hash(secret: string, key: string): Promise<string>;
  /**
   * False for a wrong secret and for a stored hash the service will not check (malformed, too costly).
   * `trusted` work waits in the queue's own lane (hashing-queue.ts).
   */
  verify(secret: string, stored: string, key: string, options?: { trusted?: boolean }): Promise<boolean>;
}

/** scrypt at `cost`, every hash through the one hashing queue. */
export function createSecretHasher(deps: { cost: ScryptCost; queue: HashingQueue }): SecretHasher {
  const { cost, queue } = deps;
  return {
    hash: (secret, key) => queue.run(key, () => hashSecret(secret, cost)),
    async verify(secret, stored, key, options) {
      if (secretHashProblem(stored) !== undefined) return false;
      return queue.run(key, () => verifySecret(secret, stored), options);
    },
  };
}

/** The hashing key of work done for an authenticated caller: its own, apart from its address's logins. */
export const hashingKeyOf = (actor: Actor): string => `actor ${auditIdentity(actor).actor}`;
