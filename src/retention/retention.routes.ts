import type { App } from '../http/app-types.ts';
import { actorOf } from '../http/authentication.ts';
import type { Permission } from '../http/permissions.ts';
import { Envelope, message, MessageResult, ok, RetentionDays } from '../http/schemas.ts';
import { Type } from 'typebox';
import type { RetentionService } from './retention.service.ts';

/** `GET|PUT <path>` for one record type's retention policy; every record type mounts it the same way. */
export function retentionRoutes(deps: {
  retention: RetentionService;
  path: string;
  recordType: string;
  label: string;
  tag: string;
  readPermission: Permission;
  writePermission: Permission;
}) {
  const { retention, path, recordType, label, tag } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      path,
      {
        config: { permission: deps.readPermission },
        schema: {
          tags: [tag],
          summary: `Retention of ${label}s, in days`,
          response: { 200: Envelope(Type.Object({ days: Type.Integer() })) },
        },
      },
      async () => ok({ days: await retention.days(recordType) }),
    );

    app.put(
      path,
      {
        config: { permission: deps.writePermission },
        schema: {
          tags: [tag],
          summary: `Set the retention of ${label}s, in days`,
          body: Type.Object(RetentionDays.properties, { additionalProperties: false }),
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await retention.setDays(recordType, request.body.days, actorOf(request));
        return message(`${label} retention set to ${request.body.days} days`);
      },
    );
  };
}
