import type {
  AssociationEvent,
  AssociationHandler,
  AssociationState,
  InboundMessage,
  N2Association,
  PeerAddressState,
  SendOptions,
  SendResult,
  StreamCounts,
  TransportAddress,
} from '../n2-transport.ts';
import type { PeerAddressChangeState, SctpSocket } from '../native/native-addon.ts';

/** What an association needs of the endpoint (socket) it lives on. */
export interface AssociationHost {
  readonly socket: SctpSocket;
  readonly maxMessageSize: number;
  /** The association ended: stop routing its socket events to it. */
  forget(association: KernelAssociation): void;
}

/** Send failures of the kernel that mean "the socket buffer is full; wait for writable". */
const BACK_PRESSURE = new Set(['EAGAIN', 'EWOULDBLOCK', 'ENOBUFS', 'ENOMEM']);

/**
 * One association of a kernel SCTP one-to-many socket, identified there by the kernel's association
 * id (`assocId`) and towards the application by a transport-wide `id`. Its queue is the kernel's
 * per-association send buffer (SO_SNDBUF, Linux's default net.sctp.sndbuf_policy 0).
 */
export class KernelAssociation implements N2Association {
  state: AssociationState = 'established';
  remote: TransportAddress;
  streams: StreamCounts;
  handler: AssociationHandler | undefined;
  #refused = false;
  readonly #ended: (() => void)[] = [];

  constructor(
    private readonly host: AssociationHost,
    readonly id: number,
    readonly assocId: number,
    remote: TransportAddress,
    streams: StreamCounts,
  ) {
    this.remote = remote;
    this.streams = streams;
  }

  send(streamId: number, ppid: number, payload: Uint8Array, options?: SendOptions): SendResult {
    if (this.state !== 'established') return { ok: false, error: 'closed' };
    if (!Number.isInteger(streamId) || streamId < 0 || streamId >= this.streams.outbound) {
      return { ok: false, error: 'invalid-stream' };
    }
    // RFC 9260 6.5: DATA without user data is an error, so SCTP carries no empty message.
    if (payload.length === 0) return { ok: false, error: 'empty' };
    if (payload.length > this.host.maxMessageSize) return { ok: false, error: 'too-large' };
    const code = this.host.socket.send(
      this.assocId,
      streamId,
      ppid >>> 0,
      payload,
      options?.unordered ?? false,
    );
    if (code === undefined) return { ok: true };
    if (BACK_PRESSURE.has(code)) {
      this.#refused = true;
      this.host.socket.wantWritable();
      return { ok: false, error: 'queue-full' };
    }
    if (code === 'EMSGSIZE') return { ok: false, error: 'too-large' };
    return { ok: false, error: 'closed' };
  }

  shutdown(): void {
    if (this.state !== 'established') return;
    this.state = 'shutting-down';
    const code = this.host.socket.shutdown(this.assocId);
    // The kernel no longer knows the association: no notification will end it, so end it here.
    if (code !== undefined)
      this.#endLater({ type: 'communication-lost', reason: 'local-abort', cause: `shutdown: ${code}` });
  }

  abort(cause?: string): void {
    if (this.state === 'closed') return;
    this.host.socket.abort(this.assocId, cause === undefined ? undefined : new TextEncoder().encode(cause));
    this.#endLater({
      type: 'communication-lost',
      reason: 'local-abort',
      ...(cause === undefined ? {} : { cause }),
    });
  }

  /** The kernel does not report the packets it receives (heartbeats included): it cannot tell. */
  silentForMs(): undefined {
    return undefined;
  }

  /** @internal A whole inbound message. */
  deliver(message: InboundMessage): void {
    if (this.state !== 'closed') this.handler?.message(message);
  }

  /** @internal The socket can take data again. */
  writable(): void {
    if (!this.#refused || this.state !== 'established') return;
    this.#refused = false;
    this.handler?.event({ type: 'drain' });
  }

  /** @internal SCTP_SHUTDOWN_EVENT: the peer began a graceful shutdown. */
  peerShutdown(): void {
    if (this.state === 'established') this.state = 'shutting-down';
  }

  /** @internal SCTP_RESTART (RFC 9260 5.2.4). */
  restarted(peerAddresses: TransportAddress[], streams: StreamCounts): void {
    if (this.state === 'closed') return;
    this.streams = streams;
    if (peerAddresses[0] !== undefined) this.remote = peerAddresses[0];
    this.handler?.event({ type: 'restart', peerAddresses, streams });
  }

  /** @internal SCTP_PEER_ADDR_CHANGE. Additions and removals (ASCONF) are not N2 events. */
  peerAddressChanged(address: TransportAddress, change: PeerAddressChangeState): void {
    const state = PEER_ADDRESS_STATES[change];
    if (state === undefined || this.state === 'closed') return;
    if (state === 'primary') this.remote = address;
    this.handler?.event({ type: 'peer-address-change', address, state });
  }

  /** @internal A terminal event reported by the kernel. */
  end(event: AssociationEvent & { type: 'communication-lost' | 'shutdown-complete' }): void {
    if (this.state === 'closed') return;
    this.#close();
    this.handler?.event(event);
    for (const callback of this.#ended.splice(0)) callback();
  }

  /** @internal */
  whenEnded(callback: () => void): void {
    if (this.state === 'closed') callback();
    else this.#ended.push(callback);
  }

  /** Ends it now, telling the handler on a later turn (never inside the application's own call). */
  #endLater(event: AssociationEvent): void {
    this.#close();
    setImmediate(() => {
      this.handler?.event(event);
      for (const callback of this.#ended.splice(0)) callback();
    });
  }

  #close(): void {
    this.state = 'closed';
    this.host.forget(this);
  }
}

const PEER_ADDRESS_STATES: Partial<Record<PeerAddressChangeState, PeerAddressState>> = {
  available: 'available',
  confirmed: 'available',
  unreachable: 'unreachable',
  'potentially-failed': 'unreachable',
  'made-prim': 'primary',
};
