import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  OverloadedError,
  RateLimitedError,
  TooLargeError,
  UnauthorizedError,
} from '../errors.ts';
import { requestInputs, truncateEchoes } from './echo.ts';
import { MAX_PARAM_LENGTH } from './framework-errors.ts';
import { describeValidationErrors } from './validation.ts';

const DOMAIN_STATUS = new Map<new (...args: never[]) => DomainError, number>([
  [InvalidError, 400],
  [UnauthorizedError, 401],
  [ForbiddenError, 403],
  [NotFoundError, 404],
  [ConflictError, 409],
  [TooLargeError, 413],
  [RateLimitedError, 429],
  [OverloadedError, 503],
]);

/** Fastify's own client errors, reworded for people. */
const FASTIFY_ERRORS: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Content-Length does not match the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'request body is empty but Content-Type is JSON' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'request body is not valid JSON' },
};

/** Every error answer goes out here; the client's input it repeats is cut short (echo.ts). */
function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  const error = truncateEchoes(message, requestInputs(reply.request));
  return reply.code(status).type('application/json; charset=utf-8').send({ error });
}

/** Maps every error to `{"error": "..."}` with its status; nothing internal reaches the client. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.validation) {
      const context = error.validationContext ?? 'body';
      return sendError(reply, 400, describeValidationErrors(error.validation as ErrorObject[], context));
    }
    if (error instanceof DomainError) {
      if (error instanceof RateLimitedError || error instanceof OverloadedError) {
        reply.header('retry-after', String(error.retryAfterSeconds));
      }
      const status = DOMAIN_STATUS.get(error.constructor as new () => DomainError) ?? 400;
      return sendError(reply, status, error.message);
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // Routes may raise the limit (bulk import), so the message states the one that applied.
      const mib = (request.routeOptions.bodyLimit ?? 1024 * 1024) / (1024 * 1024);
      return sendError(reply, 413, `request body is larger than ${mib} MiB`);
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const expected = request.routeOptions.config.contentType ?? 'application/json';
      return sendError(reply, 415, `Content-Type must be ${expected}`);
    }
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
    if (known) return sendError(reply, known.status, known.message);
    // Only the body parser's errors are the client's JSON: it marks them 400. A SyntaxError of our own
    // (a stored value that fails to parse) is an internal error, not the client's fault.
    if (error.statusCode === 400 && (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP'))) {
      return sendError(reply, 400, 'request body is not valid JSON');
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, error.statusCode, error.message);
    }
    request.log.error({ err: error }, 'request failed');
    return sendError(reply, 500, 'internal error');
  });

  // Known paths with another method answer 405 with Allow; everything else is 404.
  // As long a parameter as the app's router takes, so a long name still finds its path's methods.
  const routes = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  const methodsByPattern = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let known = methodsByPattern.get(route.url);
    if (!known) {
      known = new Set();
      methodsByPattern.set(route.url, known);
      routes.on('GET', route.url, () => undefined, { pattern: route.url });
    }
    for (const method of methods) known.add(method);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const match = routes.find('GET', path);
    const pattern = (match?.store as { pattern?: string } | undefined)?.pattern;
    const allowed = pattern ? methodsByPattern.get(pattern) : undefined;
    if (allowed && !allowed.has(request.method)) {
      reply.header('allow', [...allowed].sort().join(', '));
      return sendError(reply, 405, `method ${request.method} is not allowed on ${path}`);
    }
    return sendError(reply, 404, `no route ${request.method} ${path}`);
  });
}
