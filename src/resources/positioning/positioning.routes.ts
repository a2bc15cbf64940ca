import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { IdParams } from '../../validation/network-values.ts';
import { Envelope, ErrorBody, NoContent, ok } from '../../http/schemas.ts';
import type { PositioningSession } from './positioning-sessions.repository.ts';
import {
  LocationRequestBody,
  LocationResultSchema,
  SessionCreated,
  SessionDetail,
  SessionItem,
  SessionsQuery,
} from './positioning.schema.ts';
import type { PositioningService } from './positioning.service.ts';

const seconds = (ms: number) => Math.floor(ms / 1000);

const toItem = (session: PositioningSession) => ({
  id: session.id,
  supi: session.supi,
  session_type: session.sessionType,
  method: session.method,
  status: session.status,
  created_at: seconds(session.createdAt),
  updated_at: seconds(session.updatedAt),
});

const TAGS = ['location'];

const NOT_ACTIVE = { ...ErrorBody, description: 'The session is no longer active' };

const LOCATION_ERRORS = {
  404: { ...ErrorBody, description: 'No such subscriber, or no such session to cancel' },
  409: {
    ...ErrorBody,
    description:
      'The subscriber cannot be located now (not connected, serving cell unknown or without a provisioned ' +
      'position), the method cannot be served yet (ecid, gnss), the subscriber has too many active ' +
      'sessions, or the session to cancel is no longer active',
  },
};

export function positioningRoutes(deps: { positioning: PositioningService }) {
  const { positioning } = deps;

  return async (app: App): Promise<void> => {
    app.post(
      '/api/beta/location',
      {
        config: { permission: 'location:write' },
        schema: {
          tags: TAGS,
          summary: 'Locate a subscriber now, open a periodic or triggered positioning session, or cancel one',
          description:
            '`immediate` answers 200 with a location result; `periodic` and `triggered` answer 201 with the ' +
            'session id; `cancel` answers 204.',
          body: LocationRequestBody,
          response: {
            200: Envelope(LocationResultSchema),
            201: Envelope(SessionCreated),
            204: NoContent,
            ...LOCATION_ERRORS,
          },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const actor = actorOf(request);
        switch (body.request_type) {
          case 'immediate':
            return ok(await positioning.locate(body, actor));
          case 'periodic':
          case 'triggered':
            return reply.code(201).send(ok({ id: await positioning.open(body, actor) }));
          case 'cancel':
            await positioning.cancelRequest(body, actor);
            return reply.code(204).send(null);
        }
      },
    );

    app.get(
      '/api/beta/positioning/sessions',
      {
        config: { permission: 'location:read' },
        schema: {
          tags: TAGS,
          summary: 'List the positioning sessions of a subscriber, newest first',
          querystring: SessionsQuery,
          response: { 200: Envelope(Type.Array(SessionItem)) },
        },
      },
      async (request) => ok((await positioning.list(request.query.supi)).map(toItem)),
    );

    app.get(
      '/api/beta/positioning/sessions/:id',
      {
        config: { permission: 'location:read' },
        schema: {
          tags: TAGS,
          summary: 'Get a positioning session with its latest estimate',
          params: IdParams,
          response: { 200: Envelope(SessionDetail) },
        },
      },
      async (request) => {
        const session = await positioning.get(request.params.id);
        return ok({ ...toItem(session), last_result: session.lastResult ?? null });
      },
    );

    app.delete(
      '/api/beta/positioning/sessions/:id',
      {
        config: { permission: 'location:write' },
        schema: {
          tags: TAGS,
          summary: 'Cancel an active positioning session',
          params: IdParams,
          response: { 204: NoContent, 409: NOT_ACTIVE },
        },
      },
      async (request, reply) => {
        await positioning.cancel(request.params.id, actorOf(request));
        return reply.code(204).send(null);
      },
    );
  };
}
