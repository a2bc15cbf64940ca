import type { Logger } from 'pino';
import type { RadioChanges, RadioConnection } from '../radio-registry.ts';
import type { PduSession, Registration, ServingCell } from '../network-state.ts';

/**
 * What happens in the network, one event name per fact (architecture.md, "NetworkEvents"). The network
 * functions emit; network state (the API's read model, its only writer), the metrics and the records
 * subscribe. Subscribers are identified by SUPI (an IMSI, TS 23.003 2.2A), radios by their radio id
 * (`<mcc>:<mnc>:<node id in hex>`, radio-id.ts).
 */
export interface NetworkEventMap {
  /** NG Setup accepted (TS 38.413 8.7.1); a node connecting again under the same id replaces its entry. */
  'radio.connected': RadioConnection;
  /** RAN Configuration Update accepted (8.7.2), a new primary path, or any message heard (last seen). */
  'radio.updated': { id: string; changes?: RadioChanges };
  /** The node's association ended (or another association took its id over). */
  'radio.disconnected': { id: string };
  /** Registration Complete (TS 24.501 5.5.1.2.4, 5.5.1.3.4): registered through the radio named `radio`. */
  'ue.registered': { supi: string; radio: string; registration: Registration };
  /**
   * A registered UE this AMF adopted from a dead member of its AMF set (docs/amf-set.md, "A dead member's
   * idle devices"): registered here, CM-IDLE, not heard from (no radio serves it through this member yet).
   */
  'ue.adopted': { supi: string; registration: Registration };
  /** Deregistered, however it happened (UE- or network-initiated, implicit, context released). */
  'ue.deregistered': { supi: string };
  /**
   * Signalling from the device through the radio named `radio`, with the cell of its User Location
   * Information when the message carries one.
   */
  'ue.seen': { supi: string; radio: string; servingCell: ServingCell | undefined };
  /** Emitted by network state: the device's serving cell is another cell than before (location listens). */
  'ue.servingCellChanged': { supi: string; servingCell: ServingCell };
  /** PDU Session Establishment accepted (TS 24.501 6.4.1). */
  'session.established': { supi: string; session: PduSession };
  /** The session changed: policy or AMBR modified, user plane activated or deactivated. */
  'session.modified': { supi: string; session: PduSession };
  /** The session is gone (released by the UE or the network, or locally). */
  'session.released': { supi: string; pduSessionId: number };
  /**
   * A Secondary RAT Data Usage Report's volumes for one session (TS 38.413 8.16.1), summed per RAT
   * type of the report; not the subscriber's usage (the UPF counts the same packets, network.md 7).
   */
  'session.secondaryRatUsage': {
    supi: string;
    pduSessionId: number;
    ratType: SecondaryRatType;
    uplinkOctets: number;
    downlinkOctets: number;
  };
  /** A 5GMM or 5GSM message to or from a device, as its subscriber log records it (network.md 4). */
  'nas.message': NasMessageEvent;
}

/**
 * One NAS message of a device the core has identified: by its SUPI, or as a device it cannot map to a
 * subscriber (`imsi` then the IMSI its SUCI shows in clear, or empty). `event` is the message's name in
 * TS 24.501 title case, `level` `warn` for rejects, failures and status messages; `details` the radio,
 * the identity it used (`suci`, `guti`), `pdu_session_id` and the cause as TS 24.501 names it
 * (`Illegal UE (3)`). `raw` is the plain NAS message (after security removed).
 */
export interface NasMessageEvent {
  readonly imsi: string;
  readonly direction: 'inbound' | 'outbound';
  readonly event: string;
  readonly level: 'info' | 'warn';
  readonly raw: Uint8Array;
  readonly details: Readonly<Record<string, unknown>>;
}

/** The RAT types of a Secondary RAT usage report (TS 38.413 9.3.1); `other` for later extensions. */
export type SecondaryRatType = 'nr' | 'eutra' | 'nr-unlicensed' | 'e-utra-unlicensed' | 'other';

type NetworkEventName = keyof NetworkEventMap;

/**
 * A listener runs synchronously inside `emit`, so it must be cheap and hand slow work off. It may not
 * be async: a promise's failure would escape the emitter, so `on` refuses a listener returning one.
 */
type NetworkEventListener<K extends NetworkEventName> = (event: NetworkEventMap[K]) => unknown;

type NotPromise<R> = R extends PromiseLike<unknown> ? never : R;

/** What an emitting network function needs. */
export interface NetworkEventEmitter {
  emit<K extends NetworkEventName>(name: K, event: NetworkEventMap[K]): void;
}

/** The whole map: emit, and subscribe to one event name; `on` returns the function that unsubscribes. */
export interface NetworkEvents extends NetworkEventEmitter {
  on<K extends NetworkEventName, R>(
    name: K,
    listener: (event: NetworkEventMap[K]) => NotPromise<R>,
  ): () => void;
}

/**
 * The one synchronous emitter of the network's events. Listeners of a name are held in an array that is
 * replaced (never changed) on subscribe and unsubscribe, so `emit` allocates nothing, and a listener
 * added or removed during an emit takes effect from the next one. A listener that throws is logged;
 * the others still run and the emitter goes on, since what it reports has already happened.
 */
export function createNetworkEvents(deps: { logger: Logger }): NetworkEvents {
  // One entry per subscription, so a function subscribed twice is unsubscribed once at a time.
  type Entry = { readonly listener: (event: never) => unknown };
  const listeners: Partial<Record<NetworkEventName, readonly Entry[]>> = {};

  return {
    emit(name, event) {
      const current = listeners[name];
      if (current === undefined) return;
      for (let i = 0; i < current.length; i++) {
        try {
          (current[i]!.listener as NetworkEventListener<typeof name>)(event);
        } catch (error) {
          deps.logger.error({ err: error, event: name }, 'a network event listener failed');
        }
      }
    },

    on(name, listener) {
      const entry: Entry = { listener };
      listeners[name] = [...(listeners[name] ?? []), entry];
      return () => {
        const current = listeners[name];
        if (current === undefined || !current.includes(entry)) return;
        const kept = current.filter((e) => e !== entry);
        if (kept.length === 0) delete listeners[name];
        else listeners[name] = kept;
      };
    },
  };
}
