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
        const { items, total } = await deps.audit.list(request.query, limit, offset);
        const shaped = items.map((entry) => ({
          ...entry,
          timestamp: formatRecordTimestamp(Number(entry.timestamp)),
        }));
        return ok(paginated(shaped, total, request.query));
      },
    );
  };
}
