import { createLogRecordsService, type LogRecordsServiceDeps } from '../../records/log-records.service.ts';
import type { SubscriberLogsRepository } from './subscriber-logs.repository.ts';

export function createSubscriberLogsService(deps: LogRecordsServiceDeps<SubscriberLogsRepository>) {
  return createLogRecordsService(deps, { action: 'clear_subscriber_logs', records: 'subscriber logs' });
}

export type SubscriberLogsService = ReturnType<typeof createSubscriberLogsService>;
