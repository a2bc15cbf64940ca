import { OverloadedError } from '../errors.ts';
import type { AmfLimits } from '../network/amf/amf-settings.ts';
import type { SubscriptionData, SubscriptionDataPort } from '../network/ports/subscription-data.ts';

/**
 * The subscription data port, answering from the last data read for the subscriber while the database
 * is unavailable (the storage throws `OverloadedError`: down, unreachable, busy): a registered device's
 * Service Request, session re-activation or handover reads its profile and policies, and is served from
 * memory as its context is (docs/postgresql.md, "While the database cannot be used"). A subscriber never
 * read by this process fails as before. The data is what the database held at the last read; nothing is
 * served from memory while the database answers. It keeps one subscriber per UE context the AMF may hold
 * (`amf_max_ue_contexts`), so each device the AMF can hold can have its data; beyond it the least recently
 * read goes first.
 */
export function rememberedSubscriptionData(
  port: SubscriptionDataPort,
  amf: Pick<AmfLimits, 'maxUeContexts'>,
): SubscriptionDataPort {
  const limit = amf.maxUeContexts;
  const last = new Map<string, SubscriptionData | undefined>();
  return {
    async getSubscriptionData(imsi) {
      try {
        const data = await port.getSubscriptionData(imsi);
        last.delete(imsi);
        last.set(imsi, data);
        if (last.size > limit) last.delete(last.keys().next().value as string);
        return data;
      } catch (error) {
        if (error instanceof OverloadedError && last.has(imsi)) return last.get(imsi);
        throw error;
      }
    },
  };
}
