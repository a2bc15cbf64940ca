import type { LogDirection, RadioLogLevel } from '../../records/record-inputs.ts';
import type { TimestampWindow } from '../../records/record-windows.ts';
import { createLogRecordsRepository } from '../../records/log-records.repository.ts';
import type { Db } from '../../storage/database.ts';

export interface RadioLog {
  id: number;
  timestamp: number;
  level: RadioLogLevel;
  ranId: string;
  event: string;
  direction: LogDirection;
  raw: Buffer;
  details: string;
}

interface RadioLogFilter extends TimestampWindow {
  ranId?: string;
  direction?: LogDirection;
  event?: string;
}

export function createRadioLogsRepository(db: Db) {
  return createLogRecordsRepository<'radio_logs', RadioLogFilter, RadioLog>(db, {
    table: 'radio_logs',
    columns: ['timestamp', 'level', 'ran_id', 'event', 'direction', 'raw', 'details'],
    filters: { ranId: 'ran_id', direction: 'direction', event: 'event' },
    item: (row) => ({
      id: row.id,
      timestamp: Number(row.timestamp),
      level: row.level,
      ranId: row.ran_id,
      event: row.event,
      direction: row.direction,
      raw: row.raw,
      details: row.details,
    }),
  });
}

export type RadioLogsRepository = ReturnType<typeof createRadioLogsRepository>;
