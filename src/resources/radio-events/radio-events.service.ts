import { NotFoundError } from '../../errors.ts';
import type { DecoderRegistry } from '../../records/decoders.ts';
import { createLogRecordsService, type LogRecordsServiceDeps } from '../../records/log-records.service.ts';
import type { RadioEventsRepository } from './radio-events.repository.ts';

export function createRadioEventsService(
  deps: LogRecordsServiceDeps<RadioEventsRepository> & { decoders: DecoderRegistry },
) {
  const { repository, decoders } = deps;

  return {
    ...createLogRecordsService(deps, { action: 'clear_radio_events', records: 'radio events' }),

    count: (filter: Parameters<RadioEventsRepository['count']>[0]) => repository.count(filter),

    /** Oldest first after a position, page by page: the walk of an export (radio-events-export.ts). */
    listOldestAfter: (...args: Parameters<RadioEventsRepository['listOldestAfter']>) =>
      repository.listOldestAfter(...args),

    /** The stored message and what its protocol's decoder makes of it (`{}` without a decoder). */
    async get(id: number): Promise<{ raw: Buffer; decoded: Record<string, unknown> }> {
      const event = await repository.findMessage(id);
      if (!event) throw new NotFoundError(`radio event ${id} not found`);
      return { raw: event.raw, decoded: await decoders.decode(event.protocol, event.raw) };
    },
  };
}

export type RadioEventsService = ReturnType<typeof createRadioEventsService>;
