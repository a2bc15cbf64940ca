import { createFlowReportsRepository } from '../resources/flow-reports/flow-reports.repository.ts';
import { createRadioEventsRepository } from '../resources/radio-events/radio-events.repository.ts';
import { createRadioLogsRepository } from '../resources/radio-logs/radio-logs.repository.ts';
import { createSubscriberEventsRepository } from '../resources/subscriber-timeline/subscriber-events.repository.ts';
import { createSubscriberLogsRepository } from '../resources/subscriber-logs/subscriber-logs.repository.ts';
import { createSubscriberUsageRepository } from '../resources/subscriber-usage/subscriber-usage.repository.ts';
import type { Db } from '../storage/database.ts';
import { writeTransaction, type RowQuery } from '../storage/row-statement.ts';
import type { BatchStore } from './batching-writer.ts';
import type { RecordRows } from './ingestion.ts';

/** One repository per record type, on one database. */
export function createRecordRepositories(db: Db) {
  return {
    radioEvents: createRadioEventsRepository(db),
    subscriberLogs: createSubscriberLogsRepository(db),
    subscriberEvents: createSubscriberEventsRepository(db),
    radioLogs: createRadioLogsRepository(db),
    flowReports: createFlowReportsRepository(db),
    subscriberUsage: createSubscriberUsageRepository(db),
  };
}

type RecordRepositories = ReturnType<typeof createRecordRepositories>;

/**
 * Stores a batch of the writer as one transaction on the repositories' connection: the same code runs in
 * the service's thread (in-memory databases) and in the records writer thread (database files).
 */
export function createRecordStore(db: Db, repositories: RecordRepositories): BatchStore<RecordRows> {
  const sinks: { [K in keyof RecordRows]: (rows: RecordRows[K][]) => void } = {
    radio_events: (rows) => repositories.radioEvents.insert(rows),
    subscriber_logs: (rows) => repositories.subscriberLogs.insert(rows),
    subscriber_events: (rows) => repositories.subscriberEvents.insert(rows),
    radio_logs: (rows) => repositories.radioLogs.insert(rows),
    flow_reports: (rows) => repositories.flowReports.insert(rows),
    subscriber_usage: (rows) => repositories.subscriberUsage.add(rows),
  };
  // What each kind's rows read as the transaction begins: a batch without flow reports reads nothing.
  const reads: Partial<Record<keyof RecordRows, readonly RowQuery<unknown>[]>> = {
    flow_reports: repositories.flowReports.insertReads,
  };
  return (batch) =>
    writeTransaction(
      db,
      () => {
        for (const [kind, rows] of batch) (sinks[kind] as (rows: unknown[]) => void)(rows);
      },
      [...batch.keys()].flatMap((kind) => reads[kind] ?? []),
    );
}
