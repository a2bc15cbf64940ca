import type { RetentionService } from '../retention/retention.service.ts';
import type { Clock } from '../clock.ts';
import { createAuditLogsRepository } from '../resources/audit-logs/audit-logs.repository.ts';
import { createAuditLogService } from '../resources/audit-logs/audit-logs.service.ts';
import type { Db } from '../storage/database.ts';

/** The audit log every change writes into, inside the change's own transaction. */
export function wireAudit(deps: { db: Db; clock: Clock }) {
  const repository = createAuditLogsRepository(deps.db);
  return { repository, service: createAuditLogService({ repository, clock: deps.clock }) };
}

/** Audit entries expire after 90 days unless the operator says otherwise. */
export function registerAuditRetention(
  retention: RetentionService,
  repository: ReturnType<typeof createAuditLogsRepository>,
): void {
  retention.register({
    recordType: 'audit_logs',
    label: 'audit log',
    defaultDays: 90,
    deleteOlderThan: (cutoff, limit) => repository.deleteOlderThan(cutoff, limit),
  });
}
