import type { Executor } from '../../storage/transaction.ts';
import type { RoleId } from '../users/roles.ts';

export interface SessionOwner {
  sessionId: number;
  userId: number;
  email: string;
  roleId: RoleId;
  expiresAt: number;
}

export function createSessionsRepository(db: Executor) {
  const owner = (executor: Executor) =>
    executor
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'sessions.id as session_id',
        'sessions.expires_at',
        'users.id as user_id',
        'users.email',
        'users.role_id',
      ]);

  type Row = { session_id: number; expires_at: number; user_id: number; email: string; role_id: number };
  const toOwner = (row: Row | undefined): SessionOwner | undefined =>
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
    ): Promise<number> {
      const row = await executor
        .insertInto('sessions')
        .values({
          user_id: session.userId,
          token_hash: session.tokenHash,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async findByTokenHash(tokenHash: string): Promise<SessionOwner | undefined> {
      return toOwner(await owner(db).where('sessions.token_hash', '=', tokenHash).executeTakeFirst());
    },

    async findById(id: number): Promise<SessionOwner | undefined> {
      return toOwner(await owner(db).where('sessions.id', '=', id).executeTakeFirst());
    },

    async deleteByTokenHash(tokenHash: string): Promise<SessionOwner | undefined> {
      const found = toOwner(await owner(db).where('sessions.token_hash', '=', tokenHash).executeTakeFirst());
      if (found) await db.deleteFrom('sessions').where('id', '=', found.sessionId).execute();
      return found;
    },

    async deleteForUser(userId: number, executor: Executor = db): Promise<void> {
      await executor.deleteFrom('sessions').where('user_id', '=', userId).execute();
    },

    async deleteAll(executor: Executor = db): Promise<void> {
      await executor.deleteFrom('sessions').execute();
    },

    async deleteExpired(now: number): Promise<void> {
      await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
