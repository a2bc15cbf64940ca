import type { Clock } from '../../clock.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor, PersonActor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { CredentialCache } from '../../identity/authenticator.ts';
import type { LoginSessionsRepository } from '../auth/login-sessions.repository.ts';
import { ROLE, type RoleId } from '../../identity/roles.ts';
import { hashingKeyOf, type SecretHasher } from '../../identity/secret-hasher.ts';
import type { User, UserWithPassword, UsersRepository } from './users.repository.ts';

export function createUsersService(deps: {
  db: Db;
  users: UsersRepository;
  sessions: LoginSessionsRepository;
  audit: AuditLogService;
  clock: Clock;
  hasher: SecretHasher;
  credentialCache: CredentialCache;
}) {
  const { db, users, sessions, audit, clock, hasher, credentialCache } = deps;

  async function getIn(executor: Executor, email: string): Promise<UserWithPassword> {
    const user = await users.findByEmail(email.toLowerCase(), executor);
    if (!user) throw new NotFoundError(`user ${email} not found`);
    return user;
  }

  /** Refuses a change that would leave no admin. Runs inside the change's transaction. */
  async function assertNotLastAdmin(executor: Executor, user: User, change: string): Promise<void> {
    if (user.roleId === ROLE.admin && (await users.countWithRole(ROLE.admin, executor)) <= 1) {
      throw new ConflictError(`cannot ${change} ${user.email}: it is the last admin`);
    }
  }

  return {
    async list(limit: number, offset: number): Promise<{ items: User[]; total: number }> {
      const [items, total] = await Promise.all([users.list(limit, offset), users.count()]);
      return { items, total };
    },

    get: (email: string): Promise<User> => getIn(db, email),

    async create(input: { email: string; password: string; roleId: RoleId }, actor: Actor): Promise<void> {
      const email = input.email.toLowerCase();
      const passwordHash = await hasher.hash(input.password, hashingKeyOf(actor));
      await db.transaction().execute(async (trx) => {
        if (await users.findByEmail(email, trx)) throw new ConflictError(`user ${email} already exists`);
        await users.insert({ email, passwordHash, roleId: input.roleId, createdAt: clock.now() }, trx);
        await audit.record(
          actor,
          { action: 'create_user', details: `User ${email} created with role ${input.roleId}` },
          trx,
        );
      });
    },

    async updateRole(email: string, roleId: RoleId, actor: Actor): Promise<void> {
      const userId = await db.transaction().execute(async (trx) => {
        const user = await getIn(trx, email);
        if (roleId !== ROLE.admin) await assertNotLastAdmin(trx, user, 'demote');
        await users.updateRole(user.id, roleId, trx);
        await audit.record(
          actor,
          {
            action: 'update_user',
            details: `User ${user.email} role changed from ${user.roleId} to ${roleId}`,
          },
          trx,
        );
        return user.id;
      });
      credentialCache.forgetUser(userId);
    },

    /** Sets a user's password (admin action); the user's sessions end. */
    async setPassword(email: string, password: string, actor: Actor): Promise<void> {
      const passwordHash = await hasher.hash(password, hashingKeyOf(actor));
      await db.transaction().execute(async (trx) => {
        const user = await getIn(trx, email);
        await users.updatePasswordHash(user.id, passwordHash, trx);
        await sessions.deleteForUser(user.id, trx);
        await audit.record(
          actor,
          {
            action: 'update_user_password',
            details: `Password of user ${user.email} changed; its sessions ended`,
          },
          trx,
        );
      });
    },

    /**
     * Changes the caller's own password after checking the current one. The session that made the change
     * stays (decisions section 5); the user's other sessions end. Made with an API token, which belongs to
     * no session, it ends them all. API tokens are not sessions and keep working.
     */
    async changeOwnPassword(
      caller: { userId: number; keptSessionId: string | undefined },
      input: { currentPassword: string; password: string },
      actor: PersonActor,
    ): Promise<void> {
      const { userId, keptSessionId } = caller;
      const user = await getIn(db, actor.email);
      if (
        user.id !== userId ||
        !(await hasher.verify(input.currentPassword, user.passwordHash, hashingKeyOf(actor)))
      ) {
        throw new InvalidError('current_password is incorrect');
      }
      const passwordHash = await hasher.hash(input.password, hashingKeyOf(actor));
      await db.transaction().execute(async (trx) => {
        await users.updatePasswordHash(userId, passwordHash, trx);
        if (keptSessionId === undefined) await sessions.deleteForUser(userId, trx);
        else await sessions.deleteForUserExcept(userId, keptSessionId, trx);
        await audit.record(
          actor,
          {
            action: 'update_user_password',
            details: `User ${actor.email} changed its own password; its other sessions ended`,
          },
          trx,
        );
      });
    },

    /** Deletes a user; its sessions and API tokens go with it. */
    async delete(email: string, actor: Actor): Promise<void> {
      const userId = await db.transaction().execute(async (trx) => {
        const user = await getIn(trx, email);
        await assertNotLastAdmin(trx, user, 'delete');
        await users.delete(user.id, trx);
        await audit.record(actor, { action: 'delete_user', details: `User ${user.email} deleted` }, trx);
        return user.id;
      });
      credentialCache.forgetUser(userId);
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
