import { timestampWindowOf } from '../../http/record-query.ts';
import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { formatRecordTimestamp } from '../../http/record-time.ts';
import {
  Envelope,
  message,
  MessageResult,
  ok,
  Paginated,
  paginated,
  pageWindow,
} from '../../http/schemas.ts';
import type { RadioEvent } from './radio-events.repository.ts';
import {
  DecodedRadioEvent,
  RadioEventItem,
  RadioEventParams,
  RadioEventQuery,
} from './radio-events.schema.ts';
import type { RadioEventsService } from './radio-events.service.ts';

const toItem = (event: RadioEvent) => ({
  id: event.id,
  timestamp: formatRecordTimestamp(event.timestamp),
  protocol: event.protocol,
  message_type: event.messageType,
  direction: event.direction,
  raw: event.raw.toString('base64'),
  details: event.details,
});

export function radioEventsRoutes(deps: { radioEvents: RadioEventsService }) {
  const { radioEvents } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/ran/events',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: ['radios'],
          summary: 'Radio events, newest first',
          querystring: RadioEventQuery,
          response: { 200: Envelope(Paginated(RadioEventItem)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { protocol, direction, message_type: messageType, imsi, radio } = request.query;
        const filter = {
          protocol,
          direction,
          messageType,
          imsi,
          radio,
          ...timestampWindowOf(request.query),
        };
        const { items, total } = await radioEvents.list(filter, limit, offset);
        return ok(paginated(items.map(toItem), total, request.query));
      },
    );

    app.get(
      '/api/v1/ran/events/:id',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: ['radios'],
          summary: 'One radio event, raw and decoded',
          params: RadioEventParams,
          response: { 200: Envelope(DecodedRadioEvent) },
        },
      },
      async (request) => {
        const { raw, decoded } = await radioEvents.get(request.params.id);
        return ok({ raw: raw.toString('base64'), decoded });
      },
    );

    app.delete(
      '/api/v1/ran/events',
      {
        config: { permission: 'records:write' },
        schema: {
          tags: ['radios'],
          summary: 'Delete every radio event',
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        const deleted = await radioEvents.clear(actorOf(request));
        return message(`all radio events deleted (${deleted})`);
      },
    );
  };
}
