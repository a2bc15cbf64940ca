import type { Insertable } from 'kysely';
import type { Clock } from '../clock.ts';
import type {
  NewFlowReport,
  RadioEventsTable,
  RadioLogsTable,
  SubscriberEventsTable,
  SubscriberLogsTable,
} from '../storage/tables/records.ts';
import type { BatchingWriter } from './batching-writer.ts';
import type { KeyMaterialRedactions } from './key-material.ts';
import {
  flowReportRow,
  radioEventRow,
  radioLogRow,
  subscriberEventRow,
  subscriberLogRow,
  usageIncrement,
  type FlowReportInput,
  type RadioEventInput,
  type RadioLogInput,
  type SubscriberEventInput,
  type SubscriberLogInput,
  type UsageIncrement,
  type UsageInput,
} from './record-inputs.ts';

/** The rows the batching writer carries, by kind. */
export interface RecordRows {
  radio_events: Insertable<RadioEventsTable>;
  subscriber_logs: Insertable<SubscriberLogsTable>;
  subscriber_events: Insertable<SubscriberEventsTable>;
  radio_logs: Insertable<RadioLogsTable>;
  flow_reports: NewFlowReport;
  subscriber_usage: UsageIncrement;
}

/**
 * The records pipeline as the network functions see it (docs/architecture.md). Every `record*` call
 * checks its input (a TypeError for a malformed record), then either accepts it and returns true, or,
 * when the writer's queue is full, records nothing and returns false: back-pressure. The caller then
 * waits for `whenWritable()` and retries, or drops the record and counts the loss. An accepted record
 * is written within milliseconds, and a clean shutdown (`close`) writes every accepted record.
 */
export interface RecordsIngestion {
  recordRadioEvent(event: RadioEventInput): boolean;
  recordSubscriberLog(log: SubscriberLogInput): boolean;
  /** A state change or session event of a subscriber (its timeline). */
  recordSubscriberEvent(event: SubscriberEventInput): boolean;
  recordRadioLog(log: RadioLogInput): boolean;
  /** All or none of the batch is accepted. */
  recordFlowReports(reports: FlowReportInput[]): boolean;
  /** Adds bytes to the subscriber's counters of the UTC day of `usage.at`. */
  recordUsage(usage: UsageInput): boolean;
  /** Resolves once `records` more records fit in the queue. */
  whenWritable(records?: number): Promise<void>;
  /** Resolves when every record accepted so far is written. */
  flush(): Promise<void>;
  /** Refuses further records (they throw) and writes every accepted one. */
  close(): Promise<void>;
}

export function createRecordsIngestion(deps: {
  writer: BatchingWriter<RecordRows>;
  clock: Clock;
  /** Releases what the writer's store holds (the writer thread), once every record is written. */
  closeStore?: () => Promise<void>;
  /** Zeroes key material before a message is queued; nothing is redacted without it (tools, benchmarks). */
  redactions?: Pick<KeyMaterialRedactions, 'apply'>;
}): RecordsIngestion {
  const { writer, clock, closeStore, redactions } = deps;

  return {
    recordRadioEvent: (event) =>
      writer.offer('radio_events', [
        radioEventRow(redactions?.apply(event.protocol, event) ?? event, clock.now()),
      ]),
    recordSubscriberLog: (log) => writer.offer('subscriber_logs', [subscriberLogRow(log, clock.now())]),
    recordSubscriberEvent: (event) =>
      writer.offer('subscriber_events', [subscriberEventRow(event, clock.now())]),
    // A radio log's raw bytes are the NGAP PDU of its event (network.md section 4).
    recordRadioLog: (log) =>
      writer.offer('radio_logs', [radioLogRow(redactions?.apply('NGAP', log) ?? log, clock.now())]),
    recordFlowReports: (reports) => writer.offer('flow_reports', reports.map(flowReportRow)),
    recordUsage: (usage) => writer.offer('subscriber_usage', [usageIncrement(usage, clock.now())]),
    whenWritable: (records) => writer.whenWritable(records),
    flush: () => writer.flush(),
    async close() {
      await writer.close();
      await closeStore?.();
    },
  };
}
