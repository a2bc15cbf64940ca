import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { IdParams } from '../../validation/network-values.ts';
import { Envelope, MessageResult, message, NoContent, ok } from '../../http/schemas.ts';
import type { CellPosition } from './cell-positions.repository.ts';
import { CellPositionBody, CellPositionCreated, CellPositionResult } from './cell-positions.schema.ts';
import type { CellPositionsService } from './cell-positions.service.ts';

/** The API form: optional fields that are not provisioned are absent. */
const toResult = (p: CellPosition) => ({
  id: p.id,
  rat: p.rat,
  mcc: p.mcc,
  mnc: p.mnc,
  cell_identity: p.cellIdentity,
  ...(p.gnbId === undefined ? {} : { gnb_id: p.gnbId }),
  latitude: p.latitude,
  longitude: p.longitude,
  ...(p.altitude === undefined ? {} : { altitude: p.altitude }),
  ...(p.uncertaintySemiMajor === undefined ? {} : { uncertainty_semi_major: p.uncertaintySemiMajor }),
  ...(p.uncertaintySemiMinor === undefined ? {} : { uncertainty_semi_minor: p.uncertaintySemiMinor }),
  ...(p.orientationMajor === undefined ? {} : { orientation_major: p.orientationMajor }),
  ...(p.confidence === undefined ? {} : { confidence: p.confidence }),
  source: p.source,
});

const TAGS = ['location'];

export function cellPositionsRoutes(deps: { cellPositions: CellPositionsService }) {
  const { cellPositions } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/beta/cell-positions',
      {
        config: { permission: 'location:read' },
        schema: {
          tags: TAGS,
          summary: 'List the provisioned cell positions, in creation order',
          response: { 200: Envelope(Type.Array(CellPositionResult)) },
        },
      },
      async () => ok((await cellPositions.list()).map(toResult)),
    );

    app.post(
      '/api/beta/cell-positions',
      {
        config: { permission: 'location:write' },
        schema: {
          tags: TAGS,
          summary: 'Provision the position of a cell (one per RAT, MCC, MNC and cell identity)',
          body: CellPositionBody,
          response: { 201: Envelope(CellPositionCreated) },
        },
      },
      async (request, reply) => {
        const id = await cellPositions.create(request.body, actorOf(request));
        return reply.code(201).send(ok({ message: `cell position ${id} created`, id }));
      },
    );

    app.get(
      '/api/beta/cell-positions/:id',
      {
        config: { permission: 'location:read' },
        schema: {
          tags: TAGS,
          summary: 'Get a cell position',
          params: IdParams,
          response: { 200: Envelope(CellPositionResult) },
        },
      },
      async (request) => ok(toResult(await cellPositions.get(request.params.id))),
    );

    app.put(
      '/api/beta/cell-positions/:id',
      {
        config: { permission: 'location:write' },
        schema: {
          tags: TAGS,
          summary: 'Replace a cell position (absent optional fields are removed)',
          params: IdParams,
          body: CellPositionBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await cellPositions.update(request.params.id, request.body, actorOf(request));
        return message(`cell position ${request.params.id} updated`);
      },
    );

    app.delete(
      '/api/beta/cell-positions/:id',
      {
        config: { permission: 'location:write' },
        schema: {
          tags: TAGS,
          summary: 'Delete a cell position',
          params: IdParams,
          response: { 204: NoContent },
        },
      },
      async (request, reply) => {
        await cellPositions.delete(request.params.id, actorOf(request));
        return reply.code(204).send(null);
      },
    );
  };
}
