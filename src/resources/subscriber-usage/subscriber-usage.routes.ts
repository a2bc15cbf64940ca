import { calendarDaysOf } from '../../http/record-query.ts';
import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { Envelope, message, MessageResult, ok } from '../../http/schemas.ts';
import { UsageGroups, UsageQuery } from './subscriber-usage.schema.ts';
import type { SubscriberUsageService } from './subscriber-usage.service.ts';

export function subscriberUsageRoutes(deps: { subscriberUsage: SubscriberUsageService }) {
  const { subscriberUsage } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/subscriber-usage',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: ['subscriber usage'],
          summary: 'Bytes used, per UTC day or per subscriber',
          querystring: UsageQuery,
          response: { 200: Envelope(UsageGroups) },
        },
      },
      async (request) => {
        const groups = await subscriberUsage.totals({
          days: calendarDaysOf(request.query),
          groupBy: request.query.group_by ?? 'day',
          imsi: request.query.subscriber,
        });
        return ok(
          groups.map(({ key, totals }) => ({
            [key]: {
              uplink_bytes: totals.uplinkBytes,
              downlink_bytes: totals.downlinkBytes,
              total_bytes: totals.uplinkBytes + totals.downlinkBytes,
            },
          })),
        );
      },
    );

    app.delete(
      '/api/v1/subscriber-usage',
      {
        config: { permission: 'records:write' },
        schema: {
          tags: ['subscriber usage'],
          summary: 'Delete the usage of every subscriber',
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        const deleted = await subscriberUsage.clear(actorOf(request));
        return message(`subscriber usage cleared (${deleted} day counters deleted)`);
      },
    );
  };
}
