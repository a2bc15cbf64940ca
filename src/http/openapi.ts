import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ROLE_NAMES, type RoleId } from '../identity/roles.ts';
import { ErrorBody } from './schemas.ts';
import { PERMISSIONS, type Permission } from './permissions.ts';

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Invalid request: malformed JSON, a wrong, missing or unknown field, or a bad parameter',
  401: 'Missing, invalid, expired or revoked credentials',
  403: 'The role lacks the permission',
  404: 'No such resource',
  409: 'Conflicts with the current state (duplicate, still referenced, limit reached)',
  413: 'Body larger than 1 MiB',
  415: 'Body is not application/json',
};

/** A multipart upload of one file in the part named `file`. */
const UploadBody = {
  type: 'object',
  properties: { file: { type: 'string', format: 'binary', description: 'The file to upload' } },
  required: ['file'],
};

/**
 * A query parameter with a default may be left out, though the validation schema lists it as required
 * (so that handlers see the default filled in); the document says it is optional.
 */
function optionalWhenDefaulted(querystring: unknown): unknown {
  const object = querystring as { required?: string[]; properties?: Record<string, object> } | undefined;
  if (!object?.required || !object.properties) return querystring;
  const properties = object.properties;
  return { ...object, required: object.required.filter((name) => !('default' in (properties[name] ?? {}))) };
}

/** The error responses a route can give, derived from what it declares, so the document never drifts. */
function errorResponses(schema: FastifySchema, permission: Permission | undefined): Record<number, unknown> {
  const roles = permission ? PERMISSIONS[permission] : 'public';
  const codes: number[] = [];
  if (schema.body || schema.querystring || schema.params) codes.push(400);
  if (roles !== 'public') codes.push(401);
  if (Array.isArray(roles)) codes.push(403);
  if (schema.params) codes.push(404);
  if (schema.body) codes.push(409, 413, 415);
  return Object.fromEntries(codes.map((code) => [code, { ...ErrorBody, description: ERROR_MEANINGS[code] }]));
}

/**
 * The OpenAPI 3.1 document, generated from the route schemas and served at GET /api/v1/openapi.json.
 * Each route's security requirement and error responses come from its permission and schema.
 */
export async function installOpenApi(app: FastifyInstance, version: string): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.method === 'HEAD' || route.schema?.hide) return;
    const schema = (route.schema ??= {});
    const permission = route.config?.permission;
    const roles = permission ? PERMISSIONS[permission] : 'public';
    const extra = schema as FastifySchema & { security?: unknown; description?: string };
    if (Array.isArray(roles)) {
      extra.security = [{ bearerAuth: [] }];
      const names = (roles as readonly RoleId[]).map((id) => `${ROLE_NAMES[id]} (${id})`).join(', ');
      const note = `Roles allowed: ${names} (permission \`${permission}\`).`;
      extra.description = extra.description ? `${extra.description}\n\n${note}` : note;
    } else if (roles === 'session') {
      extra.security = [{ sessionCookie: [] }];
    } else {
      extra.security = [];
    }
    schema.response = { ...errorResponses(schema, permission), ...(schema.response as object | undefined) };
  });

  await app.register(swagger, {
    transform: ({ schema, url, route }) => {
      const documented: FastifySchema = {
        ...schema,
        querystring: optionalWhenDefaulted(schema.querystring),
      };
      // Upload routes are not validated as JSON bodies, so the document is told their body here.
      if (route.config?.contentType === 'multipart/form-data') {
        documented.consumes = ['multipart/form-data'];
        documented.body = UploadBody;
      }
      return { schema: documented, url };
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'PMN Core management API',
        version,
        description:
          'Management API of PMN Core, a private 5G network core. Every success body has one member ' +
          '`result`; every error body is `{"error": "..."}`.',
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'A JWT from login or refresh (15 minutes), or an API token `core_<id>_<secret>`',
          },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'pmn_session' },
        },
      },
    },
  });

  app.get('/api/v1/openapi.json', { config: { permission: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
