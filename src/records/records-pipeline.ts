import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { RadioRegistry } from '../network/radio-registry.ts';
import { createFlowReportsRepository } from '../resources/flow-reports/flow-reports.repository.ts';
import { createRadioEventsRepository } from '../resources/radio-events/radio-events.repository.ts';
import { createRadioLogsRepository } from '../resources/radio-logs/radio-logs.repository.ts';
import { createSubscriberLogsRepository } from '../resources/subscriber-logs/subscriber-logs.repository.ts';
import { createSubscriberUsageRepository } from '../resources/subscriber-usage/subscriber-usage.repository.ts';
import type { Db } from '../storage/database.ts';
import { createBatchingWriter, type BatchingWriterOptions } from './batching-writer.ts';
import { createRecordsIngestion, type RecordRows } from './ingestion.ts';

/**
 * Assembles the records pipeline: one repository per record type, the batching writer over them and
 * the ingestion interface in front. The app and the development seed tool build it the same way.
 */
export function createRecordsPipeline(deps: {
  db: Db;
  radios: RadioRegistry;
  clock: Clock;
  logger: Logger;
  writerOptions?: Partial<BatchingWriterOptions>;
}) {
  const { db } = deps;
  const repositories = {
    radioEvents: createRadioEventsRepository(db),
    subscriberLogs: createSubscriberLogsRepository(db),
    radioLogs: createRadioLogsRepository(db),
    flowReports: createFlowReportsRepository(db),
    subscriberUsage: createSubscriberUsageRepository(db),
  };
  const writer = createBatchingWriter<RecordRows>({
    db,
    logger: deps.logger,
    options: deps.writerOptions,
    sinks: {
      radio_events: (rows, executor) => repositories.radioEvents.insertMany(rows, executor),
      subscriber_logs: (rows, executor) => repositories.subscriberLogs.insertMany(rows, executor),
      radio_logs: (rows, executor) => repositories.radioLogs.insertMany(rows, executor),
      flow_reports: (rows, executor) => repositories.flowReports.insertMany(rows, executor),
      subscriber_usage: (rows, executor) => repositories.subscriberUsage.add(rows, executor),
    },
  });
  const ingestion = createRecordsIngestion({ writer, radios: deps.radios, clock: deps.clock });
  return { repositories, ingestion };
}

export type RecordsPipeline = ReturnType<typeof createRecordsPipeline>;
