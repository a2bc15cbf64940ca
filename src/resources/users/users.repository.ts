import type { Executor } from '../../storage/transaction.ts';
import type { RoleId } from '../../identity/roles.ts';

export interface User {
  id: number;
  email: string;
  roleId: RoleId;
}

export interface UserWithPassword extends User {
  passwordHash: string;
}

export function createUsersRepository(db: Executor) {
  return {
    async findByEmail(email: string, executor: Executor = db): Promise<UserWithPassword | undefined> {
      const row = await executor
        .selectFrom('users')
        .select(['id', 'email', 'role_id', 'password_hash'])
        .where('email', '=', email)
        .executeTakeFirst();
      return (
        row && {
          id: row.id,
          email: row.email,
          roleId: row.role_id as RoleId,
          passwordHash: row.password_hash,
        }
      );
    },

    async list(limit: number, offset: number): Promise<User[]> {
      const rows = await db
        .selectFrom('users')
        .select(['id', 'email', 'role_id'])
        .orderBy('email')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => ({ id: row.id, email: row.email, roleId: row.role_id as RoleId }));
    },

    async count(executor: Executor = db): Promise<number> {
      const row = await executor
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async countWithRole(roleId: RoleId, executor: Executor = db): Promise<number> {
      const row = await executor
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('role_id', '=', roleId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async insert(
      user: { email: string; passwordHash: string; roleId: RoleId; createdAt: number },
      executor: Executor = db,
    ): Promise<number> {
      const row = await executor
        .insertInto('users')
        .values({
          email: user.email,
          password_hash: user.passwordHash,
          role_id: user.roleId,
          created_at: user.createdAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async updateRole(id: number, roleId: RoleId, executor: Executor = db): Promise<void> {
      await executor.updateTable('users').set({ role_id: roleId }).where('id', '=', id).execute();
    },

    async updatePasswordHash(id: number, passwordHash: string, executor: Executor = db): Promise<void> {
      await executor.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
    },

    /** Sessions and API tokens go with the user (ON DELETE CASCADE). */
    async delete(id: number, executor: Executor = db): Promise<void> {
      await executor.deleteFrom('users').where('id', '=', id).execute();
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
