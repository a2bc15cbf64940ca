import { calendarDaysOf } from '../../http/record-query.ts';
import { DAY_MS } from '../../validation/calendar-date.ts';
import type { App } from '../../http/app-types.ts';
import { formatRecordTimestamp } from '../../http/record-time.ts';
import { Envelope, ok, Paginated, paginated, pageWindow } from '../../http/schemas.ts';
import { AuditLogItem, AuditLogQuery } from './audit-logs.schema.ts';
import type { AuditLogService } from './audit-logs.service.ts';

export function auditLogsRoutes(deps: { audit: AuditLogService }) {
  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/logs/audit',
      {
        config: { permission: 'audit:read' },
        schema: {
          tags: ['logs'],
          summary: 'Audit log, newest first',
          querystring: AuditLogQuery,
          response: { 200: Envelope(Paginated(AuditLogItem)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { startDay, endDay } = calendarDaysOf(request.query);
        const filter = {
          actor: request.query.actor?.toLowerCase(),
          from: startDay,
          // The end day is included: everything before the following midnight.
          before: endDay === undefined ? undefined : endDay + DAY_MS,
        };
        const { items, total } = await deps.audit.list(filter, limit, offset);
        const shaped = items.map((entry) => ({
          ...entry,
          timestamp: formatRecordTimestamp(Number(entry.timestamp)),
        }));
        return ok(paginated(shaped, total, request.query));
      },
    );
  };
}
