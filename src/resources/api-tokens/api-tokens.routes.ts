import type { App } from '../../http/app-types.ts';
import { actorOf, principalOf } from '../../http/authentication.ts';
import type { Permission } from '../../http/permissions.ts';
import {
  Envelope,
  message,
  MessageResult,
  ok,
  Paginated,
  paginated,
  PaginationQuery,
  pageWindow,
} from '../../http/schemas.ts';
import { EmailParams } from '../users/users.schema.ts';
import type { ApiToken } from './api-tokens.repository.ts';
import {
  ApiTokenItem,
  CreateApiTokenBody,
  CreatedApiToken,
  OwnerTokenIdParams,
  TokenIdParams,
} from './api-tokens.schema.ts';
import type { ApiTokensService } from './api-tokens.service.ts';

const toItem = (token: ApiToken) => ({
  id: token.publicId,
  name: token.name,
  expires_at: token.expiresAt === null ? null : new Date(token.expiresAt).toISOString(),
});

/**
 * The same three operations twice: on the caller's own tokens (`/users/me/api-tokens`) and, for admins,
 * on anyone's (`/users/{email}/api-tokens`).
 */
export function apiTokensRoutes(deps: { apiTokens: ApiTokensService }) {
  const { apiTokens } = deps;

  return async (app: App): Promise<void> => {
    const scopes: { base: string; permission: Permission; own: boolean }[] = [
      { base: '/api/v1/users/me/api-tokens', permission: 'self:api-tokens', own: true },
      { base: '/api/v1/users/:email/api-tokens', permission: 'users:manage', own: false },
    ];

    for (const { base, permission, own } of scopes) {
      const whose = own ? 'the calling user' : 'a user';
      const ownerOf = (request: { params: unknown }, principalEmail: () => string) =>
        own ? principalEmail() : (request.params as { email: string }).email;

      app.get(
        base,
        {
          config: { permission },
          schema: {
            tags: ['api-tokens'],
            summary: `List the API tokens of ${whose}`,
            ...(own ? {} : { params: EmailParams }),
            querystring: PaginationQuery,
            response: { 200: Envelope(Paginated(ApiTokenItem)) },
          },
        },
        async (request) => {
          const { limit, offset } = pageWindow(request.query);
          const owner = ownerOf(request, () => principalOf(request).email);
          const { items, total } = await apiTokens.list(owner, limit, offset);
          return ok(paginated(items.map(toItem), total, request.query));
        },
      );

      app.post(
        base,
        {
          config: { permission },
          schema: {
            tags: ['api-tokens'],
            summary: `Create an API token for ${whose}; the token is shown once`,
            ...(own ? {} : { params: EmailParams }),
            body: CreateApiTokenBody,
            response: { 201: Envelope(CreatedApiToken) },
          },
        },
        async (request, reply) => {
          const owner = ownerOf(request, () => principalOf(request).email);
          const token = await apiTokens.create(
            owner,
            { name: request.body.name, expiresAt: request.body.expires_at },
            actorOf(request),
          );
          return reply.code(201).send(ok({ token }));
        },
      );

      app.delete(
        `${base}/:id`,
        {
          config: { permission },
          schema: {
            tags: ['api-tokens'],
            summary: `Revoke an API token of ${whose}`,
            params: own ? TokenIdParams : OwnerTokenIdParams,
            response: { 200: Envelope(MessageResult) },
          },
        },
        async (request) => {
          const owner = ownerOf(request, () => principalOf(request).email);
          const { id } = request.params;
          await apiTokens.delete(owner, id, actorOf(request));
          return message(`API token ${id} deleted`);
        },
      );
    }
  };
}
