import type { Generated } from 'kysely';

/**
 * Tables of the records pipeline (migration 0003): radio events, subscriber and radio logs, flow reports
 * and per-day subscriber usage. Times are Unix ms. Subscribers are referenced by IMSI and radios by their
 * `<mcc>:<mnc>:<gNB id>` string, without foreign keys: records outlive the configuration they mention.
 */
export interface RadioEventsTable {
  id: Generated<number>;
  timestamp: number;
  protocol: string;
  message_type: string;
  direction: 'inbound' | 'outbound';
  raw: Buffer;
  details: string;
  /** Migration 0015: the subscriber `details.imsi` names, for the filter by subscriber. */
  imsi: string | null;
  /** Migration 0022: the radio `details.radio` names, for the filter by radio. */
  radio: string | null;
}

export interface SubscriberLogsTable {
  id: Generated<number>;
  timestamp: number;
  /** Migration 0012: `warn` for rejects and failures (network.md section 4). */
  level: Generated<'debug' | 'info' | 'warn' | 'error'>;
  /** Empty for a device the core could not map to a subscriber (network.md section 4). */
  imsi: string;
  event: string;
  direction: 'inbound' | 'outbound';
  raw: Buffer;
  details: string;
}

/**
 * Migration 0021: what the network tells of a subscriber beyond its NAS messages (registered,
 * deregistered, a session established, modified or released), for its timeline.
 */
export interface SubscriberEventsTable {
  id: Generated<number>;
  timestamp: number;
  imsi: string;
  event: string;
  details: string;
}

export interface RadioLogsTable {
  id: Generated<number>;
  timestamp: number;
  level: 'debug' | 'info' | 'warn' | 'error';
  ran_id: string;
  event: string;
  direction: 'inbound' | 'outbound';
  raw: Buffer;
  details: string;
}

export interface FlowReportsTable {
  id: Generated<number>;
  /** Id / 8,192 at insert time (65,536 for reports bucketed by migration 0005), leading the key indexes. */
  bucket: number;
  subscriber_id: string;
  source_ip: string;
  destination_ip: string;
  source_port: number;
  destination_port: number;
  protocol: number;
  packets: number;
  bytes: number;
  start_time: number;
  end_time: number;
  direction: 'uplink' | 'downlink';
  action: 'allow' | 'drop';
}

/** A flow report as the pipeline hands it to storage, which numbers it and picks its bucket. */
export type NewFlowReport = Omit<FlowReportsTable, 'id' | 'bucket'>;

/** The end-time span of each bucket's reports, so a window knows which buckets to search. */
export interface FlowReportBucketsTable {
  bucket: number;
  first_end_time: number;
  last_end_time: number;
}

/** Flow reports per UTC day (of `end_time`) and protocol, maintained with the reports. */
export interface FlowReportDailyProtocolsTable {
  day: number;
  protocol: number;
  reports: number;
}

/** Uplink flow reports per UTC day (of `end_time`) and destination, maintained with the reports. */
export interface FlowReportDailyUplinkDestinationsTable {
  day: number;
  destination_ip: string;
  reports: number;
}

interface SubscriberUsageTable {
  id: Generated<number>;
  imsi: string;
  /** UTC midnight of the day the bytes were counted in, Unix ms. */
  day: number;
  uplink_bytes: number;
  downlink_bytes: number;
}

export interface RecordsTables {
  radio_events: RadioEventsTable;
  subscriber_logs: SubscriberLogsTable;
  subscriber_events: SubscriberEventsTable;
  radio_logs: RadioLogsTable;
  flow_reports: FlowReportsTable;
  flow_report_buckets: FlowReportBucketsTable;
  flow_report_daily_protocols: FlowReportDailyProtocolsTable;
  flow_report_daily_uplink_destinations: FlowReportDailyUplinkDestinationsTable;
  subscriber_usage: SubscriberUsageTable;
}
