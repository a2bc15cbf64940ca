import type { Clock } from '../../src/clock.ts';
import type {
  AcceptAssociation,
  AssociationEvent,
  AssociationHandler,
  AssociationState,
  AssociationUp,
  CommunicationLostReason,
  ConnectOptions,
  InboundMessage,
  ListenOptions,
  N2Association,
  N2Listener,
  N2Transport,
  PeerAddressState,
  SendOptions,
  SendResult,
  StreamCounts,
  TransportAddress,
} from '../../src/network/transport/n2-transport.ts';

/**
 * An in-memory N2 transport for protocol tests: associations between transports of one `FakeN2Network`,
 * with the interface's semantics (stream limits, ordered delivery, back-pressure, graceful shutdown,
 * abort) and controls a test uses to cause what a network would: loss, restart, a full peer window.
 * Every message and event is delivered on a later turn of the event loop (`setImmediate`), never inside
 * the call that caused it; `settled()` waits until nothing is pending.
 */

export interface FakeN2Limits {
  /** Bytes an association queues while its peer does not take them (see `hold`). */
  maxQueuedBytes: number;
  maxMessageSize: number;
  defaultStreams: number;
}

const DEFAULT_LIMITS: FakeN2Limits = { maxQueuedBytes: 1 << 20, maxMessageSize: 1 << 18, defaultStreams: 16 };

export class FakeN2Network {
  readonly limits: FakeN2Limits;
  /**
   * With a clock, an association tells how long its peer has been silent (`silentForMs`), counting
   * messages only: the fake has no heartbeats. Without one it cannot tell, as the kernel's SCTP.
   */
  readonly clock: Clock | undefined;
  readonly #listeners = new Map<string, FakeListener>();
  #pending = 0;
  #idle: (() => void)[] = [];
  #nextId = 1;
  #nextPort = 49152;

  constructor(limits: Partial<FakeN2Limits> = {}, options: { clock?: Clock } = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.clock = options.clock;
  }

  transport(): FakeN2Transport {
    return new FakeN2Transport(this);
  }

  /** Resolves once every scheduled delivery has run (deliveries may schedule more; it waits for those). */
  settled(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** @internal */
  defer(task: () => void): void {
    this.#pending++;
    setImmediate(() => {
      try {
        task();
      } finally {
        this.#pending--;
        if (this.#pending === 0) for (const resolve of this.#idle.splice(0)) resolve();
      }
    });
  }

  /** @internal */
  allocateId(): number {
    return this.#nextId++;
  }

  /** @internal */
  bind(listener: FakeListener, addresses: readonly string[], port: number): TransportAddress[] {
    const actual = port === 0 ? this.#nextPort++ : port;
    const keys = addresses.map((address) => key({ address, port: actual }));
    const taken = keys.find((k) => this.#listeners.has(k));
    if (taken !== undefined) throw new Error(`fake N2: ${taken} is already bound`);
    for (const k of keys) this.#listeners.set(k, listener);
    return addresses.map((address) => ({ address, port: actual }));
  }

  /** @internal */
  unbind(local: readonly TransportAddress[]): void {
    for (const address of local) this.#listeners.delete(key(address));
  }

  /** @internal */
  find(remote: TransportAddress): FakeListener | undefined {
    return this.#listeners.get(key(remote));
  }

  /** @internal */
  ephemeralPort(): number {
    return this.#nextPort++;
  }
}

function key(address: TransportAddress): string {
  return `${address.address}|${address.port}`;
}

export class FakeN2Transport implements N2Transport {
  readonly kind = 'fake';
  readonly #network: FakeN2Network;
  readonly #associations = new Map<number, FakeN2Association>();
  readonly #listeners = new Set<FakeListener>();

  constructor(network: FakeN2Network) {
    this.#network = network;
  }

  /** The association with this id, for a test to drive (`simulateLoss`, `hold`, ...). */
  association(id: number): FakeN2Association | undefined {
    return this.#associations.get(id);
  }

  async listen(options: ListenOptions, accept: AcceptAssociation): Promise<N2Listener> {
    const listener = new FakeListener(this.#network, this, options, accept);
    this.#listeners.add(listener);
    return listener;
  }

  async connect(
    options: ConnectOptions,
    handler: (association: N2Association, up: AssociationUp) => AssociationHandler,
  ): Promise<N2Association> {
    const remote = options.remote.find((address) => this.#network.find(address) !== undefined);
    const listener = remote === undefined ? undefined : this.#network.find(remote);
    if (remote === undefined || listener === undefined || listener.closing) {
      throw new Error(`fake N2: no listener at ${options.remote.map(key).join(', ')}`);
    }
    const limits = this.#network.limits;
    const port = options.local?.port || this.#network.ephemeralPort();
    const local = (options.local?.addresses ?? ['127.0.0.1']).map((address) => ({ address, port }));
    const streams = {
      // RFC 9260 5.1.1: each direction gets the smaller of the sender's OS and the receiver's MIS.
      outbound: Math.min(
        options.outboundStreams ?? limits.defaultStreams,
        listener.options.inboundStreams ?? limits.defaultStreams,
      ),
      inbound: Math.min(
        options.inboundStreams ?? limits.defaultStreams,
        listener.options.outboundStreams ?? limits.defaultStreams,
      ),
    };
    const client = new FakeN2Association(this.#network, this, remote, streams);
    const server = new FakeN2Association(this.#network, listener.transport, local[0] ?? remote, {
      inbound: streams.outbound,
      outbound: streams.inbound,
    });
    client.peer = server;
    server.peer = client;
    await new Promise<void>((resolve) => this.#network.defer(resolve));
    client.handler = handler(client, { peerAddresses: [remote], localAddresses: local, streams });
    listener.adopt(server, {
      peerAddresses: local,
      localAddresses: listener.local,
      streams: server.streams,
    });
    return client;
  }

  async close(): Promise<void> {
    for (const association of this.#associations.values()) association.abort();
    for (const listener of this.#listeners) this.#network.unbind(listener.local);
    this.#listeners.clear();
    await this.#network.settled();
  }

  /** @internal */
  register(association: FakeN2Association): void {
    this.#associations.set(association.id, association);
  }

  /** @internal */
  forget(association: FakeN2Association): void {
    this.#associations.delete(association.id);
  }

  /** @internal */
  dropListener(listener: FakeListener): void {
    this.#listeners.delete(listener);
  }
}

class FakeListener implements N2Listener {
  readonly local: readonly TransportAddress[];
  readonly associations = new Set<FakeN2Association>();
  closing = false;

  constructor(
    private readonly network: FakeN2Network,
    readonly transport: FakeN2Transport,
    readonly options: ListenOptions,
    private readonly accept: AcceptAssociation,
  ) {
    this.local = network.bind(this, options.addresses, options.port);
  }

  adopt(association: FakeN2Association, up: AssociationUp): void {
    this.associations.add(association);
    association.onEnd = () => this.associations.delete(association);
    association.handler = this.accept(association, up);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.network.unbind(this.local);
    this.transport.dropListener(this);
    const ended = [...this.associations].map(
      (association) => new Promise<void>((resolve) => association.whenEnded(resolve)),
    );
    for (const association of this.associations) association.shutdown();
    await Promise.all(ended);
    await this.network.settled();
  }
}

/** One end of a fake association. */
export class FakeN2Association implements N2Association {
  readonly id: number;
  readonly streams: StreamCounts;
  remote: TransportAddress;
  state: AssociationState = 'established';
  /** @internal the other end */
  peer: FakeN2Association | undefined;
  /** @internal */
  handler: AssociationHandler | undefined;
  /** @internal */
  onEnd: (() => void) | undefined;
  #queue: InboundMessage[] = [];
  #queuedBytes = 0;
  #held = false;
  #refused = false;
  #ended: (() => void)[] = [];
  #lastReceived: number | undefined;

  constructor(
    private readonly network: FakeN2Network,
    private readonly transport: FakeN2Transport,
    remote: TransportAddress,
    streams: StreamCounts,
  ) {
    this.id = network.allocateId();
    this.remote = remote;
    this.streams = streams;
    this.#lastReceived = network.clock?.now();
    transport.register(this);
  }

  silentForMs(): number | undefined {
    const { clock } = this.network;
    return clock === undefined || this.#lastReceived === undefined
      ? undefined
      : clock.now() - this.#lastReceived;
  }

  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  send(streamId: number, ppid: number, payload: Uint8Array, options?: SendOptions): SendResult {
    if (this.state !== 'established') return { ok: false, error: 'closed' };
    if (!Number.isInteger(streamId) || streamId < 0 || streamId >= this.streams.outbound) {
      return { ok: false, error: 'invalid-stream' };
    }
    if (payload.length === 0) return { ok: false, error: 'empty' };
    if (payload.length > this.network.limits.maxMessageSize) return { ok: false, error: 'too-large' };
    if (this.#queuedBytes + payload.length > this.network.limits.maxQueuedBytes) {
      this.#refused = true;
      return { ok: false, error: 'queue-full' };
    }
    this.#queue.push({ streamId, ppid, payload, unordered: options?.unordered ?? false });
    this.#queuedBytes += payload.length;
    if (!this.#held) this.#flushSoon();
    return { ok: true };
  }

  shutdown(): void {
    if (this.state !== 'established') return;
    this.state = 'shutting-down';
    const peer = this.peer;
    if (peer !== undefined && peer.state === 'established') peer.state = 'shutting-down';
    // Queued data goes first, both ways (RFC 9260 9.2), then both ends complete.
    for (const end of peer === undefined ? [this] : [this, peer]) {
      end.#held = false;
      end.#flushSoon();
    }
    this.network.defer(() => {
      this.#end({ type: 'shutdown-complete' });
      if (peer !== undefined) peer.#end({ type: 'shutdown-complete' });
    });
  }

  abort(cause?: string): void {
    if (this.state === 'closed') return;
    const peer = this.peer;
    this.#end({
      type: 'communication-lost',
      reason: 'local-abort',
      ...(cause === undefined ? {} : { cause }),
    });
    if (peer !== undefined)
      peer.#end({
        type: 'communication-lost',
        reason: 'peer-abort',
        ...(cause === undefined ? {} : { cause }),
      });
  }

  /** Stops delivering this end's messages, as a peer with a zero window would: `send` queues, then refuses. */
  hold(): void {
    this.#held = true;
  }

  /** Delivers what `hold` kept back, and `drain` if a send was refused meanwhile. */
  release(): void {
    this.#held = false;
    this.#flushSoon();
  }

  /** Both ends lose each other (RFC 9260 8.1 Association.Max.Retrans exceeded); queued messages are lost. */
  simulateLoss(reason: CommunicationLostReason = 'retransmissions-exceeded'): void {
    const peer = this.peer;
    this.#end({ type: 'communication-lost', reason });
    if (peer !== undefined) peer.#end({ type: 'communication-lost', reason });
  }

  /** The peer restarted: this end sees `restart`, messages queued in either direction are lost. */
  simulatePeerRestart(): void {
    if (this.state !== 'established') return;
    this.#dropQueue();
    if (this.peer !== undefined) this.peer.#dropQueue();
    const event: AssociationEvent = {
      type: 'restart',
      peerAddresses: [this.remote],
      streams: this.streams,
    };
    this.network.defer(() => this.handler?.event(event));
  }

  simulatePeerAddressChange(address: TransportAddress, state: PeerAddressState): void {
    if (state === 'primary') this.remote = address;
    this.network.defer(() => this.handler?.event({ type: 'peer-address-change', address, state }));
  }

  /** @internal */
  whenEnded(callback: () => void): void {
    if (this.state === 'closed') callback();
    else this.#ended.push(callback);
  }

  #dropQueue(): void {
    this.#queue = [];
    this.#queuedBytes = 0;
  }

  #flushSoon(): void {
    this.network.defer(() => this.#flush());
  }

  #flush(): void {
    const peer = this.peer;
    if (this.#held || peer === undefined || peer.state === 'closed') return;
    const queue = this.#queue;
    this.#dropQueue();
    if (queue.length > 0) peer.#lastReceived = this.network.clock?.now();
    for (const message of queue) peer.handler?.message(message);
    if (this.#refused && this.state === 'established') {
      this.#refused = false;
      this.handler?.event({ type: 'drain' });
    }
  }

  #end(event: AssociationEvent): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.#dropQueue();
    this.transport.forget(this);
    this.onEnd?.();
    this.network.defer(() => {
      this.handler?.event(event);
      for (const callback of this.#ended.splice(0)) callback();
    });
  }
}
