/**
 * The N2 transport: what the AMF needs of SCTP (TS 38.412: NGAP over SCTP, port 38412, PPID 60), and
 * nothing that depends on which SCTP carries it. Three implementations (`kernel`, `raw`, `udp`) and a
 * fake for protocol tests provide it; the AMF never knows which one it has.
 *
 * Callbacks, not event emitters: each association has exactly one handler, given by the code that
 * accepts or opens it, so every event has one typed receiver and none can be missed by subscribing late.
 *
 * Threading: every callback runs on the event loop, never re-entrantly from inside a call the
 * application makes (an implementation defers events caused by `send`, `shutdown` or `abort`).
 */

/** An IP address (IPv4 dotted quad or IPv6 text, no zone) and an SCTP port. */
export interface TransportAddress {
  address: string;
  port: number;
}

/** NGAP's payload protocol identifier (TS 38.412 section 7). */
export const NGAP_PPID = 60;
/** NGAP's well-known SCTP port (TS 38.412 section 7). */
export const NGAP_PORT = 38412;

/**
 * How long `N2Listener.close()` waits for its associations' graceful shutdown before it aborts those
 * still open. A radio that answers completes the shutdown in one round trip; one that vanished never
 * does, and waiting on the SCTP timers (T2-shutdown backs off up to RTO.Max, 60 s) would outlast the
 * service manager's stop timeout (deploy/pmn-core.service, TimeoutStopSec).
 */
export const LISTENER_SHUTDOWN_TIMEOUT_MS = 3000;

/** The stream counts both ends agreed on (RFC 9260 5.1.1: each side's MIS caps the other's OS). */
export interface StreamCounts {
  /** Streams the peer may send on: 0 .. inbound - 1. */
  inbound: number;
  /** Streams this side may send on: 0 .. outbound - 1. */
  outbound: number;
}

/** One user message as delivered: a whole message, reassembled, in order on its stream unless unordered. */
export interface InboundMessage {
  streamId: number;
  /** Payload protocol identifier, host byte order (60 for NGAP). */
  ppid: number;
  payload: Uint8Array;
  /** Sent with the U bit: delivered as soon as complete, not in stream sequence. */
  unordered: boolean;
}

/** Why an association ended without a graceful shutdown. */
export type CommunicationLostReason =
  /** The peer sent ABORT. */
  | 'peer-abort'
  /** This side called `abort()` (or `close()` gave up waiting on a graceful shutdown). */
  | 'local-abort'
  /** Association.Max.Retrans exceeded: no acknowledgement or heartbeat answer on any path (RFC 9260 8.1). */
  | 'retransmissions-exceeded'
  /** The peer broke the protocol (malformed chunk, stream limit, resource limit): this side aborted. */
  | 'protocol-violation';

/** A peer transport address's reachability changed (RFC 9260 8.2), or the primary path moved. */
export type PeerAddressState = 'available' | 'unreachable' | 'primary';

/** Events of an established association, after the `up` given to `accept`/`connect`. */
export type AssociationEvent =
  /**
   * The peer restarted (RFC 9260 5.2.4): same addresses and ports, new tags and TSNs. The association
   * object stays the same; messages queued or in flight before the restart may be lost, and stream
   * sequence numbers start again. Protocols reset their per-association state (NGAP: as after NG Setup).
   */
  | { type: 'restart'; peerAddresses: readonly TransportAddress[]; streams: StreamCounts }
  | { type: 'peer-address-change'; address: TransportAddress; state: PeerAddressState }
  /**
   * A `send` was refused with `queue-full` and the queue has since drained below half its limit:
   * sending may resume.
   */
  | { type: 'drain' }
  /** Terminal: the association ended abruptly. `cause` is human-readable (an ABORT's error cause, ...). */
  | { type: 'communication-lost'; reason: CommunicationLostReason; cause?: string }
  /** Terminal: SHUTDOWN / SHUTDOWN-ACK / SHUTDOWN-COMPLETE finished, whichever side began it. */
  | { type: 'shutdown-complete' };

/** Facts of an association when it comes up (SCTP_COMM_UP). */
export interface AssociationUp {
  /** The peer's transport addresses (one per address it listed), the primary path first. */
  peerAddresses: readonly TransportAddress[];
  /** The local addresses and port this association uses. */
  localAddresses: readonly TransportAddress[];
  streams: StreamCounts;
}

/** The receiver of one association's messages and events. Exactly one terminal event ends it. */
export interface AssociationHandler {
  message(message: InboundMessage): void;
  event(event: AssociationEvent): void;
}

/**
 * Why a `send` was refused. Nothing is queued when it is refused.
 * - `queue-full`: back-pressure. The association queues messages the peer's receive window (rwnd)
 *   and the congestion window (cwnd) do not yet admit, up to a configured number of bytes
 *   (`maxQueuedBytes`, documented per implementation); past that, `send` refuses and the caller
 *   drops, retries after the `drain` event, or aborts the association. It never blocks nor grows
 *   without bound.
 * - `invalid-stream`: `streamId` >= the negotiated outbound stream count.
 * - `too-large`: the payload exceeds the implementation's maximum message size.
 * - `empty`: a message has at least one byte (RFC 9260 6.5: DATA without user data is an error).
 * - `closed`: shutdown has begun (either side) or the association has ended.
 */
type SendError = 'queue-full' | 'invalid-stream' | 'too-large' | 'empty' | 'closed';

export type SendResult = { ok: true } | { ok: false; error: SendError };

export interface SendOptions {
  /** Deliver without stream sequencing (the U bit). NGAP sends everything ordered. */
  unordered?: boolean;
}

export type AssociationState = 'established' | 'shutting-down' | 'closed';

/** One association, from `up` until its terminal event. */
export interface N2Association {
  /** Unique among the associations of one transport instance, never reused while it runs. */
  readonly id: number;
  readonly state: AssociationState;
  /** The current primary peer address (changes with `peer-address-change` `primary`). */
  readonly remote: TransportAddress;
  readonly streams: StreamCounts;
  /**
   * Queues one user message. The transport takes the payload as it is: the caller must not change it
   * afterwards. Refusals are returned, never thrown (see `SendError` for back-pressure).
   */
  send(streamId: number, ppid: number, payload: Uint8Array, options?: SendOptions): SendResult;
  /**
   * Graceful close (RFC 9260 9.2): sends what is queued, then SHUTDOWN; ends with `shutdown-complete`
   * (or `communication-lost` if the peer stops answering). Idempotent.
   */
  shutdown(): void;
  /** Sends ABORT at once, with `cause` as an upper-layer abort reason; ends with `communication-lost` `local-abort`. */
  abort(cause?: string): void;
  /**
   * Milliseconds since the last SCTP packet from the peer arrived, any chunk (heartbeats and their
   * acknowledgements included, so a live peer is never silent much longer than a heartbeat interval);
   * undefined when the transport cannot tell (the kernel's SCTP keeps that to itself).
   */
  silentForMs(): number | undefined;
}

/** Called when a peer's association comes up on a listener; returns the handler of its life. */
export type AcceptAssociation = (association: N2Association, up: AssociationUp) => AssociationHandler;

export interface ListenOptions {
  /** The local IP addresses to bind (multi-homed when more than one); all share `port`. */
  addresses: readonly string[];
  /** The SCTP port; 0 asks the transport for a free one (see `N2Listener.local`). */
  port: number;
  /** Streams offered to peers (OS) and accepted from them (MIS); implementation defaults when absent. */
  outboundStreams?: number;
  inboundStreams?: number;
}

export interface N2Listener {
  /** The bound addresses and the actual port. */
  readonly local: readonly TransportAddress[];
  /**
   * Stops accepting, shuts every association of this listener down gracefully, and resolves when all
   * have ended: those that have not finished their shutdown after `LISTENER_SHUTDOWN_TIMEOUT_MS` are
   * aborted (ABORT sent).
   */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** The peer's addresses (tried in order for INIT) and port. */
  remote: readonly TransportAddress[];
  /** Local addresses to use; the transport chooses when absent. Port 0 or absent: an ephemeral port. */
  local?: { addresses: readonly string[]; port?: number };
  outboundStreams?: number;
  inboundStreams?: number;
}

/** An N2 transport: `kernel`, `raw`, `udp`, or the in-memory `fake`. */
export interface N2Transport {
  readonly kind: 'kernel' | 'raw' | 'udp' | 'fake';
  /** Binds and starts accepting. Rejects when the addresses cannot be bound. */
  listen(options: ListenOptions, accept: AcceptAssociation): Promise<N2Listener>;
  /**
   * Opens an association to a peer (a radio simulator's side; the AMF only listens). Resolves once it is
   * up, with the handler the caller builds from it; rejects if the peer refuses or does not answer
   * (Max.Init.Retransmits).
   */
  connect(
    options: ConnectOptions,
    handler: (association: N2Association, up: AssociationUp) => AssociationHandler,
  ): Promise<N2Association>;
  /** Aborts every association and releases every socket. */
  close(): Promise<void>;
}
