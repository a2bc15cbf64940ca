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
import type { Slice } from './slices.repository.ts';
import { CreateSliceBody, SliceResult, UpdateSliceBody } from './slices.schema.ts';
import type { SlicesService } from './slices.service.ts';

const toResult = (slice: Slice) => ({
  name: slice.name,
  sst: slice.sst,
  ...(slice.sd === undefined ? {} : { sd: slice.sd }),
});

export function slicesRoutes(deps: { slices: SlicesService }) {
  const { slices } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/slices',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['slices'],
          summary: 'List slices (S-NSSAIs), by name',
          querystring: PaginationQuery,
          response: { 200: Envelope(Paginated(SliceResult)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { items, total } = await slices.list(limit, offset);
        return ok(paginated(items.map(toResult), total, request.query));
      },
    );

    app.post(
      '/api/v1/slices',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['slices'],
          summary: 'Create a slice',
          body: CreateSliceBody,
          response: { 201: Envelope(MessageResult) },
        },
      },
      async (request, reply) => {
        await slices.create(request.body, actorOf(request));
        return reply.code(201).send(message(`slice ${request.body.name} created`));
      },
    );

    app.get(
      '/api/v1/slices/:name',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['slices'],
          summary: 'Get a slice',
          params: NameParams,
          response: { 200: Envelope(SliceResult) },
        },
      },
      async (request) => ok(toResult(await slices.get(request.params.name))),
    );

    app.put(
      '/api/v1/slices/:name',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['slices'],
          summary: 'Replace a slice’s SST and SD',
          params: NameParams,
          body: UpdateSliceBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await slices.update(request.params.name, request.body, actorOf(request));
        return message(`slice ${request.params.name} updated`);
      },
    );

    app.delete(
      '/api/v1/slices/:name',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['slices'],
          summary: 'Delete a slice; refused while a policy references it',
          params: NameParams,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await slices.delete(request.params.name, actorOf(request));
        return message(`slice ${request.params.name} deleted`);
      },
    );
  };
}
