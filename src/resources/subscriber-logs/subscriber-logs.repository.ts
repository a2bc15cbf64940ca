import type { LogDirection, LogLevel } from '../../records/record-inputs.ts';
import type { TimestampWindow } from '../../records/record-windows.ts';
import { createLogRecordsRepository } from '../../records/log-records.repository.ts';
import type { Db } from '../../storage/database.ts';

export interface SubscriberLog {
  id: number;
  timestamp: number;
  level: LogLevel;
  /** Empty for a device the core could not map to a subscriber (network.md section 4). */
  imsi: string;
  event: string;
  direction: LogDirection;
  raw: Buffer;
  details: string;
}

interface SubscriberLogFilter extends TimestampWindow {
  imsi?: string;
  direction?: LogDirection;
  event?: string;
}

export function createSubscriberLogsRepository(db: Db) {
  return createLogRecordsRepository<'subscriber_logs', SubscriberLogFilter, SubscriberLog>(db, {
    table: 'subscriber_logs',
    columns: ['timestamp', 'level', 'imsi', 'event', 'direction', 'raw', 'details'],
    filters: { imsi: 'imsi', direction: 'direction', event: 'event' },
    item: (row) => ({
      id: row.id,
      timestamp: Number(row.timestamp),
      level: row.level,
      imsi: row.imsi,
      event: row.event,
      direction: row.direction,
      raw: row.raw,
      details: row.details,
    }),
  });
}

export type SubscriberLogsRepository = ReturnType<typeof createSubscriberLogsRepository>;
