import type { RetentionService } from '../retention/retention.service.ts';
import type { RecordsPipeline } from './records-pipeline.ts';

/** Retention of each record type (decisions section 11): key, wording, default days. */
export const RECORD_RETENTION = {
  subscriberLogs: { recordType: 'subscriber_logs', label: 'subscriber log', defaultDays: 7 },
  radioLogs: { recordType: 'radio_logs', label: 'radio log', defaultDays: 7 },
  radioEvents: { recordType: 'radio_events', label: 'radio event', defaultDays: 7 },
  // A flow report has five indexes besides its table, and its deletes update the daily counts and the
  // bucket spans, so each costs several times an event's: smaller chunks keep each pause of the API
  // short while millions expire.
  flowReports: { recordType: 'flow_reports', label: 'flow report', defaultDays: 7, chunk: 250 },
  subscriberUsage: { recordType: 'subscriber_usage', label: 'subscriber usage record', defaultDays: 365 },
} as const;

/** Hands every record type to the retention scheduler, which deletes expired rows in bounded chunks. */
export function registerRecordRetention(
  retention: RetentionService,
  repositories: RecordsPipeline['repositories'],
): void {
  for (const key of Object.keys(RECORD_RETENTION) as (keyof typeof RECORD_RETENTION)[]) {
    const repository = repositories[key];
    retention.register({
      ...RECORD_RETENTION[key],
      deleteOlderThan:
        key === 'subscriberLogs'
          ? // The subscriber events (the timeline's state and session items) expire with the logs. The
            // sum reaches `limit` while either still has a full chunk to delete, so the loop goes on.
            async (cutoff, limit) =>
              (await repository.deleteOlderThan(cutoff, limit)) +
              (await repositories.subscriberEvents.deleteOlderThan(cutoff, limit))
          : (cutoff, limit) => repository.deleteOlderThan(cutoff, limit),
    });
  }
}
