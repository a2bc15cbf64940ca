import type { Clock } from '../../clock.ts';
import { dayWindow, formatDay, type CalendarDays } from '../../records/record-windows.ts';
import { clearRecords } from '../../records/clear-records.ts';
import type { Db } from '../../storage/database.ts';
import { DAY_MS } from '../../validation/calendar-date.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { SubscriberUsageRepository, UsageTotals } from './subscriber-usage.repository.ts';

/** Which usage to total: whole UTC days, grouped by day or by subscriber, optionally of one IMSI. */
interface UsageCriteria {
  days: CalendarDays;
  groupBy: 'day' | 'subscriber';
  imsi?: string;
}

export function createSubscriberUsageService(deps: {
  db: Db;
  repository: SubscriberUsageRepository;
  audit: AuditLogService;
  clock: Clock;
  /** Writes every record the pipeline has accepted, so a clear removes them too. */
  flushRecords: () => Promise<void>;
}) {
  const { repository, clock } = deps;

  return {
    /** Totals per group (UTC day `YYYY-MM-DD` or IMSI), ascending by key; groups without usage are absent. */
    async totals(criteria: UsageCriteria): Promise<{ key: string; totals: UsageTotals }[]> {
      const window = dayWindow(criteria.days, clock.now());
      const filter = { from: window.from, to: window.before - DAY_MS, imsi: criteria.imsi };
      if (criteria.groupBy === 'subscriber') {
        const rows = await repository.bySubscriber(filter);
        return rows.map(({ imsi, ...totals }) => ({ key: imsi, totals }));
      }
      const rows = await repository.byDay(filter);
      return rows.map(({ day, ...totals }) => ({ key: formatDay(day), totals }));
    },

    clear: (actor: Actor): Promise<number> =>
      clearRecords(deps, actor, {
        action: 'clear_subscriber_usage',
        deleteAll: (executor) => repository.deleteAll(executor),
        details: (deleted) => `All subscriber usage deleted (${deleted} day counters)`,
      }),
  };
}

export type SubscriberUsageService = ReturnType<typeof createSubscriberUsageService>;
