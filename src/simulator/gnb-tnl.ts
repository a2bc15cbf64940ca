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
import type { OfferedTnlAssociation, TnlAssociationUpdate } from './amf-messages.ts';

/**
 * The further TNL associations a simulated node sets up with the endpoints its AMF offers (TS 38.413
 * 8.7.3.2 AMF TNL Association To Add List), removes and updates as the AMF says (To Remove, To Update
 * Lists), and the NGAP UE-TNLA binding (TS 38.412 7, TS 23.502 4.2.7.2): each UE's signalling goes on
 * one association, the one the AMF last sent it on, or one chosen by weight factor among those allowed
 * UE signalling when the UE starts.
 */

/** One further association, joined to the node's NG-C interface. */
export interface FurtherAssociation {
  endpoint: TnlEndpoint;
  /** TNL Association Usage and TNL Address Weight Factor (TS 38.413 9.3.2.9, 9.3.2.10), as last told. */
  usage: OfferedTnlAssociation['usage'];
  weight: number;
  association: N2Association;
  up: AssociationUp;
}

/** What the node reports in AMF Configuration Update Acknowledge (8.7.3.2). */
export interface TnlSetupOutcome {
  setup: CPTransportLayerInformation[];
  failed: { address: CPTransportLayerInformation; cause: Cause }[];
}

interface GnbTnlOptions {
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

/**
 * The weight factor the node's first association counts with beside the further ones: the AMF gives
 * none for the endpoint the node was configured with, and 1 is `n2_further_endpoints`' default.
 */
const FIRST_ASSOCIATION_WEIGHT = 1;

const sameEndpoint = (a: TnlEndpoint, b: TnlEndpoint | undefined): boolean =>
  b !== undefined && a.address === b.address && a.port === b.port;

export class GnbTnlAssociations {
  readonly #options: GnbTnlOptions;
  readonly #live: FurtherAssociation[] = [];
  /** The association of each UE by RAN UE NGAP ID; undefined: the node's first association. */
  readonly #bindings = new Map<number, FurtherAssociation | undefined>();
  /** Smooth weighted round robin (each pick adds the weights, the highest wins and pays the total). */
  readonly #credit = new Map<FurtherAssociation | undefined, number>();

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
    const chosen = this.#pick();
    this.#bindings.set(ranUeNgapId, chosen);
    return chosen;
  }

  /**
   * The association of a new UE: the first one and each further one allowed UE signalling (TS 38.413
   * 9.3.2.9), in proportion to their weight factors (9.3.2.10, TS 23.501 5.21.1.2); weight 0 takes none.
   * Deterministic, so that shares are exact over any run of picks.
   */
  #pick(): FurtherAssociation | undefined {
    const candidates: { via: FurtherAssociation | undefined; weight: number }[] = [
      { via: undefined, weight: FIRST_ASSOCIATION_WEIGHT },
      ...this.#live.filter((f) => f.usage !== 'non-ue').map((f) => ({ via: f, weight: f.weight })),
    ];
    let total = 0;
    let best: { via: FurtherAssociation | undefined; credit: number } | undefined;
    for (const { via, weight } of candidates) {
      total += weight;
      const credit = (this.#credit.get(via) ?? 0) + weight;
      this.#credit.set(via, credit);
      if (best === undefined || credit > best.credit) best = { via, credit };
    }
    if (best === undefined) return undefined;
    this.#credit.set(best.via, best.credit - total);
    return best.via;
  }

  /**
   * AMF TNL Association To Remove List (8.7.3.2): the node removes its associations with those endpoints
   * (SCTP SHUTDOWN); their UEs go on over the others.
   */
  remove(endpoints: readonly (TnlEndpoint | undefined)[]): void {
    for (const further of [...this.#live]) {
      if (!endpoints.some((endpoint) => sameEndpoint(further.endpoint, endpoint))) continue;
      this.#drop(further);
      further.association.shutdown();
    }
  }

  /**
   * AMF TNL Association To Update List (8.7.3.2): the usage and weight factor given replace the old; UEs
   * bound to an association no longer allowed UE signalling are bound anew at their next message.
   */
  update(items: readonly TnlAssociationUpdate[]): void {
    for (const item of items) {
      const further = this.#live.find((f) => sameEndpoint(f.endpoint, item.endpoint));
      if (further === undefined) continue;
      if (item.usage !== undefined) further.usage = item.usage;
      if (item.weight !== undefined) further.weight = item.weight;
      if (further.usage === 'non-ue') this.#unbind(further);
    }
  }

  #unbind(via: FurtherAssociation): void {
    for (const [ran, bound] of this.#bindings) if (bound === via) this.#bindings.delete(ran);
  }

  /** `via` is no longer one of the node's associations: its UEs go over the others. */
  #drop(via: FurtherAssociation): void {
    const at = this.#live.indexOf(via);
    if (at < 0) return;
    this.#live.splice(at, 1);
    this.#credit.delete(via);
    this.#unbind(via);
    this.#options.ended(via);
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
          const via: FurtherAssociation = {
            endpoint,
            usage: item.usage,
            weight: item.weight,
            association,
            up,
          };
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
              this.#drop(via);
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
