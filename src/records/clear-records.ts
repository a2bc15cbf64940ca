import type { Actor } from '../identity/actor.ts';
import type { AuditLogService } from '../resources/audit-logs/audit-logs.service.ts';
import type { Db } from '../storage/database.ts';
import type { Executor } from '../storage/transaction.ts';

/**
 * The clear operation every record type shares: write what the pipeline has already accepted (so the
 * clear removes it too), then delete everything and audit it in one transaction. Returns the count deleted.
 */
export async function clearRecords(
  deps: { db: Db; audit: AuditLogService; flushRecords: () => Promise<void> },
  actor: Actor,
  what: {
    action: string;
    deleteAll: (executor: Executor) => Promise<number>;
    details: (deleted: number) => string;
  },
): Promise<number> {
  await deps.flushRecords();
  return deps.db.transaction().execute(async (trx) => {
    const deleted = await what.deleteAll(trx);
    await deps.audit.record(actor, { action: what.action, details: what.details(deleted) }, trx);
    return deleted;
  });
}
