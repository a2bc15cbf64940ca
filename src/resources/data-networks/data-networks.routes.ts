import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { NameParams } from '../../validation/network-values.ts';
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
import { DataNetworkBody, DataNetworkResult } from './data-networks.schema.ts';
import type { DataNetworksService, DataNetworkView } from './data-networks.service.ts';

const toResult = (dataNetwork: DataNetworkView) => ({
  name: dataNetwork.name,
  status: { sessions: dataNetwork.sessions },
});

const BASE = '/api/v1/networking/data-networks';

export function dataNetworksRoutes(deps: { dataNetworks: DataNetworksService }) {
  const { dataNetworks } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      BASE,
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['data-networks'],
          summary: 'List data networks (DNNs), by name',
          querystring: PaginationQuery,
          response: { 200: Envelope(Paginated(DataNetworkResult)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { items, total } = await dataNetworks.list(limit, offset);
        return ok(paginated(items.map(toResult), total, request.query));
      },
    );

    app.post(
      BASE,
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['data-networks'],
          summary: 'Create a data network',
          body: DataNetworkBody,
          response: { 201: Envelope(MessageResult) },
        },
      },
      async (request, reply) => {
        await dataNetworks.create(request.body, actorOf(request));
        return reply.code(201).send(message(`data network ${request.body.name} created`));
      },
    );

    app.get(
      `${BASE}/:name`,
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['data-networks'],
          summary: 'Get a data network with its session count',
          params: NameParams,
          response: { 200: Envelope(DataNetworkResult) },
        },
      },
      async (request) => ok(toResult(await dataNetworks.get(request.params.name))),
    );

    app.put(
      `${BASE}/:name`,
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['data-networks'],
          summary: 'Update a data network: its name (the DNN) is what is stored; policies follow a rename',
          params: NameParams,
          body: DataNetworkBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await dataNetworks.update(request.params.name, request.body, actorOf(request));
        return message(`data network ${request.body.name} updated`);
      },
    );

    app.delete(
      `${BASE}/:name`,
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['data-networks'],
          summary: 'Delete a data network; refused while a policy references it',
          params: NameParams,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await dataNetworks.delete(request.params.name, actorOf(request));
        return message(`data network ${request.params.name} deleted`);
      },
    );
  };
}
