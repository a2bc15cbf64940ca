import { normalizeRadioId } from '../../network/radio-id.ts';
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
import type { RadioLog } from './radio-logs.repository.ts';
import { RadioLogItem, RadioLogQuery } from './radio-logs.schema.ts';
import type { RadioLogsService } from './radio-logs.service.ts';

const toItem = (log: RadioLog) => ({
  id: log.id,
  timestamp: formatRecordTimestamp(log.timestamp),
  level: log.level,
  ran_id: log.ranId,
  event: log.event,
  direction: log.direction,
  raw: log.raw.toString('base64'),
  details: log.details,
});

export function radioLogsRoutes(deps: { radioLogs: RadioLogsService }) {
  const { radioLogs } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/logs/radio',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: ['logs'],
          summary: 'Radio logs, newest first',
          querystring: RadioLogQuery,
          response: { 200: Envelope(Paginated(RadioLogItem)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { ran_id: ranId, direction, event } = request.query;
        const filter = {
          ranId: ranId === undefined ? undefined : normalizeRadioId(ranId),
          direction,
          event,
          ...timestampWindowOf(request.query),
        };
        const { items, total } = await radioLogs.list(filter, limit, offset);
        return ok(paginated(items.map(toItem), total, request.query));
      },
    );

    app.delete(
      '/api/v1/logs/radio',
      {
        config: { permission: 'records:write' },
        schema: {
          tags: ['logs'],
          summary: 'Delete every radio log',
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        const deleted = await radioLogs.clear(actorOf(request));
        return message(`all radio logs deleted (${deleted})`);
      },
    );
  };
}
