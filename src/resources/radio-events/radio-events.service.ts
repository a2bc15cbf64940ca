import { NotFoundError } from '../../errors.ts';
import type { DecoderRegistry } from '../../records/decoders.ts';
import { clearRecords } from '../../records/clear-records.ts';
import type { Db } from '../../storage/database.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { RadioEvent, RadioEventFilter, RadioEventsRepository } from './radio-events.repository.ts';

export function createRadioEventsService(deps: {
  db: Db;
  repository: RadioEventsRepository;
  decoders: DecoderRegistry;
  audit: AuditLogService;
  /** Writes every record the pipeline has accepted, so a clear removes them too. */
  flushRecords: () => Promise<void>;
}) {
  const { repository, decoders } = deps;

  return {
    async list(
      filter: RadioEventFilter,
      limit: number,
      offset: number,
    ): Promise<{ items: RadioEvent[]; total: number }> {
      const [items, total] = await Promise.all([
        repository.list(filter, limit, offset),
        repository.count(filter),
      ]);
      return { items, total };
    },

    /** The stored message and what its protocol's decoder makes of it (`{}` without a decoder). */
    async get(id: number): Promise<{ raw: Buffer; decoded: Record<string, unknown> }> {
      const event = await repository.findMessage(id);
      if (!event) throw new NotFoundError(`radio event ${id} not found`);
      return { raw: event.raw, decoded: await decoders.decode(event.protocol, event.raw) };
    },

    clear: (actor: Actor): Promise<number> =>
      clearRecords(deps, actor, {
        action: 'clear_radio_events',
        deleteAll: (executor) => repository.deleteAll(executor),
        details: (deleted) => `All radio events deleted (${deleted})`,
      }),
  };
}

export type RadioEventsService = ReturnType<typeof createRadioEventsService>;
