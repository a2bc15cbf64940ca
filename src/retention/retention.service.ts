import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Actor } from '../identity/actor.ts';
import type { AuditLogService } from '../resources/audit-logs/audit-logs.service.ts';
import type { Db } from '../storage/database.ts';
import { DAY_MS } from '../validation/calendar-date.ts';
import type { RetentionPoliciesRepository } from './retention-policies.repository.ts';

/** A record type whose old rows retention removes. */
interface RetentionTarget {
  /** Key of the policy, also used in audit actions: `audit_logs`, `flow_reports`, ... */
  recordType: string;
  /** Human wording for messages: "audit log", "flow report". */
  label: string;
  defaultDays: number;
  /** Deletes at most `limit` records older than `cutoff` (Unix ms) and returns how many it deleted. */
  deleteOlderThan: (cutoff: number, limit: number) => Promise<number>;
  /** Records per delete, when this type's rows cost more to delete than RETENTION_CHUNK allows for. */
  chunk?: number;
}

/** Rows per delete statement: small enough that a request waiting for the database is never held long. */
const RETENTION_CHUNK = 1000;

export function createRetentionService(deps: {
  db: Db;
  policies: RetentionPoliciesRepository;
  audit: AuditLogService;
  clock: Clock;
  logger: Logger;
}) {
  const { db, policies, audit, clock, logger } = deps;
  const targets = new Map<string, RetentionTarget>();

  function target(recordType: string): RetentionTarget {
    const found = targets.get(recordType);
    if (!found) throw new Error(`no retention target registered for ${recordType}`);
    return found;
  }

  async function days(recordType: string): Promise<number> {
    return (await policies.findDays(recordType)) ?? target(recordType).defaultDays;
  }

  return {
    register(retentionTarget: RetentionTarget): void {
      targets.set(retentionTarget.recordType, retentionTarget);
    },

    days,

    async setDays(recordType: string, newDays: number, actor: Actor): Promise<void> {
      const { label } = target(recordType);
      await db.transaction().execute(async (trx) => {
        await policies.upsertDays(recordType, newDays, trx);
        await audit.record(
          actor,
          {
            action: `update_${recordType}_retention`,
            details: `Retention of ${label}s set to ${newDays} days`,
          },
          trx,
        );
      });
    },

    /** Deletes expired records of every registered type, chunk by chunk, yielding between chunks. */
    async enforce(signal?: AbortSignal): Promise<Record<string, number>> {
      const deleted: Record<string, number> = {};
      for (const { recordType, deleteOlderThan: deleteChunk, chunk = RETENTION_CHUNK } of targets.values()) {
        const cutoff = clock.now() - (await days(recordType)) * DAY_MS;
        let total = 0;
        for (;;) {
          if (signal?.aborted) return deleted;
          const count = await deleteChunk(cutoff, chunk);
          total += count;
          if (count < chunk) break;
          await yieldToEventLoop();
        }
        deleted[recordType] = total;
        if (total > 0)
          logger.info({ recordType, deleted: total }, `retention removed ${total} ${recordType}`);
      }
      return deleted;
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
