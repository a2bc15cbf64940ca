import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/schemas.ts';
import type { InitializationState } from './initialization.ts';

const StatusResult = Type.Object({
  version: Type.String({ description: 'PMN Core version' }),
  initialized: Type.Boolean({ description: 'true once the first user exists' }),
  ready: Type.Boolean({ description: 'true when the database is migrated and the service accepts work' }),
});

export function statusRoutes(deps: { initialization: InitializationState; version: string }) {
  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/status',
      {
        config: { permission: 'public' },
        schema: { tags: ['status'], summary: 'Service status', response: { 200: Envelope(StatusResult) } },
      },
      async () =>
        ok({ version: deps.version, initialized: await deps.initialization.isInitialized(), ready: true }),
    );
  };
}
