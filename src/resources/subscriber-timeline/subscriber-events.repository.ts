import { createLogRecordsRepository } from '../../records/log-records.repository.ts';
import type { TimestampWindow } from '../../records/record-windows.ts';
import type { Db } from '../../storage/database.ts';

/** A state change or session event of a subscriber (migration 0021), as its timeline reads it. */
export interface SubscriberEvent {
  id: number;
  timestamp: number;
  imsi: string;
  event: string;
  details: string;
}

interface SubscriberEventFilter extends TimestampWindow {
  imsi?: string;
}

export function createSubscriberEventsRepository(db: Db) {
  return createLogRecordsRepository<'subscriber_events', SubscriberEventFilter, SubscriberEvent>(db, {
    table: 'subscriber_events',
    columns: ['timestamp', 'imsi', 'event', 'details'],
    filters: { imsi: 'imsi' },
    item: (row) => ({
      id: row.id,
      timestamp: Number(row.timestamp),
      imsi: row.imsi,
      event: row.event,
      details: row.details,
    }),
  });
}

export type SubscriberEventsRepository = ReturnType<typeof createSubscriberEventsRepository>;
