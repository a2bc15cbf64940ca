import { constants } from 'node:os';

import type { CommunicationLostReason, StreamCounts, TransportAddress } from '../n2-transport.ts';
import type {
  IpFamily,
  NativeAddon,
  SctpNotification,
  SctpSocket,
  SctpSocketOptions,
} from '../native/native-addon.ts';
import { describeErrorCauses } from './error-causes.ts';
import type { AssociationHost, KernelAssociation } from './kernel-association.ts';
import { MessageAssembler } from './message-assembler.ts';

type AssocChange = Extract<SctpNotification, { type: 'assoc-change' }>;

/** What the owner of an endpoint (a listener, or one `connect`) does with association life. */
export interface EndpointHooks {
  /** SCTP_COMM_UP: a new association; the owner builds its handler. */
  up(endpoint: KernelEndpoint, change: AssocChange): void;
  /** SCTP_CANT_STR_ASSOC: an association this endpoint started never came up. */
  cantStart(endpoint: KernelEndpoint, change: AssocChange): void;
  /** An association of this endpoint ended. */
  ended(association: KernelAssociation): void;
  /** A receive failure or a notification the addon could not parse. */
  error(error: Error): void;
}

export interface EndpointOptions {
  socket: SctpSocketOptions;
  maxMessageSize: number;
}

/**
 * One kernel SCTP one-to-many socket and the associations on it: routes the socket's messages,
 * notifications and writability to the association they belong to.
 */
export class KernelEndpoint implements AssociationHost {
  readonly socket: SctpSocket;
  readonly maxMessageSize: number;
  readonly associations = new Map<number, KernelAssociation>();
  readonly #assembler: MessageAssembler;

  constructor(
    addon: NativeAddon,
    family: IpFamily,
    options: EndpointOptions,
    private readonly hooks: EndpointHooks,
  ) {
    this.maxMessageSize = options.maxMessageSize;
    this.#assembler = new MessageAssembler(options.maxMessageSize);
    this.socket = new addon.SctpSocket(
      family,
      {
        onMessage: (assocId, stream, ppid, data, complete, unordered) =>
          this.#message(assocId, stream, ppid, data, complete, unordered),
        onNotification: (notification) => this.#notification(notification),
        onWritable: () => {
          for (const association of this.associations.values()) association.writable();
        },
        onError: (error) => hooks.error(error),
      },
      options.socket,
    );
  }

  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  /** Closes the socket (the kernel aborts what is still open on it). Idempotent. */
  close(): void {
    this.#closed = true;
    this.socket.close();
  }

  /** Registers the association that SCTP_COMM_UP announced. */
  adopt(association: KernelAssociation): void {
    this.associations.set(association.assocId, association);
  }

  forget(association: KernelAssociation): void {
    if (this.associations.get(association.assocId) !== association) return;
    this.associations.delete(association.assocId);
    this.#assembler.drop(association.assocId);
    this.hooks.ended(association);
  }

  /** The peer's addresses, primary path first as the kernel lists them; [] if the kernel forgot it. */
  peerAddresses(assocId: number): TransportAddress[] {
    try {
      return this.socket.peerAddresses(assocId);
    } catch {
      return [];
    }
  }

  localAddresses(assocId: number): TransportAddress[] {
    try {
      return this.socket.localAddresses(assocId);
    } catch {
      return [];
    }
  }

  #message(
    assocId: number,
    stream: number,
    ppid: number,
    data: Buffer,
    complete: boolean,
    unordered: boolean,
  ): void {
    const association = this.associations.get(assocId);
    if (association === undefined) return;
    const result = this.#assembler.add(assocId, data, complete);
    switch (result.kind) {
      case 'partial':
        return;
      case 'message':
        association.deliver({ streamId: stream, ppid, payload: result.payload, unordered });
        return;
      case 'too-large':
        association.abort(`message of more than ${this.maxMessageSize} bytes`);
        return;
    }
  }

  #notification(notification: SctpNotification): void {
    switch (notification.type) {
      case 'assoc-change':
        this.#assocChange(notification);
        return;
      case 'peer-addr-change': {
        const { address } = notification;
        if (address !== null)
          this.associations.get(notification.assocId)?.peerAddressChanged(address, notification.state);
        return;
      }
      case 'shutdown-event':
        this.associations.get(notification.assocId)?.peerShutdown();
        return;
    }
  }

  #assocChange(change: AssocChange): void {
    const association = this.associations.get(change.assocId);
    switch (change.state) {
      case 'comm-up':
        if (association === undefined) this.hooks.up(this, change);
        return;
      case 'cant-str-assoc':
        this.hooks.cantStart(this, change);
        return;
      case 'restart':
        this.#assembler.drop(change.assocId);
        association?.restarted(this.peerAddresses(change.assocId), streamCounts(change));
        return;
      case 'shutdown-comp':
        association?.end({ type: 'shutdown-complete' });
        return;
      case 'comm-lost':
        association?.end(lostEvent(change));
        return;
    }
  }
}

export function streamCounts(change: AssocChange): StreamCounts {
  return { inbound: change.inboundStreams, outbound: change.outboundStreams };
}

/**
 * Why Linux reported SCTP_COMM_LOST (net/sctp/sm_statefuns.c): after the peer's ABORT, sac_error is
 * ECONNRESET or the ABORT's first cause code and sac_info holds its error causes; after
 * Association.Max.Retrans (RFC 9260 8.1) or unanswered heartbeats, sac_error is 0; when the kernel
 * itself aborts a peer that broke the protocol, sac_error is an errno such as ECONNABORTED.
 */
function lostEvent(change: AssocChange): {
  type: 'communication-lost';
  reason: CommunicationLostReason;
  cause?: string;
} {
  if (change.info.length > 0 || change.error === constants.errno.ECONNRESET) {
    const cause = describeErrorCauses(change.info);
    return { type: 'communication-lost', reason: 'peer-abort', ...(cause === '' ? {} : { cause }) };
  }
  if (change.error === 0) return { type: 'communication-lost', reason: 'retransmissions-exceeded' };
  return { type: 'communication-lost', reason: 'protocol-violation', cause: `kernel error ${change.error}` };
}
