import type { Permission } from './permissions.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which entry of the permission table guards this route; required on every route. */
    permission?: Permission;
  }
}
