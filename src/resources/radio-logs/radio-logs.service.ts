import { createLogRecordsService, type LogRecordsServiceDeps } from '../../records/log-records.service.ts';
import type { RadioLogsRepository } from './radio-logs.repository.ts';

export function createRadioLogsService(deps: LogRecordsServiceDeps<RadioLogsRepository>) {
  return createLogRecordsService(deps, { action: 'clear_radio_logs', records: 'radio logs' });
}

export type RadioLogsService = ReturnType<typeof createRadioLogsService>;
