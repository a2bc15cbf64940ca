import type { Clock } from '../clock.ts';
import type { ScryptCost } from '../crypto/password-hash.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { createAuthenticator } from '../identity/authenticator.ts';
import { createHashingQueue, defaultHashingLimits } from '../identity/hashing-queue.ts';
import { createSecretHasher } from '../identity/secret-hasher.ts';
import { shareCredentialCache } from '../identity/shared-credential-cache.ts';
import { createApiTokensRepository } from '../resources/api-tokens/api-tokens.repository.ts';
import { createApiTokensService } from '../resources/api-tokens/api-tokens.service.ts';
import type { AuditLogService } from '../resources/audit-logs/audit-logs.service.ts';
import { createAuthService } from '../resources/auth/auth.service.ts';
import { createLoginRateLimiter } from '../resources/auth/login-rate-limiter.ts';
import { createLoginSessionsRepository } from '../resources/auth/login-sessions.repository.ts';
import { loadSigningSecret } from '../resources/auth/signing-secret.ts';
import { createInitializationState } from '../resources/status/initialization.ts';
import { createUsersRepository } from '../resources/users/users.repository.ts';
import { createUsersService } from '../resources/users/users.service.ts';
import type { Db } from '../storage/database.ts';
import type { CoreWiring } from './wiring.ts';

const HOUR_MS = 3_600_000;

/** Users, login sessions, API tokens and the authenticator that turns credentials into principals. */
export async function wireIdentity(
  core: CoreWiring,
  deps: {
    db: Db;
    audit: AuditLogService;
    clock: Clock;
    scryptCost: ScryptCost;
    loginRateLimit: number;
    secretBox: SecretBox;
  },
) {
  const { db, audit, clock } = deps;
  const hashingQueue = createHashingQueue(defaultHashingLimits());
  const hasher = createSecretHasher({ cost: deps.scryptCost, queue: hashingQueue });
  const users = createUsersRepository(db);
  const loginSessions = createLoginSessionsRepository(db);
  const apiTokens = createApiTokensRepository(db);
  const signingSecret = await loadSigningSecret(db, deps.secretBox, core.notices);
  const initialization = createInitializationState(users);
  const authenticator = createAuthenticator({ loginSessions, apiTokens, signingSecret, clock, hasher });
  const credentialCache = shareCredentialCache(authenticator.credentialCache, core.notices);
  const rateLimiter = createLoginRateLimiter({ limit: deps.loginRateLimit, clock });

  core.onRestored((executor) => signingSecret.reload(executor));
  core.onRestored(async () => credentialCache.forgetAll());
  core.onRestored(async () => initialization.forget());
  core.job({
    name: 'expired-login-sessions',
    intervalMs: HOUR_MS,
    job: () => loginSessions.deleteExpired(clock.now()),
  });

  return {
    authenticator,
    initialization,
    auth: createAuthService({
      db,
      users,
      sessions: loginSessions,
      signingSecret,
      audit,
      rateLimiter,
      clock,
      hasher,
    }),
    users: createUsersService({
      db,
      users,
      sessions: loginSessions,
      audit,
      clock,
      hasher,
      credentialCache,
    }),
    apiTokens: createApiTokensService({
      db,
      users,
      apiTokens,
      audit,
      clock,
      hasher,
      credentialCache,
    }),
  };
}
