import type { Permission } from './permissions.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which entry of the permission table guards this route; required on every route. */
    permission?: Permission;
    /** The body type a route takes instead of JSON; a request with another type answers 415 naming it. */
    contentType?: string;
  }
}
