import type { LogDirection } from '../../records/record-inputs.ts';
import type { TimestampWindow } from '../../records/record-windows.ts';
import { createLogRecordsRepository } from '../../records/log-records.repository.ts';
import type { Db } from '../../storage/database.ts';

export interface RadioEvent {
  id: number;
  timestamp: number;
  protocol: string;
  messageType: string;
  direction: LogDirection;
  raw: Buffer;
  details: string;
}

interface RadioEventFilter extends TimestampWindow {
  protocol?: string;
  direction?: LogDirection;
  messageType?: string;
  imsi?: string;
  /** The radio's name, as `details.radio` holds it (network.md section 3). */
  radio?: string;
}

export function createRadioEventsRepository(db: Db) {
  return {
    ...createLogRecordsRepository<'radio_events', RadioEventFilter, RadioEvent>(db, {
      table: 'radio_events',
      columns: ['timestamp', 'protocol', 'message_type', 'direction', 'raw', 'details', 'imsi', 'radio'],
      filters: {
        protocol: 'protocol',
        direction: 'direction',
        messageType: 'message_type',
        imsi: 'imsi',
        radio: 'radio',
      },
      item: (row) => ({
        id: row.id,
        timestamp: Number(row.timestamp),
        protocol: row.protocol,
        messageType: row.message_type,
        direction: row.direction,
        raw: row.raw,
        details: row.details,
      }),
    }),

    async findMessage(id: number): Promise<{ protocol: string; raw: Buffer } | undefined> {
      return db
        .selectFrom('radio_events')
        .select(['protocol', 'raw'])
        .where('id', '=', id)
        .executeTakeFirst();
    },
  };
}

export type RadioEventsRepository = ReturnType<typeof createRadioEventsRepository>;
