import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { Envelope, ErrorBody, message, MessageResult, ok } from '../../http/schemas.ts';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from '../../http/session-cookie.ts';
import type { AuthService } from './auth.service.ts';
import type { Authenticator } from '../../identity/authenticator.ts';
import { Credentials, LoginCredentials, LookupResult, RefreshResult, TokenResult } from './auth.schema.ts';

export function authRoutes(deps: {
  auth: AuthService;
  authenticator: Authenticator;
  secureCookies: boolean;
}) {
  const { auth, authenticator, secureCookies } = deps;

  return async (app: App): Promise<void> => {
    app.post(
      '/api/v1/init',
      {
        config: { permission: 'public' },
        schema: {
          tags: ['auth'],
          summary: 'Create the first user (an admin) and log it in; only while no user exists',
          body: Credentials,
          response: { 201: Envelope(TokenResult) },
        },
      },
      async (request, reply) => {
        const session = await auth.initialize(request.body, request.ip);
        setSessionCookie(reply, session.sessionToken, secureCookies);
        return reply.code(201).send(ok({ message: 'PMN Core initialized', token: session.bearerToken }));
      },
    );

    app.post(
      '/api/v1/auth/login',
      {
        config: { permission: 'public' },
        schema: {
          tags: ['auth'],
          summary: 'Log in: sets the session cookie and returns a bearer token',
          description:
            'Limited per client address and e-mail, and per client address across e-mails (429 with ' +
            'Retry-After); 503 with Retry-After while too many credential checks are waiting (docs/security.md).',
          body: LoginCredentials,
          response: { 200: Envelope(TokenResult), 429: ErrorBody, 503: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = await auth.login(request.body, request.ip);
        setSessionCookie(reply, session.sessionToken, secureCookies);
        return ok({ message: 'logged in', token: session.bearerToken });
      },
    );

    app.post(
      '/api/v1/auth/refresh',
      {
        config: { permission: 'session' },
        schema: {
          tags: ['auth'],
          summary: 'A new bearer token for the session cookie',
          response: { 200: Envelope(RefreshResult) },
        },
      },
      async (request) => ok({ token: await auth.refresh(readSessionCookie(request)) }),
    );

    app.post(
      '/api/v1/auth/logout',
      {
        config: { permission: 'session' },
        schema: {
          tags: ['auth'],
          summary: 'End the session of the cookie and clear it',
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request, reply) => {
        await auth.logout(readSessionCookie(request), request.ip);
        clearSessionCookie(reply, secureCookies);
        return message('logged out');
      },
    );

    app.post(
      '/api/v1/auth/lookup-token',
      {
        config: { permission: 'public' },
        schema: {
          tags: ['auth'],
          summary: 'Whether the token in the Authorization header is valid',
          description:
            'An API token id whose secret was wrong is answered `valid: false` without checking for a few ' +
            'seconds; 429 or 503 with Retry-After while too many credential checks are waiting (docs/security.md).',
          response: { 200: Envelope(LookupResult), 429: ErrorBody, 503: ErrorBody },
        },
      },
      async (request) =>
        ok({ valid: (await authenticator.authenticate(request.headers.authorization)) !== undefined }),
    );

    app.post(
      '/api/v1/auth/rotate-secret',
      {
        config: { permission: 'auth:rotate-secret' },
        schema: {
          tags: ['auth'],
          summary: 'Replace the JWT signing secret; every session ends, API tokens keep working',
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await auth.rotateSecret(actorOf(request));
        return message('signing secret rotated; all sessions ended');
      },
    );
  };
}
