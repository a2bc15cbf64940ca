import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { Envelope, message, MessageResult, ok } from '../../http/schemas.ts';
import { OperatorCodeBody, OperatorIdBody, OperatorResult, OperatorTrackingBody } from './operator.schema.ts';
import type { OperatorService } from './operator.service.ts';

export function operatorRoutes(deps: { operator: OperatorService }) {
  const { operator } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/operator',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['operator'],
          summary: 'The operator: PLMN ID and supported TACs (the Operator Code is never returned)',
          response: { 200: Envelope(OperatorResult) },
        },
      },
      async () => {
        const { mcc, mnc, supportedTacs } = await operator.get();
        return ok({ id: { mcc, mnc }, tracking: { supportedTacs } });
      },
    );

    app.put(
      '/api/v1/operator/id',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['operator'],
          summary: 'Set the operator ID (MCC, MNC); refused while subscribers exist',
          body: OperatorIdBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await operator.updateId(request.body, actorOf(request));
        return message(`operator ID set to MCC ${request.body.mcc}, MNC ${request.body.mnc}`);
      },
    );

    app.put(
      '/api/v1/operator/tracking',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['operator'],
          summary: 'Set the supported tracking area codes (TACs)',
          body: OperatorTrackingBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await operator.updateTracking(request.body, actorOf(request));
        return message('operator tracking updated');
      },
    );

    app.put(
      '/api/v1/operator/code',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['operator'],
          summary: 'Set the Operator Code (OP); refused while subscribers exist',
          body: OperatorCodeBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await operator.updateCode(request.body, actorOf(request));
        return message('operator code updated');
      },
    );
  };
}
