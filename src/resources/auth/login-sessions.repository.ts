import { randomBytes } from 'node:crypto';
import type { Executor } from '../../storage/transaction.ts';
import type { RoleId } from '../../identity/roles.ts';

interface LoginSessionOwner {
  sessionId: string;
  userId: number;
  email: string;
  roleId: RoleId;
  expiresAt: number;
}

export function createLoginSessionsRepository(db: Executor) {
  const owner = (executor: Executor) =>
    executor
      .selectFrom('login_sessions')
      .innerJoin('users', 'users.id', 'login_sessions.user_id')
      .select([
        'login_sessions.id as session_id',
        'login_sessions.expires_at',
        'users.id as user_id',
        'users.email',
        'users.role_id',
      ]);

  type Row = { session_id: string; expires_at: number; user_id: number; email: string; role_id: number };
  const toOwner = (row: Row | undefined): LoginSessionOwner | undefined =>
    row && {
      sessionId: row.session_id,
      userId: row.user_id,
      email: row.email,
      roleId: row.role_id as RoleId,
      expiresAt: Number(row.expires_at),
    };

  return {
    async insert(
      session: { userId: number; tokenHash: string; createdAt: number; expiresAt: number },
      executor: Executor = db,
    ): Promise<string> {
      // The id bearer tokens carry: 128 random bits, so no session can be named by guessing.
      const id = randomBytes(16).toString('base64url');
      await executor
        .insertInto('login_sessions')
        .values({
          id,
          user_id: session.userId,
          token_hash: session.tokenHash,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
        })
        .execute();
      return id;
    },

    async findByTokenHash(tokenHash: string): Promise<LoginSessionOwner | undefined> {
      return toOwner(await owner(db).where('login_sessions.token_hash', '=', tokenHash).executeTakeFirst());
    },

    async findById(id: string): Promise<LoginSessionOwner | undefined> {
      return toOwner(await owner(db).where('login_sessions.id', '=', id).executeTakeFirst());
    },

    async deleteByTokenHash(tokenHash: string): Promise<LoginSessionOwner | undefined> {
      const found = toOwner(
        await owner(db).where('login_sessions.token_hash', '=', tokenHash).executeTakeFirst(),
      );
      if (found) await db.deleteFrom('login_sessions').where('id', '=', found.sessionId).execute();
      return found;
    },

    async deleteForUser(userId: number, executor: Executor = db): Promise<void> {
      await executor.deleteFrom('login_sessions').where('user_id', '=', userId).execute();
    },

    /** Ends every session of a user but one (the session that changed its own password). */
    async deleteForUserExcept(userId: number, keptId: string, executor: Executor = db): Promise<void> {
      await executor
        .deleteFrom('login_sessions')
        .where('user_id', '=', userId)
        .where('id', '!=', keptId)
        .execute();
    },

    async deleteAll(executor: Executor = db): Promise<void> {
      await executor.deleteFrom('login_sessions').execute();
    },

    async deleteExpired(now: number): Promise<void> {
      await db.deleteFrom('login_sessions').where('expires_at', '<=', now).execute();
    },
  };
}

export type LoginSessionsRepository = ReturnType<typeof createLoginSessionsRepository>;
