import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { formatUtcTime } from '../../http/record-time.ts';
import { Envelope, message, MessageResult, ok } from '../../http/schemas.ts';
import { SmscLinkBody, SmscLinkView } from './smsc-link.schema.ts';
import type { SmscLinkService } from './smsc-link.service.ts';

const TAGS = ['sms'];
const PATH = '/api/v1/sms/smsc';

/** The SMSC link's configuration and state (docs/sms.md, "SMSC link"); the password is never returned. */
export function smscLinkRoutes(deps: { smscLink: SmscLinkService }) {
  const { smscLink } = deps;
  return async (app: App): Promise<void> => {
    app.get(
      PATH,
      {
        config: { permission: 'network:read' },
        schema: {
          tags: TAGS,
          summary: "The SMSC link's configuration (never its password) and its state",
          response: { 200: Envelope(SmscLinkView) },
        },
      },
      async () => {
        const view = await smscLink.get();
        const c = view.configuration;
        return ok({
          configured: c !== undefined,
          ...(c === undefined
            ? {}
            : {
                host: c.host,
                port: c.port,
                system_id: c.systemId,
                system_type: c.systemType,
                enabled: c.enabled,
                updated_at: formatUtcTime(c.updatedAt),
              }),
          state: view.state,
          last_error: view.lastError,
        });
      },
    );

    app.put(
      PATH,
      {
        config: { permission: 'network:write' },
        schema: {
          tags: TAGS,
          summary:
            'Set the SMSC link (SMPP 3.4 transceiver); the link binds again with it, without a restart',
          body: SmscLinkBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        const body = request.body;
        await smscLink.put(
          {
            host: body.host,
            port: body.port,
            systemId: body.system_id,
            ...(body.password === undefined ? {} : { password: body.password }),
            ...(body.system_type === undefined ? {} : { systemType: body.system_type }),
            ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
          },
          actorOf(request),
        );
        return message('SMSC link updated');
      },
    );

    app.delete(
      PATH,
      {
        config: { permission: 'network:write' },
        schema: {
          tags: TAGS,
          summary: 'Remove the SMSC link: it unbinds, and numbers outside the network are refused',
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await smscLink.delete(actorOf(request));
        return message('SMSC link removed');
      },
    );
  };
}
