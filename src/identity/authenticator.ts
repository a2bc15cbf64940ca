import type { Clock } from '../clock.ts';
import { verifyJwt } from '../crypto/jwt.ts';
import { hash, timingSafeEqual } from 'node:crypto';
import { API_TOKEN_PREFIX, parseApiToken } from './api-token-format.ts';
import { createExpiringSet, type ExpiringSetLimits } from './expiring-set.ts';
import type { Principal } from './principal.ts';
import type { RoleId } from './roles.ts';
import type { SecretHasher } from './secret-hasher.ts';

const VERIFIED_CACHE_LIMIT = 10_000;
/** A wrong secret holds its token id 10 s; 10,000 held ids at most. */
const FAILED_TOKEN_IDS: ExpiringSetLimits = { ttlMs: 10_000, capacity: 10_000 };

// The one-shot digest: createHash builds a stream object per call, which cost more than the digest.
const sha256 = (value: string): Buffer => hash('sha256', value, 'buffer');

/** The token of an `Authorization: Bearer <token>` header value. */
function bearerToken(authorization: string): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(authorization)?.[1];
}

/** A live login session and its user, as the login sessions repository finds it by id. */
interface LoginSessionOwner {
  userId: number;
  email: string;
  roleId: RoleId;
  expiresAt: number;
}

/** An API token's owner and the scrypt hash of its secret, as the API tokens repository finds it. */
export interface ApiTokenOwner {
  userId: number;
  email: string;
  roleId: RoleId;
  secretHash: string;
  expiresAt: number | null;
}

/** What the authenticator reads; the repositories of login sessions and API tokens provide it. */
interface CredentialSources {
  loginSessions: { findById(id: string): Promise<LoginSessionOwner | undefined> };
  apiTokens: { findOwner(publicId: string): Promise<ApiTokenOwner | undefined> };
  /** The current JWT signing secret. */
  signingSecret: { current(): Buffer };
}

/** What the services that change users and tokens tell the authenticator, once their change committed. */
export interface CredentialCache {
  forgetToken(publicId: string): void;
  forgetUser(userId: number): void;
  forgetAll(): void;
}

interface VerifiedToken {
  digest: Buffer;
  principal: Principal;
  expiresAt: number | null;
}

/**
 * Turns the credential of an `Authorization: Bearer` header into a principal: either a JWT bound to a
 * live session (checked in the database on every call, so logout and password changes take effect at
 * once), or an API token.
 *
 * API token secrets are hashed with scrypt, deliberately slow. Once a token has been verified, its owner
 * and the SHA-256 of its secret are kept in memory, so later requests cost one digest and no query.
 * Revocation stays immediate because every change that can invalidate a token (its deletion, its user's
 * deletion or role change, a restore) calls the CredentialCache after committing; expiry is checked on
 * every request. This holds while one process owns the database, as it does with SQLite.
 *
 * A wrong secret for a known id costs a hash too, so the id is then held for a few seconds
 * (an expiring set): another secret for it is refused without hashing meanwhile. The holder of the
 * right secret is not locked out for longer than that, and not at all once its secret is in memory.
 */
export function createAuthenticator(
  deps: CredentialSources & {
    clock: Clock;
    hasher: SecretHasher;
    /** How long a token id whose secret was wrong is held, and how many are remembered. */
    failedTokenIds?: ExpiringSetLimits;
  },
) {
  const { loginSessions, apiTokens, signingSecret, clock, hasher } = deps;
  const verified = new Map<string, VerifiedToken>();
  const failed = createExpiringSet({ ...(deps.failedTokenIds ?? FAILED_TOKEN_IDS), clock });
  // Bumped by every invalidation: a lookup that started before one must not cache what it read.
  let epoch = 0;

  /**
   * The check in progress for each token id. A token has one secret: while one is being checked, a request
   * with the same secret shares the check, and one with another secret waits for it and learns its answer
   * without hashing (the id is then verified with another secret, held, or gone).
   */
  const checking = new Map<string, { digest: Buffer; result: Promise<Principal | undefined> }>();

  async function check(publicId: string, secret: string, digest: Buffer): Promise<Principal | undefined> {
    const startedAt = epoch;
    const owner = await apiTokens.findOwner(publicId);
    if (!owner || (owner.expiresAt !== null && owner.expiresAt <= clock.now())) return undefined;
    if (!(await hasher.verify(secret, owner.secretHash, `token ${publicId}`))) {
      failed.add(publicId);
      return undefined;
    }
    failed.delete(publicId);
    const principal: Principal = {
      userId: owner.userId,
      email: owner.email,
      roleId: owner.roleId,
      via: 'api_token',
    };
    if (startedAt === epoch) {
      if (verified.size >= VERIFIED_CACHE_LIMIT) verified.clear();
      verified.set(publicId, { digest, principal, expiresAt: owner.expiresAt });
    }
    return principal;
  }

  /** A token verified earlier with this secret: its principal while unexpired, else null; undefined if none. */
  function fromMemory(publicId: string, digest: Buffer): Principal | null | undefined {
    const cached = verified.get(publicId);
    if (!cached || !timingSafeEqual(cached.digest, digest)) return undefined;
    return cached.expiresAt === null || cached.expiresAt > clock.now() ? cached.principal : null;
  }

  async function fromApiToken(token: string): Promise<Principal | undefined> {
    const parsed = parseApiToken(token);
    if (!parsed) return undefined;
    const { publicId, secret } = parsed;
    const digest = sha256(secret);
    for (;;) {
      const remembered = fromMemory(publicId, digest);
      if (remembered !== undefined) return remembered ?? undefined;
      if (failed.has(publicId)) return undefined;
      const other = checking.get(publicId);
      if (!other) break;
      if (timingSafeEqual(other.digest, digest)) return other.result;
      const outcome = await other.result.catch(() => 'refused' as const);
      // Refused by the hashing queue, that check proved nothing: look again (and maybe check this one).
      if (outcome === 'refused') continue;
      // Verified with another secret (so this one is wrong), wrong itself, or no such live token.
      if (outcome) failed.add(publicId);
      return undefined;
    }
    const result = check(publicId, secret, digest).finally(() => checking.delete(publicId));
    checking.set(publicId, { digest, result });
    return result;
  }

  async function fromJwt(token: string): Promise<Principal | undefined> {
    const claims = verifyJwt(token, signingSecret.current(), Math.floor(clock.now() / 1000));
    if (!claims || typeof claims.sid !== 'string') return undefined;
    const session = await loginSessions.findById(claims.sid);
    if (!session || session.expiresAt <= clock.now() || session.userId !== claims.sub) return undefined;
    return {
      userId: session.userId,
      email: session.email,
      roleId: session.roleId,
      via: 'bearer',
      sessionId: claims.sid,
    };
  }

  return {
    /** The principal for a raw `Authorization` header value, or undefined when it proves nothing. */
    async authenticate(authorization: string | undefined): Promise<Principal | undefined> {
      const token = authorization ? bearerToken(authorization) : undefined;
      if (!token) return undefined;
      return token.startsWith(API_TOKEN_PREFIX) ? fromApiToken(token) : fromJwt(token);
    },

    /**
     * What `authenticate` answers for an API token whose secret is in memory, at once (no query, no hash,
     * no promise): its principal, or null when it has expired. Undefined when only `authenticate` can
     * tell (a JWT, a token not verified yet, a wrong secret). The request pipeline asks this first.
     */
    rememberedApiToken(authorization: string): Principal | null | undefined {
      const token = bearerToken(authorization);
      const parsed = token?.startsWith(API_TOKEN_PREFIX) ? parseApiToken(token) : undefined;
      return parsed && fromMemory(parsed.publicId, sha256(parsed.secret));
    },

    /**
     * The verified-secret cache: a revoked token or changed user is forgotten as the change commits, and
     * everything after a restore, whose entries were checked against a database now replaced.
     */
    credentialCache: {
      forgetToken(publicId: string): void {
        epoch += 1;
        verified.delete(publicId);
        failed.delete(publicId);
      },
      forgetUser(userId: number): void {
        epoch += 1;
        for (const [publicId, entry] of verified)
          if (entry.principal.userId === userId) verified.delete(publicId);
      },
      forgetAll(): void {
        epoch += 1;
        verified.clear();
        failed.clear();
      },
    } satisfies CredentialCache,
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
