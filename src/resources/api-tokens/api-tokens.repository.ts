import type { ApiTokenOwner } from '../../identity/authenticator.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { RoleId } from '../../identity/roles.ts';

export interface ApiToken {
  publicId: string;
  name: string;
  expiresAt: number | null;
}

export function createApiTokensRepository(db: Executor) {
  return {
    async insert(
      token: {
        publicId: string;
        userId: number;
        name: string;
        secretHash: string;
        createdAt: number;
        expiresAt: number | null;
      },
      executor: Executor = db,
    ): Promise<void> {
      await executor
        .insertInto('api_tokens')
        .values({
          public_id: token.publicId,
          user_id: token.userId,
          name: token.name,
          secret_hash: token.secretHash,
          created_at: token.createdAt,
          expires_at: token.expiresAt,
        })
        .execute();
    },

    async listForUser(userId: number, limit: number, offset: number): Promise<ApiToken[]> {
      const rows = await db
        .selectFrom('api_tokens')
        .select(['public_id', 'name', 'expires_at'])
        .where('user_id', '=', userId)
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => ({
        publicId: row.public_id,
        name: row.name,
        expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      }));
    },

    async countForUser(userId: number, executor: Executor = db): Promise<number> {
      const row = await executor
        .selectFrom('api_tokens')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async existsWithName(userId: number, name: string, executor: Executor = db): Promise<boolean> {
      const row = await executor
        .selectFrom('api_tokens')
        .select('id')
        .where('user_id', '=', userId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row !== undefined;
    },

    async findOwner(publicId: string): Promise<ApiTokenOwner | undefined> {
      const row = await db
        .selectFrom('api_tokens')
        .innerJoin('users', 'users.id', 'api_tokens.user_id')
        .select([
          'api_tokens.secret_hash',
          'api_tokens.expires_at',
          'users.id',
          'users.email',
          'users.role_id',
        ])
        .where('api_tokens.public_id', '=', publicId)
        .executeTakeFirst();
      return (
        row && {
          userId: row.id,
          email: row.email,
          roleId: row.role_id as RoleId,
          secretHash: row.secret_hash,
          expiresAt: row.expires_at === null ? null : Number(row.expires_at),
        }
      );
    },

    /** Returns the name of the deleted token, or undefined when the user has no such token. */
    async delete(userId: number, publicId: string, executor: Executor = db): Promise<string | undefined> {
      const row = await executor
        .deleteFrom('api_tokens')
        .where('user_id', '=', userId)
        .where('public_id', '=', publicId)
        .returning('name')
        .executeTakeFirst();
      return row?.name;
    },
  };
}

export type ApiTokensRepository = ReturnType<typeof createApiTokensRepository>;
