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
import type { SubscriberLog } from './subscriber-logs.repository.ts';
import { SubscriberLogItem, SubscriberLogQuery } from './subscriber-logs.schema.ts';
import type { SubscriberLogsService } from './subscriber-logs.service.ts';

const toItem = (log: SubscriberLog) => ({
  id: log.id,
  timestamp: formatRecordTimestamp(log.timestamp),
  level: log.level,
  imsi: log.imsi,
  event: log.event,
  direction: log.direction,
  raw: log.raw.toString('base64'),
  details: log.details,
});

export function subscriberLogsRoutes(deps: { subscriberLogs: SubscriberLogsService }) {
  const { subscriberLogs } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/logs/subscribers',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: ['logs'],
          summary: 'Subscriber logs, newest first',
          querystring: SubscriberLogQuery,
          response: { 200: Envelope(Paginated(SubscriberLogItem)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { imsi, direction, event } = request.query;
        const filter = { imsi, direction, event, ...timestampWindowOf(request.query) };
        const { items, total } = await subscriberLogs.list(filter, limit, offset);
        return ok(paginated(items.map(toItem), total, request.query));
      },
    );

    app.delete(
      '/api/v1/logs/subscribers',
      {
        config: { permission: 'records:write' },
        schema: {
          tags: ['logs'],
          summary: 'Delete every subscriber log',
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        const deleted = await subscriberLogs.clear(actorOf(request));
        return message(`all subscriber logs deleted (${deleted})`);
      },
    );
  };
}
