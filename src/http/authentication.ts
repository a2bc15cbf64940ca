import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../errors.ts';
import { personActor, type PersonActor } from '../identity/actor.ts';
import type { Authenticator } from '../identity/authenticator.ts';
import type { Principal } from '../identity/principal.ts';
import { ROLE_NAMES } from '../identity/roles.ts';
import { PERMISSIONS, type Permission } from './permissions.ts';
import './route-config.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/**
 * The authentication and authorisation steps, in front of every route: each route names a permission,
 * the caller's bearer JWT or API token is resolved to a principal, and its role is checked against the
 * permission table. A route registered without a permission fails at startup.
 */
export function installAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', null);

  app.addHook('onRoute', (route) => {
    if (!route.config?.permission) {
      throw new Error(`route ${String(route.method)} ${route.url} declares no permission`);
    }
  });

  // A callback hook, not an async one: an API token whose secret is in memory (the common case for
  // scripts) is admitted without a promise; anything else waits for the authenticator.
  app.addHook('onRequest', (request, _reply, done) => {
    const permission = request.routeOptions.config.permission;
    if (!permission) return done(); // not-found handler
    const roles = PERMISSIONS[permission];
    if (roles === 'public' || roles === 'session') return done();
    const authorization = request.headers.authorization;
    if (!authorization) {
      return done(new UnauthorizedError('authentication required: send Authorization: Bearer <token>'));
    }
    const remembered = authenticator.rememberedApiToken(authorization);
    if (remembered !== undefined) return done(admit(request, remembered ?? undefined, permission, roles));
    authenticator.authenticate(authorization).then(
      (principal) => done(admit(request, principal, permission, roles)),
      (error: Error) => done(error),
    );
  });
}

/** Sets the request's principal when its role may use the route; otherwise the error to answer. */
function admit(
  request: FastifyRequest,
  principal: Principal | undefined,
  permission: Permission,
  roles: readonly number[],
): Error | undefined {
  if (!principal) return new UnauthorizedError('token is invalid, expired or revoked');
  if (!roles.includes(principal.roleId)) {
    return new ForbiddenError(
      `the ${ROLE_NAMES[principal.roleId]} role may not do this (needs ${permission})`,
    );
  }
  request.principal = principal;
  return undefined;
}

/**
 * Whether a request to a public route carries valid credentials (any role). A public route answers
 * everyone, so an invalid token is not refused here: the caller is simply not authenticated.
 */
export function credentialsValid(authenticator: Authenticator) {
  return async (authorization: string | undefined): Promise<boolean> => {
    if (!authorization) return false;
    const remembered = authenticator.rememberedApiToken(authorization);
    if (remembered !== undefined) return remembered !== null;
    try {
      return (await authenticator.authenticate(authorization)) !== undefined;
    } catch {
      // The credentials could not be checked (the database failing): the status still answers, bare.
      return false;
    }
  };
}

/** The authenticated caller; only valid on routes whose permission requires credentials. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError('authentication required');
  return request.principal;
}

/** The caller as the audit log records it. */
export function actorOf(request: FastifyRequest): PersonActor {
  return personActor(principalOf(request).email, request.ip);
}
