import type { Clock } from '../../clock.ts';
import { randomHex } from '../../crypto/random-token.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { CredentialCache } from '../../identity/authenticator.ts';
import type { User, UsersRepository } from '../users/users.repository.ts';
import { formatApiToken } from '../../identity/api-token-format.ts';
import { hashingKeyOf, type SecretHasher } from '../../identity/secret-hasher.ts';
import type { ApiToken, ApiTokensRepository } from './api-tokens.repository.ts';

const MAX_API_TOKENS_PER_USER = 12;

export function createApiTokensService(deps: {
  db: Db;
  users: UsersRepository;
  apiTokens: ApiTokensRepository;
  audit: AuditLogService;
  clock: Clock;
  hasher: SecretHasher;
  credentialCache: CredentialCache;
}) {
  const { db, users, apiTokens, audit, clock, hasher, credentialCache } = deps;

  async function owner(email: string): Promise<User> {
    const user = await users.findByEmail(email.toLowerCase());
    if (!user) throw new NotFoundError(`user ${email} not found`);
    return user;
  }

  return {
    async list(email: string, limit: number, offset: number): Promise<{ items: ApiToken[]; total: number }> {
      const user = await owner(email);
      const [items, total] = await Promise.all([
        apiTokens.listForUser(user.id, limit, offset),
        apiTokens.countForUser(user.id),
      ]);
      return { items, total };
    },

    /** Creates a token for the user and returns it in full; only its hash is kept. */
    async create(email: string, input: { name: string; expiresAt?: string }, actor: Actor): Promise<string> {
      const user = await owner(email);
      let expiresAt: number | null = null;
      if (input.expiresAt !== undefined) {
        expiresAt = Date.parse(input.expiresAt);
        if (Number.isNaN(expiresAt)) throw new InvalidError('expires_at must be an RFC 3339 date-time');
        if (expiresAt <= clock.now()) throw new InvalidError('expires_at must be in the future');
      }
      const publicId = randomHex(8);
      const secret = randomHex(32);
      const secretHash = await hasher.hash(secret, hashingKeyOf(actor));
      await db.transaction().execute(async (trx) => {
        if (await apiTokens.existsWithName(user.id, input.name, trx)) {
          throw new ConflictError(`user ${user.email} already has an API token named "${input.name}"`);
        }
        if ((await apiTokens.countForUser(user.id, trx)) >= MAX_API_TOKENS_PER_USER) {
          throw new ConflictError(
            `user ${user.email} already has ${MAX_API_TOKENS_PER_USER} API tokens; delete one first`,
          );
        }
        await apiTokens.insert(
          { publicId, userId: user.id, name: input.name, secretHash, createdAt: clock.now(), expiresAt },
          trx,
        );
        await audit.record(
          actor,
          {
            action: 'create_api_token',
            details: `API token "${input.name}" (${publicId}) created for user ${user.email}`,
          },
          trx,
        );
      });
      return formatApiToken(publicId, secret);
    },

    async delete(email: string, publicId: string, actor: Actor): Promise<void> {
      const user = await owner(email);
      await db.transaction().execute(async (trx) => {
        const name = await apiTokens.delete(user.id, publicId, trx);
        if (name === undefined) throw new NotFoundError(`API token ${publicId} not found`);
        await audit.record(
          actor,
          {
            action: 'delete_api_token',
            details: `API token "${name}" (${publicId}) of user ${user.email} deleted`,
          },
          trx,
        );
      });
      credentialCache.forgetToken(publicId);
    },
  };
}

export type ApiTokensService = ReturnType<typeof createApiTokensService>;
