import { Type } from 'typebox';
import { ImsiQuery } from '../../http/record-schemas.ts';
import { CalendarDate, PaginationQuery } from '../../http/schemas.ts';
import { GROUP_REPORTS, SUBSCRIBER_GROUPS } from './flow-reports.service.ts';

const EndpointQuery = Type.String({ minLength: 1, maxLength: 64 });

/** The filters of the list, shared with `/stats`. */
const FlowReportFilters = {
  subscriber_id: Type.Optional({ ...ImsiQuery, description: 'IMSI of the subscriber' }),
  protocol: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 255,
      'x-error': 'must be an integer 1..255',
      description: 'IP protocol number',
    }),
  ),
  source: Type.Optional({ ...EndpointQuery, description: 'IP, IP:port, [IPv6]:port or :port' }),
  destination: Type.Optional({ ...EndpointQuery, description: 'IP, IP:port, [IPv6]:port or :port' }),
  start: Type.Optional({ ...CalendarDate, description: 'first UTC day (by end_time); default 7 days ago' }),
  end: Type.Optional({ ...CalendarDate, description: 'last UTC day, included (by end_time); default today' }),
  direction: Type.Optional(Type.Enum(['uplink', 'downlink'], { 'x-error': 'must be uplink or downlink' })),
  action: Type.Optional(
    Type.Enum(['allow', 'drop'], {
      'x-error': 'must be allow or drop',
      description: 'allow: accepted flows only; drop: dropped flows only',
    }),
  ),
};

export const FlowReportQuery = Type.Object({
  ...PaginationQuery.properties,
  ...FlowReportFilters,
  group_by: Type.Optional(
    Type.Enum(['day', 'subscriber'], {
      'x-error': 'must be day or subscriber',
      description:
        'Answer with an unpaginated array of single-key objects, ascending by key (UTC day YYYY-MM-DD, ' +
        `or IMSI), each holding the group's newest ${GROUP_REPORTS} matching reports; subscriber grouping ` +
        `lists the first ${SUBSCRIBER_GROUPS} subscribers`,
    }),
  ),
});

export const FlowReportStatsQuery = Type.Object(FlowReportFilters);

export const FlowReportItem = Type.Object({
  id: Type.Integer(),
  subscriber_id: Type.String(),
  source_ip: Type.String(),
  destination_ip: Type.String(),
  source_port: Type.Integer(),
  destination_port: Type.Integer(),
  protocol: Type.Integer(),
  packets: Type.Integer(),
  bytes: Type.Integer(),
  start_time: Type.String({ description: 'UTC, 2026-11-22T10:15:30.123Z' }),
  end_time: Type.String({ description: 'UTC, 2026-11-22T10:15:30.123Z' }),
  direction: Type.Union([Type.Literal('uplink'), Type.Literal('downlink')]),
  action: Type.Union([Type.Literal('allow'), Type.Literal('drop')]),
});

export const FlowReportGroups = Type.Array(Type.Record(Type.String(), Type.Array(FlowReportItem)), {
  description: 'one single-key object per group',
});

export const FlowReportStats = Type.Object({
  protocols: Type.Array(Type.Object({ protocol: Type.Integer(), count: Type.Integer() }), {
    description: 'by count, most first',
  }),
  top_destinations_uplink: Type.Array(Type.Object({ ip: Type.String(), count: Type.Integer() }), {
    description: 'the 10 uplink destinations with the most reports',
  }),
});
