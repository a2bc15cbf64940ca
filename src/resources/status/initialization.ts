import type { UsersRepository } from '../users/users.repository.ts';

/**
 * Whether the first user exists. Once true it stays true (the last admin cannot be deleted), so it is
 * remembered and the status endpoint costs no query; a restore may bring back an empty database and resets it.
 */
export function createInitializationState(users: UsersRepository) {
  let initialized = false;
  return {
    async isInitialized(): Promise<boolean> {
      if (!initialized) initialized = (await users.count()) > 0;
      return initialized;
    },
    forget(): void {
      initialized = false;
    },
  };
}

export type InitializationState = ReturnType<typeof createInitializationState>;
