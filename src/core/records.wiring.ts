import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { createDecoderRegistry } from '../records/decoders.ts';
import { createKeyMaterialRedactions } from '../records/key-material.ts';
import { createRecordsPipeline } from '../records/records-pipeline.ts';
import { registerRecordRetention } from '../records/records-retention.ts';
import type { NetworkEvents } from '../network/events/network-events.ts';
import type { AuditLogService } from '../resources/audit-logs/audit-logs.service.ts';
import { createFlowReportsService } from '../resources/flow-reports/flow-reports.service.ts';
import { createRadioEventsService } from '../resources/radio-events/radio-events.service.ts';
import { createRadioLogsService } from '../resources/radio-logs/radio-logs.service.ts';
import { createSubscriberLogsService } from '../resources/subscriber-logs/subscriber-logs.service.ts';
import { recordSubscriberEvents } from '../resources/subscriber-timeline/subscriber-events-recorder.ts';
import { createSubscriberUsageService } from '../resources/subscriber-usage/subscriber-usage.service.ts';
import type { Db } from '../storage/database.ts';
import type { CoreWiring } from './wiring.ts';

/** Radio events, subscriber logs and events, radio logs, flow reports and usage (docs/records.md). */
export function wireRecords(
  core: CoreWiring,
  deps: { db: Db; audit: AuditLogService; clock: Clock; logger: Logger; events: NetworkEvents },
) {
  const { db, audit, clock, logger } = deps;
  const decoders = createDecoderRegistry({ logger });
  // Stored NGAP PDUs decode at read time (network.md section 3), whether or not N2 runs. The codec is
  // imported on first use: it is the largest part of the bundle, and a start should not wait for it.
  decoders.register('NGAP', async (raw) =>
    (await import('../network/amf/n2/ngap-event-decoder.ts')).decodeNgapEvent(raw),
  );
  // Filled by the network side with the redaction of each protocol it records (n2.wiring.ts).
  const redactions = createKeyMaterialRedactions();
  const pipeline = createRecordsPipeline({ db, clock, logger, metrics: core.metrics, redactions });
  const { repositories } = pipeline;
  registerRecordRetention(core.retention, repositories);
  core.onFileHold(() => pipeline.holdFile());
  core.onRestored(async () => repositories.flowReports.forgetCounts());
  repositories.flowReports.shareCounts(core.notices);
  // A subscriber's state changes and sessions, for its timeline; kept and cleared with its logs.
  const stopSubscriberEvents = recordSubscriberEvents({ events: deps.events, records: pipeline.ingestion });
  // Every record accepted before the stop is written before the database closes; the network's events
  // are no longer recorded from then on (a closed pipeline refuses them).
  core.component({
    name: 'records',
    stop: () => {
      stopSubscriberEvents();
      return pipeline.ingestion.close();
    },
  });
  const flushRecords = () => pipeline.ingestion.flush();

  return {
    ingestion: pipeline.ingestion,
    onWritten: (listener: Parameters<typeof pipeline.onWritten>[0]) => pipeline.onWritten(listener),
    decoders,
    redactions,
    radioEvents: createRadioEventsService({
      db,
      repository: repositories.radioEvents,
      decoders,
      audit,
      flushRecords,
    }),
    subscriberLogs: createSubscriberLogsService({
      db,
      repository: {
        ...repositories.subscriberLogs,
        // The subscriber events go with the logs they stand beside in the timeline; the count is the logs'.
        deleteAll: async (executor) => {
          await repositories.subscriberEvents.deleteAll(executor);
          return repositories.subscriberLogs.deleteAll(executor);
        },
      },
      audit,
      flushRecords,
    }),
    subscriberEvents: repositories.subscriberEvents,
    /** The flow reports by subscriber and exact time, for the subscriber timeline's UPF items. */
    flowReportsRepository: repositories.flowReports,
    radioLogs: createRadioLogsService({ db, repository: repositories.radioLogs, audit, flushRecords }),
    flowReports: createFlowReportsService({
      db,
      repository: repositories.flowReports,
      audit,
      clock,
      flushRecords,
    }),
    subscriberUsage: createSubscriberUsageService({
      db,
      repository: repositories.subscriberUsage,
      audit,
      clock,
      flushRecords,
    }),
  };
}
