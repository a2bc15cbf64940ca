import { BEARER_TTL_SECONDS, SESSION_TTL_MS } from '../../identity/credential-lifetimes.ts';
import { createExpiringSet } from '../../identity/expiring-set.ts';
import { personActor } from '../../identity/actor.ts';
import type { Clock } from '../../clock.ts';
import { signJwt } from '../../crypto/jwt.ts';
import { randomHex, sha256Hex } from '../../crypto/random-token.ts';
import { ConflictError, UnauthorizedError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import { ROLE } from '../../identity/roles.ts';
import type { SecretHasher } from '../../identity/secret-hasher.ts';
import type { UsersRepository } from '../users/users.repository.ts';
import type { LoginRateLimiter } from './login-rate-limiter.ts';
import type { LoginSessionsRepository } from './login-sessions.repository.ts';
import type { SigningSecret } from './signing-secret.ts';

/** What a successful login hands the client: the opaque session cookie value and a bearer token. */
interface LoginResult {
  sessionToken: string;
  bearerToken: string;
}

export function createAuthService(deps: {
  db: Db;
  users: UsersRepository;
  sessions: LoginSessionsRepository;
  signingSecret: SigningSecret;
  audit: AuditLogService;
  rateLimiter: LoginRateLimiter;
  clock: Clock;
  hasher: SecretHasher;
}) {
  const { db, users, sessions, signingSecret, audit, rateLimiter, clock, hasher } = deps;
  // A real hash to check when the e-mail is unknown, so both failures take the same time; made once.
  let absentUserHash: Promise<string> | undefined;
  // Client addresses that logged in lately: their logins wait in the hashing queue's trusted lane, so a
  // flood of guesses from addresses that never logged in does not keep the operator's workstation out.
  const knownAddresses = createExpiringSet({ ttlMs: SESSION_TTL_MS, capacity: 10_000, clock });

  function bearerFor(userId: number, sessionId: string): string {
    const now = Math.floor(clock.now() / 1000);
    return signJwt(
      { sub: userId, sid: sessionId, iat: now, exp: now + BEARER_TTL_SECONDS },
      signingSecret.current(),
    );
  }

  async function openSession(userId: number, executor: Executor): Promise<LoginResult> {
    const sessionToken = randomHex(32);
    const now = clock.now();
    const sessionId = await sessions.insert(
      { userId, tokenHash: sha256Hex(sessionToken), createdAt: now, expiresAt: now + SESSION_TTL_MS },
      executor,
    );
    return { sessionToken, bearerToken: bearerFor(userId, sessionId) };
  }

  return {
    /** Creates the first user, an admin, and logs it in. Only while no user exists. */
    async initialize(input: { email: string; password: string }, ip: string): Promise<LoginResult> {
      const email = input.email.toLowerCase();
      const passwordHash = await hasher.hash(input.password, `address ${ip}`);
      const session = await db.transaction().execute(async (trx) => {
        if ((await users.count(trx)) > 0) throw new ConflictError('PMN Core is already initialized');
        const userId = await users.insert(
          { email, passwordHash, roleId: ROLE.admin, createdAt: clock.now() },
          trx,
        );
        await audit.record(
          personActor(email, ip),
          {
            action: 'create_user',
            details: `User ${email} created with role ${ROLE.admin} at initialization`,
          },
          trx,
        );
        return openSession(userId, trx);
      });
      knownAddresses.add(ip);
      return session;
    },

    async login(input: { email: string; password: string }, ip: string): Promise<LoginResult> {
      const email = input.email.toLowerCase();
      const attempt = rateLimiter.attempt(ip, email);
      const user = await users.findByEmail(email);
      let stored = user?.passwordHash;
      if (stored === undefined) {
        absentUserHash ??= hasher.hash(randomHex(16), 'absent user');
        // A refused first attempt (busy queue) must not leave a rejected promise for every later one.
        stored = await absentUserHash.catch((error: unknown) => {
          absentUserHash = undefined;
          throw error;
        });
      }
      const valid = await hasher.verify(input.password, stored, `address ${ip}`, {
        trusted: knownAddresses.has(ip),
      });
      if (!user || !valid) {
        await audit.record(personActor(email, ip), {
          action: 'login_failed',
          details: `Failed login for ${email}`,
          level: 'WARN',
        });
        throw new UnauthorizedError('invalid credentials');
      }
      attempt.succeeded();
      knownAddresses.add(ip);
      return db.transaction().execute(async (trx) => {
        const result = await openSession(user.id, trx);
        await audit.record(
          personActor(email, ip),
          { action: 'login', details: `User ${email} logged in` },
          trx,
        );
        return result;
      });
    },

    /** A fresh bearer token for the session behind a cookie. */
    async refresh(sessionToken: string | undefined): Promise<string> {
      const session = sessionToken ? await sessions.findByTokenHash(sha256Hex(sessionToken)) : undefined;
      if (!session || session.expiresAt <= clock.now()) {
        throw new UnauthorizedError('session is missing, expired or ended; log in again');
      }
      return bearerFor(session.userId, session.sessionId);
    },

    /** Ends the session behind a cookie, when there is one. */
    async logout(sessionToken: string | undefined, ip: string): Promise<void> {
      if (!sessionToken) return;
      const ended = await sessions.deleteByTokenHash(sha256Hex(sessionToken));
      if (ended) {
        await audit.record(personActor(ended.email, ip), {
          action: 'logout',
          details: `User ${ended.email} logged out`,
        });
      }
    },

    /** Replaces the JWT signing secret and ends every session; API tokens keep working. */
    async rotateSecret(actor: Actor): Promise<void> {
      const replacement = await db.transaction().execute(async (trx) => {
        const pending = await signingSecret.replace(trx);
        await sessions.deleteAll(trx);
        await audit.record(
          actor,
          { action: 'rotate_secret', details: 'JWT signing secret rotated; all sessions ended' },
          trx,
        );
        return pending;
      });
      replacement.commit();
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
