import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { Envelope, message, MessageResult, ok } from '../../http/schemas.ts';
import {
  HomeNetworkKeyBody,
  HomeNetworkKeyCreated,
  HomeNetworkKeyItem,
  HomeNetworkKeyParams,
  NasSecurity,
} from './network-security.schema.ts';
import type { NetworkSecurityService } from './network-security.service.ts';

export function networkSecurityRoutes(deps: { networkSecurity: NetworkSecurityService }) {
  const { networkSecurity } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/operator/home-network-keys',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['operator'],
          summary: 'The home network public keys that conceal SUCIs (private keys are never returned)',
          response: { 200: Envelope(Type.Array(HomeNetworkKeyItem)) },
        },
      },
      async () =>
        ok(
          (await networkSecurity.listKeys()).map(({ id, scheme, publicKey }) => ({
            id,
            scheme,
            public_key: publicKey,
          })),
        ),
    );

    app.post(
      '/api/v1/operator/home-network-keys',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['operator'],
          summary:
            'Add a home network key pair (scheme A: X25519, B: P-256); generated when private_key is omitted',
          body: HomeNetworkKeyBody,
          response: { 201: Envelope(HomeNetworkKeyCreated) },
        },
      },
      async (request, reply) => {
        const { id, scheme, private_key: privateKey } = request.body;
        const { publicKey } = await networkSecurity.createKey({ id, scheme, privateKey }, actorOf(request));
        reply.code(201);
        return ok({ message: `home network key ${scheme}/${id} created`, id, scheme, public_key: publicKey });
      },
    );

    app.delete(
      '/api/v1/operator/home-network-keys/:scheme/:id',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['operator'],
          summary: 'Delete a home network key pair',
          params: HomeNetworkKeyParams,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        const { scheme, id } = request.params;
        await networkSecurity.deleteKey(scheme, id, actorOf(request));
        return message(`home network key ${scheme}/${id} deleted`);
      },
    );

    app.get(
      '/api/v1/operator/nas-security',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['operator'],
          summary: 'NAS ciphering and integrity algorithms in order of preference',
          response: { 200: Envelope(NasSecurity) },
        },
      },
      async () => ok(await networkSecurity.nasSecurity()),
    );

    app.put(
      '/api/v1/operator/nas-security',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['operator'],
          summary: 'Set the NAS algorithm preferences (1 to 4 each, no duplicates, most preferred first)',
          body: NasSecurity,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await networkSecurity.updateNasSecurity(request.body, actorOf(request));
        return message('NAS security preferences updated');
      },
    );
  };
}
