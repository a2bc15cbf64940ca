import type { Timers } from '../clock.ts';
import type { Cause, CPTransportLayerInformation, NGAPPDU } from '../network/ngap/generated/types.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../network/ngap/ngap-codec.ts';
import type { TnlEndpoint } from '../network/ngap/transport-layer-address.ts';
import {
  NGAP_PPID,
  type AssociationUp,
  type InboundMessage,
  type N2Association,
  type N2Transport,
  type StreamCounts,
} from '../network/transport/n2-transport.ts';
import type { OfferedTnlAssociation } from './amf-messages.ts';

/**
 * The further TNL associations a simulated node sets up with the endpoints its AMF offers (TS 38.413
 * 8.7.3.2 AMF TNL Association To Add List), and the NGAP UE-TNLA binding (TS 38.412 7, TS 23.502
 * 4.2.7.2): each UE's signalling goes on one association, the one the AMF last sent it on, or one chosen
 * among those allowed UE signalling when the UE starts.
 */

/** One further association, joined to the node's NG-C interface. */
export interface FurtherAssociation {
  endpoint: TnlEndpoint;
  usage: OfferedTnlAssociation['usage'];
  association: N2Association;
  up: AssociationUp;
}

/** What the node reports in AMF Configuration Update Acknowledge (8.7.3.2). */
export interface TnlSetupOutcome {
  setup: CPTransportLayerInformation[];
  failed: { address: CPTransportLayerInformation; cause: Cause }[];
}

export interface GnbTnlOptions {
  transport: N2Transport;
  local: { addresses: readonly string[] } | undefined;
  streams: StreamCounts;
  timers: Timers;
  responseTimeoutMs: number;
  /** RAN Configuration Update naming the node (gnb-messages.ts `tnlAssociationJoin`). */
  join(): NGAPPDU;
  /** A PDU on a joined further association, for the node to handle like one on its first. */
  receive(message: InboundMessage, via: FurtherAssociation): void;
  /** A further association ended (its UEs go back to the others). */
  ended(via: FurtherAssociation): void;
  /** The join's two PDUs, kept with the node's others (`sent`, `received`). */
  sent(bytes: Uint8Array, pdu: NGAPPDU, via: FurtherAssociation): void;
  received(message: InboundMessage, via: FurtherAssociation): void;
}

const NO_RESOURCE: Cause = { choice: 'transport', value: 'transport-resource-unavailable' };

export class GnbTnlAssociations {
  readonly #options: GnbTnlOptions;
  readonly #live: FurtherAssociation[] = [];
  /** The association of each UE by RAN UE NGAP ID; undefined: the node's first association. */
  readonly #bindings = new Map<number, FurtherAssociation | undefined>();

  constructor(options: GnbTnlOptions) {
    this.#options = options;
  }

  get live(): readonly FurtherAssociation[] {
    return this.#live;
  }

  /**
   * Sets an association up with each offered endpoint and joins it (RAN Configuration Update first, TS
   * 38.412 7), before the node acknowledges (8.7.3.2); an endpoint that does not read, cannot be reached
   * or is refused is reported failed.
   */
  async open(offered: readonly OfferedTnlAssociation[]): Promise<TnlSetupOutcome> {
    const outcome: TnlSetupOutcome = { setup: [], failed: [] };
    for (const item of offered) {
      const joined = item.endpoint === undefined ? undefined : await this.#openOne(item, item.endpoint);
      if (joined) outcome.setup.push(item.address);
      else outcome.failed.push({ address: item.address, cause: NO_RESOURCE });
    }
    return outcome;
  }

  /** The association a UE's message goes on: its binding, else one of those allowed UE signalling. */
  route(ranUeNgapId: number): FurtherAssociation | undefined {
    if (this.#bindings.has(ranUeNgapId)) return this.#bindings.get(ranUeNgapId);
    // Spread over the first association and each further one allowed UE signalling (TS 38.413 9.3.2.9).
    const candidates = [undefined, ...this.#live.filter((f) => f.usage !== 'non-ue')];
    const chosen = candidates[ranUeNgapId % candidates.length];
    this.#bindings.set(ranUeNgapId, chosen);
    return chosen;
  }

  /** The AMF sent the UE's message on `via`: the node binds the UE to it (TS 38.412 7). */
  heard(ranUeNgapId: number, via: FurtherAssociation | undefined): void {
    this.#bindings.set(ranUeNgapId, via);
  }

  /** The UE-associated logical NG-connection ended: its binding too. */
  forget(ranUeNgapId: number): void {
    this.#bindings.delete(ranUeNgapId);
  }

  /** Every further association aborted (the node's first one ended). */
  abortAll(why: string): void {
    for (const further of [...this.#live]) further.association.abort(why);
  }

  async #openOne(item: OfferedTnlAssociation, endpoint: TnlEndpoint): Promise<boolean> {
    const { transport, local, streams } = this.#options;
    let further: FurtherAssociation | undefined;
    /** Settles the join with the AMF's answer to RAN Configuration Update. */
    let answered: ((acknowledged: boolean) => void) | undefined;
    const joined = new Promise<boolean>((resolve) => (answered = resolve));
    try {
      await transport.connect(
        {
          remote: [endpoint],
          ...(local === undefined ? {} : { local: { addresses: local.addresses } }),
          outboundStreams: streams.outbound,
          inboundStreams: streams.inbound,
        },
        (association, up) => {
          const via: FurtherAssociation = { endpoint, usage: item.usage, association, up };
          further = via;
          return {
            message: (message) => {
              if (answered === undefined) return this.#options.receive(message, via);
              this.#options.received(message, via);
              const pdu = message.ppid === NGAP_PPID ? decodeNgapPdu(message.payload) : undefined;
              const type = pdu?.ok === true ? ngapMessageType(pdu.value) : undefined;
              answered(type === 'RANConfigurationUpdateAcknowledge');
            },
            event: (event) => {
              if (event.type !== 'communication-lost' && event.type !== 'shutdown-complete') return;
              answered?.(false);
              const at = this.#live.indexOf(via);
              if (at < 0) return;
              this.#live.splice(at, 1);
              for (const [ran, bound] of this.#bindings) if (bound === via) this.#bindings.delete(ran);
              this.#options.ended(via);
            },
          };
        },
      );
    } catch {
      return false;
    }
    if (further === undefined) return false;
    const cancel = this.#options.timers.after(this.#options.responseTimeoutMs, () => answered?.(false));
    const join = this.#options.join();
    const bytes = encodeNgapPdu(join);
    const sent = further.association.send(0, NGAP_PPID, bytes);
    if (sent.ok) this.#options.sent(bytes, join, further);
    else answered?.(false);
    const ok = await joined;
    cancel();
    answered = undefined;
    if (!ok) {
      further.association.abort('not joined');
      return false;
    }
    this.#live.push(further);
    return true;
  }
}
