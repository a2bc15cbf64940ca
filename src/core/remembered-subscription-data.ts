import { OverloadedError } from '../errors.ts';
import type { AmfLimits } from '../network/amf/amf-settings.ts';
import type { HeldSubscribers } from '../network/amf/ports/held-subscribers.ts';
import type { SubscriptionData, SubscriptionDataPort } from '../network/ports/subscription-data.ts';

/** A held subscriber whose data no read has answered yet (taken over or adopted without one). */
const NOT_READ = Symbol('not read');

/**
 * The subscription data port, answering from the last data read for the subscriber while the database
 * is unavailable (the storage throws `OverloadedError`: down, unreachable, busy): a registered device's
 * Service Request, session re-activation or handover reads its profile and policies, and is served from
 * memory as its context is (docs/postgresql.md, "While the database cannot be used"). Only the
 * subscribers whose UE contexts the AMF holds are served so (`HeldSubscribers`, told by the AMF's UE
 * table): their data is kept from the read that answered last until the AMF no longer holds them, however
 * many other subscribers are read meanwhile. Any other subscriber's read fails as before. The data is what
 * the database held at the last read; nothing is served from memory while the database answers.
 *
 * A registration reads the data before its UE authenticates, so before the AMF holds it under its SUPI:
 * such reads wait in `pending` for the `held` that follows (a round trip or two), a tenth of
 * `amf_max_ue_contexts` of them at most (at least 64), the oldest going first, so that registrations
 * that never complete cannot hold much. A subscriber held without such a read (one pushed out, a UE
 * taken over or adopted) is read once, ahead.
 */
export function rememberedSubscriptionData(
  port: SubscriptionDataPort,
  amf: Pick<AmfLimits, 'maxUeContexts'>,
): SubscriptionDataPort & HeldSubscribers {
  const pendingLimit = Math.max(64, Math.ceil(amf.maxUeContexts / 10));
  /** By SUPI, every subscriber the AMF holds: bounded by its UE table. */
  const held = new Map<string, SubscriptionData | undefined | typeof NOT_READ>();
  /** Reads for subscribers the AMF does not hold (yet), oldest first. */
  const pending = new Map<string, SubscriptionData>();
  return {
    async getSubscriptionData(imsi) {
      let data: SubscriptionData | undefined;
      try {
        data = await port.getSubscriptionData(imsi);
      } catch (error) {
        const kept = held.get(imsi);
        if (error instanceof OverloadedError && kept !== NOT_READ && held.has(imsi)) return kept;
        throw error;
      }
      if (held.has(imsi)) held.set(imsi, data);
      else if (data !== undefined) {
        // An unknown subscriber's registration is rejected: nothing to keep for it.
        pending.delete(imsi);
        pending.set(imsi, data);
        if (pending.size > pendingLimit) pending.delete(pending.keys().next().value as string);
      }
      return data;
    },
    held(supi) {
      if (held.has(supi)) return;
      const read = pending.get(supi);
      pending.delete(supi);
      if (read !== undefined) return void held.set(supi, read);
      // Taken over or adopted from another member of the AMF set, whose data this process never read, or
      // its registration's read pushed out: read ahead, so that an outage before the device's own
      // next read still serves it. A read that answered first is not overwritten; a failure is left to
      // that next read to report.
      held.set(supi, NOT_READ);
      port.getSubscriptionData(supi).then(
        (data) => {
          if (held.get(supi) === NOT_READ) held.set(supi, data);
        },
        () => undefined,
      );
    },
    released(supi) {
      held.delete(supi);
    },
  };
}
