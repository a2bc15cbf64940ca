import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { Envelope, message, MessageResult, ok } from '../../http/schemas.ts';
import { N2Allowlist } from './n2-allowlist.schema.ts';
import type { N2AllowlistService } from './n2-allowlist.service.ts';

export function n2AllowlistRoutes(deps: { n2Allowlist: N2AllowlistService }) {
  const { n2Allowlist } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/operator/n2-allowlist',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['operator'],
          summary: 'The peers that may open an N2 association (empty: every peer)',
          response: { 200: Envelope(N2Allowlist) },
        },
      },
      async () => ok(await n2Allowlist.get()),
    );

    app.put(
      '/api/v1/operator/n2-allowlist',
      {
        config: { permission: 'network:peers' },
        schema: {
          tags: ['operator'],
          summary:
            'Set the N2 allowlist (IP addresses or CIDR networks, at most 256, none twice); radios of peers no longer admitted are dropped',
          body: N2Allowlist,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await n2Allowlist.update(request.body.peers, actorOf(request));
        return message('N2 allowlist updated');
      },
    );
  };
}
