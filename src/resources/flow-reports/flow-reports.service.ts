import type { Clock } from '../../clock.ts';
import { dayWindow, formatDay, utcDay, type CalendarDays } from '../../records/record-windows.ts';
import { clearRecords } from '../../records/clear-records.ts';
import type { Db } from '../../storage/database.ts';
import { DAY_MS } from '../../validation/calendar-date.ts';
import type { EndpointFilter } from '../../validation/ip-address.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { FlowReport, FlowReportFilter, FlowReportsRepository } from './flow-reports.repository.ts';

/** Which flow reports: whole UTC days, and the filters of the list (all optional). */
export interface FlowReportCriteria {
  days: CalendarDays;
  subscriberId?: string;
  protocol?: number;
  source?: EndpointFilter;
  destination?: EndpointFilter;
  direction?: 'uplink' | 'downlink';
  action?: 'allow' | 'drop';
}

/**
 * Grouped answers are not paginated, so they are bounded instead: each group holds its newest
 * `GROUP_REPORTS` reports, and `group_by=subscriber` lists at most `SUBSCRIBER_GROUPS` subscribers
 * (the first by IMSI). Documented in docs/records.md and the OpenAPI description.
 */
export const GROUP_REPORTS = 100;
export const SUBSCRIBER_GROUPS = 1000;
const TOP_DESTINATIONS = 10;

type FlowReportGroups = { key: string; reports: FlowReport[] }[];

export function createFlowReportsService(deps: {
  db: Db;
  repository: FlowReportsRepository;
  audit: AuditLogService;
  clock: Clock;
  /** Writes every record the pipeline has accepted, so a clear removes them too. */
  flushRecords: () => Promise<void>;
}) {
  const { repository, clock } = deps;

  function filterOf({ days, ...criteria }: FlowReportCriteria): FlowReportFilter {
    return { ...dayWindow(days, clock.now()), ...criteria };
  }

  /** Only the window, and for totals a protocol: the daily counts answer without counting reports. */
  const only = (filter: FlowReportFilter, keys: string[]) =>
    Object.entries(filter).every(([key, value]) => keys.includes(key) || value === undefined);
  const windowOnly = (filter: FlowReportFilter) => only(filter, ['from', 'before']);

  return {
    async list(
      criteria: FlowReportCriteria,
      limit: number,
      offset: number,
    ): Promise<{ items: FlowReport[]; total: number }> {
      const filter = filterOf(criteria);
      const total = await (only(filter, ['from', 'before', 'protocol'])
        ? repository.dailyTotal(filter)
        : repository.count(filter));
      // The count tells the repository how common the filter is, so it can pick the cheaper plan.
      const items = total > offset ? await repository.list(filter, limit, offset, total) : [];
      return { items, total };
    },

    /** Days with matching reports, ascending (`YYYY-MM-DD`, UTC), each with its newest reports. */
    async byDay(criteria: FlowReportCriteria): Promise<FlowReportGroups> {
      const filter = filterOf(criteria);
      const span = await repository.endTimeSpan(filter);
      if (!span) return [];
      const groups: FlowReportGroups = [];
      for (let day = utcDay(span.first); day <= span.last; day += DAY_MS) {
        const reports = await repository.list(
          { ...filter, from: Math.max(day, filter.from), before: Math.min(day + DAY_MS, filter.before) },
          GROUP_REPORTS,
          0,
        );
        if (reports.length > 0) groups.push({ key: formatDay(day), reports });
      }
      return groups;
    },

    /** Subscribers with matching reports, by IMSI ascending, each with its newest reports. */
    async bySubscriber(criteria: FlowReportCriteria): Promise<FlowReportGroups> {
      const filter = filterOf(criteria);
      const subscribers = await repository.subscribers(filter, SUBSCRIBER_GROUPS);
      const groups: FlowReportGroups = [];
      for (const subscriberId of subscribers) {
        groups.push({
          key: subscriberId,
          reports: await repository.list({ ...filter, subscriberId }, GROUP_REPORTS, 0),
        });
      }
      return groups;
    },

    async stats(criteria: FlowReportCriteria): Promise<{
      protocols: { protocol: number; count: number }[];
      top_destinations_uplink: { ip: string; count: number }[];
    }> {
      const filter = filterOf(criteria);
      const [protocols, top] = await Promise.all(
        windowOnly(filter)
          ? [
              repository.dailyProtocolCounts(filter),
              repository.dailyTopUplinkDestinations(filter, TOP_DESTINATIONS),
            ]
          : [repository.protocolCounts(filter), repository.topUplinkDestinations(filter, TOP_DESTINATIONS)],
      );
      return { protocols, top_destinations_uplink: top };
    },

    clear: (actor: Actor): Promise<number> =>
      clearRecords(deps, actor, {
        action: 'clear_flow_reports',
        deleteAll: (executor) => repository.deleteAll(executor),
        details: (deleted) => `All flow reports deleted (${deleted})`,
      }),
  };
}

export type FlowReportsService = ReturnType<typeof createFlowReportsService>;
