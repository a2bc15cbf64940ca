import { calendarDaysOf } from '../../http/record-query.ts';
import { parseEndpointFilter } from '../../validation/ip-address.ts';
import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { formatUtcTime } from '../../http/record-time.ts';
import {
  Envelope,
  message,
  MessageResult,
  ok,
  Paginated,
  paginated,
  pageWindow,
} from '../../http/schemas.ts';
import type { FlowReport } from './flow-reports.repository.ts';
import {
  FlowReportGroups,
  FlowReportItem,
  FlowReportQuery,
  FlowReportStats,
  FlowReportStatsQuery,
} from './flow-reports.schema.ts';
import type { FlowReportCriteria, FlowReportsService } from './flow-reports.service.ts';

const toItem = (report: FlowReport) => ({
  id: report.id,
  subscriber_id: report.subscriberId,
  source_ip: report.sourceIp,
  destination_ip: report.destinationIp,
  source_port: report.sourcePort,
  destination_port: report.destinationPort,
  protocol: report.protocol,
  packets: report.packets,
  bytes: report.bytes,
  start_time: formatUtcTime(report.startTime),
  end_time: formatUtcTime(report.endTime),
  direction: report.direction,
  action: report.action,
});

/** The list's query string as the service's criteria: dates and endpoints parsed here. */
function criteriaOf(query: {
  subscriber_id?: string;
  protocol?: number;
  source?: string;
  destination?: string;
  start?: string;
  end?: string;
  direction?: 'uplink' | 'downlink';
  action?: 'allow' | 'drop';
}): FlowReportCriteria {
  return {
    days: calendarDaysOf(query),
    subscriberId: query.subscriber_id,
    protocol: query.protocol,
    source: query.source === undefined ? undefined : parseEndpointFilter(query.source, 'source'),
    destination:
      query.destination === undefined ? undefined : parseEndpointFilter(query.destination, 'destination'),
    direction: query.direction,
    action: query.action,
  };
}

export function flowReportsRoutes(deps: { flowReports: FlowReportsService }) {
  const { flowReports } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/flow-reports',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: ['flow reports'],
          summary: 'Flow reports, newest first (by end time), or grouped by day or subscriber',
          querystring: FlowReportQuery,
          response: { 200: Envelope(Type.Union([Paginated(FlowReportItem), FlowReportGroups])) },
        },
      },
      async (request) => {
        const { group_by: groupBy, ...query } = request.query;
        const criteria = criteriaOf(query);
        if (groupBy !== undefined) {
          const groups =
            groupBy === 'day' ? await flowReports.byDay(criteria) : await flowReports.bySubscriber(criteria);
          return ok(groups.map(({ key, reports }) => ({ [key]: reports.map(toItem) })));
        }
        const { limit, offset } = pageWindow(query);
        const { items, total } = await flowReports.list(criteria, limit, offset);
        return ok(paginated(items.map(toItem), total, query));
      },
    );

    app.get(
      '/api/v1/flow-reports/stats',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: ['flow reports'],
          summary: 'Flow report counts by protocol and the top 10 uplink destinations',
          querystring: FlowReportStatsQuery,
          response: { 200: Envelope(FlowReportStats) },
        },
      },
      async (request) => ok(await flowReports.stats(criteriaOf(request.query))),
    );

    app.delete(
      '/api/v1/flow-reports',
      {
        config: { permission: 'records:write' },
        schema: {
          tags: ['flow reports'],
          summary: 'Delete every flow report',
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        const deleted = await flowReports.clear(actorOf(request));
        return message(`all flow reports deleted (${deleted})`);
      },
    );
  };
}
