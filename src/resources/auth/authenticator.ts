import type { Clock } from '../../clock.ts';
import { verifyJwt } from '../../crypto/jwt.ts';
import { verifySecret } from '../../crypto/password-hash.ts';
import { constantTimeEqual, sha256Hex } from '../../crypto/random-token.ts';
import { API_TOKEN_PREFIX, parseApiToken } from '../api-tokens/api-token-format.ts';
import type { ApiTokensRepository } from '../api-tokens/api-tokens.repository.ts';
import type { Principal } from './principal.ts';
import type { SessionsRepository } from './sessions.repository.ts';
import type { SigningSecret } from './signing-secret.ts';

const VERIFIED_CACHE_LIMIT = 10_000;

/**
 * Turns the credential of an `Authorization: Bearer` header into a principal: either a JWT bound to a
 * live session, or an API token. Every call checks the database, so logout, password changes, deletions
 * and revocations take effect on the next request.
 */
export function createAuthenticator(deps: {
  sessions: SessionsRepository;
  apiTokens: ApiTokensRepository;
  signingSecret: SigningSecret;
  clock: Clock;
}) {
  const { sessions, apiTokens, signingSecret, clock } = deps;
  // API token secrets are hashed with scrypt; once a secret has been verified, its SHA-256 is kept here so
  // later requests skip the deliberately slow hash. The row is still read on every request.
  const verifiedSecrets = new Map<string, string>();

  async function fromApiToken(token: string): Promise<Principal | undefined> {
    const parsed = parseApiToken(token);
    if (!parsed) return undefined;
    const owner = await apiTokens.findOwner(parsed.publicId);
    if (!owner || (owner.expiresAt !== null && owner.expiresAt <= clock.now())) return undefined;
    const digest = sha256Hex(parsed.secret);
    const cached = verifiedSecrets.get(parsed.publicId);
    if (cached === undefined || !constantTimeEqual(cached, digest)) {
      if (!(await verifySecret(parsed.secret, owner.secretHash))) return undefined;
      if (verifiedSecrets.size >= VERIFIED_CACHE_LIMIT) verifiedSecrets.clear();
      verifiedSecrets.set(parsed.publicId, digest);
    }
    return { userId: owner.userId, email: owner.email, roleId: owner.roleId, via: 'api_token' };
  }

  async function fromJwt(token: string): Promise<Principal | undefined> {
    const claims = verifyJwt(token, signingSecret.current(), Math.floor(clock.now() / 1000));
    if (!claims || typeof claims.sid !== 'number') return undefined;
    const session = await sessions.findById(claims.sid);
    if (!session || session.expiresAt <= clock.now() || session.userId !== claims.sub) return undefined;
    return { userId: session.userId, email: session.email, roleId: session.roleId, via: 'bearer' };
  }

  return {
    /** The principal for a raw `Authorization` header value, or undefined when it proves nothing. */
    async authenticate(authorization: string | undefined): Promise<Principal | undefined> {
      if (!authorization) return undefined;
      const match = /^Bearer +(\S+) *$/i.exec(authorization);
      const token = match?.[1];
      if (!token) return undefined;
      return token.startsWith(API_TOKEN_PREFIX) ? fromApiToken(token) : fromJwt(token);
    },

    /** Drops the verified-secret cache, whose entries were checked against a database now replaced. */
    forgetVerifiedSecrets(): void {
      verifiedSecrets.clear();
    },

    /** Looks up a session by the opaque value of its cookie. */
    async sessionFromCookie(cookieValue: string | undefined) {
      if (!cookieValue) return undefined;
      const session = await sessions.findByTokenHash(sha256Hex(cookieValue));
      return session && session.expiresAt > clock.now() ? session : undefined;
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
