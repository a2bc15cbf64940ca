import { systemClock, systemTimers, type Clock, type Timers } from '../../../clock.ts';
import {
  LISTENER_SHUTDOWN_TIMEOUT_MS,
  type AcceptAssociation,
  type AssociationEvent,
  type AssociationHandler,
  type AssociationUp,
  type ConnectOptions,
  type ListenOptions,
  type N2Association,
  type N2Listener,
  type N2Transport,
} from '../n2-transport.ts';
import { type AssociationHost, listedAddresses, randomTag, SctpAssociation } from './association.ts';
import {
  Cause,
  ChunkType,
  causeCodes,
  concat,
  decodeInit,
  encodeCause,
  encodeChunk,
  encodeInit,
  encodeIpAddressParam,
  encodeParameter,
  ParamType,
  type RawChunk,
  T_BIT,
} from './chunks.ts';
import { crc32c, type Crc32c } from './crc32c.ts';
import { decodePacket, encodePacket, type Packet } from './packet.ts';
import type { LinkAddress, PacketLink } from './packet-link.ts';
import { DEFAULT_LIMITS, DEFAULT_PARAMETERS, type SctpLimits, type SctpParameters } from './sctp-config.ts';
import { ReceiveTask } from './receive-task.ts';
import { CookieSigner } from './state-cookie.ts';

interface SctpEndpointOptions {
  kind: 'raw' | 'udp';
  link: PacketLink;
  clock?: Clock;
  timers?: Timers;
  params?: Partial<SctpParameters>;
  limits?: Partial<SctpLimits>;
  /** The State Cookie's HMAC key; random per endpoint when absent. */
  cookieSecret?: Uint8Array;
  /** The CRC32c implementation: the native addon's where it is loaded (faster); crc32c.ts's by default. */
  crc32c?: Crc32c;
  /**
   * The link port of a peer this endpoint connects to first: the peer's UDP encapsulation port
   * (RFC 6951: 9899 by default) for `udp`; 0 for `raw`. Answers go to the port a packet came from.
   */
  peerLinkPort?: number;
}

interface Listener {
  port: number;
  addresses: readonly string[];
  outboundStreams: number;
  inboundStreams: number;
  accept: AcceptAssociation;
  associations: Set<SctpAssociation>;
}

interface PendingConnect {
  makeHandler: (association: N2Association, up: AssociationUp) => AssociationHandler;
  resolve: (association: N2Association) => void;
  reject: (error: Error) => void;
}

/** Counters of what the endpoint dropped or refused, for tests and diagnostics. */
interface EndpointCounters {
  badPackets: number;
  notOurs: number;
  outOfTheBlue: number;
  cookiesRejected: number;
}

const WILDCARDS = new Set(['0.0.0.0', '::']);

/**
 * One SCTP endpoint on one packet link: the listeners (ports), the associations of all of them, and the
 * handling of packets that belong to none (INIT, COOKIE ECHO, out of the blue: RFC 9260 5.1, 8.4).
 * It implements the N2 transport for the `udp` and `raw` flavours.
 */
export class SctpEndpoint implements N2Transport {
  readonly kind: 'raw' | 'udp';
  readonly counters: EndpointCounters = { badPackets: 0, notOurs: 0, outOfTheBlue: 0, cookiesRejected: 0 };
  readonly #link: PacketLink;
  readonly #clock: Clock;
  readonly #host: AssociationHost;
  readonly #signer: CookieSigner;
  readonly #params: SctpParameters;
  readonly #limits: SctpLimits;
  readonly #listeners = new Map<number, Listener>();
  readonly #clientPorts = new Map<number, SctpAssociation>();
  /**
   * Ports of client associations that ended -> until when (clock ms) they stay ours: a peer whose SHUTDOWN
   * COMPLETE was lost retransmits its SHUTDOWN ACK there, and RFC 9260 8.4 (5) answers it.
   */
  readonly #closedClientPorts = new Map<number, number>();
  /** `address|peer port|local port` -> association, one entry per peer address. */
  readonly #byPeer = new Map<string, SctpAssociation>();
  readonly #associations = new Set<SctpAssociation>();
  readonly #pending = new Map<SctpAssociation, PendingConnect>();
  readonly #closeWaiters = new Map<SctpAssociation, (() => void)[]>();
  #closed = false;
  readonly #peerLinkPort: number;
  readonly #receiveTask = new ReceiveTask();

  constructor(options: SctpEndpointOptions) {
    this.kind = options.kind;
    this.#peerLinkPort = options.peerLinkPort ?? 0;
    this.#link = options.link;
    this.#clock = options.clock ?? systemClock;
    this.#params = { ...DEFAULT_PARAMETERS, ...options.params };
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#signer = new CookieSigner(options.cookieSecret);
    const timers = options.timers ?? systemTimers;
    const link = this.#link;
    this.#host = {
      now: () => this.#clock.now(),
      timers,
      params: this.#params,
      limits: this.#limits,
      localAddresses: link.localAddresses.filter((a) => !WILDCARDS.has(a)),
      crc32c: options.crc32c ?? crc32c,
      send: (packet, remote) => link.send(packet, remote),
      receiving: () => this.#receiveTask.active,
      maxPacketSize: (remote) => link.maxPacketSize(remote),
      up: (association, up) => this.#up(association, up),
      addressAdded: (association, address) =>
        this.#byPeer.set(key(address, association.peerPort, association.localPort), association),
      closed: (association, event) => this.#forget(association, event),
    };
    link.onPacket((packet, remote, local) => this.#onPacket(packet, remote, local));
  }

  get associationCount(): number {
    return this.#associations.size;
  }

  // ----- N2Transport -----

  async listen(options: ListenOptions, accept: AcceptAssociation): Promise<N2Listener> {
    if (this.#closed) throw new Error('SCTP endpoint is closed');
    const port = options.port === 0 ? this.#freePort() : options.port;
    if (this.#listeners.has(port) || this.#clientPorts.has(port))
      throw new Error(`SCTP port ${port} is in use`);
    const listener: Listener = {
      port,
      addresses: options.addresses,
      outboundStreams: this.#streamCount(options.outboundStreams),
      inboundStreams: this.#streamCount(options.inboundStreams),
      accept,
      associations: new Set(),
    };
    this.#listeners.set(port, listener);
    return {
      local: options.addresses.map((address) => ({ address, port })),
      close: () => this.#closeListener(listener),
    };
  }

  connect(
    options: ConnectOptions,
    makeHandler: (association: N2Association, up: AssociationUp) => AssociationHandler,
  ): Promise<N2Association> {
    const remote = options.remote[0];
    if (this.#closed) return Promise.reject(new Error('SCTP endpoint is closed'));
    if (remote === undefined) return Promise.reject(new Error('connect needs a remote address'));
    const localPort = options.local?.port || this.#freePort();
    if (this.#portTaken(localPort)) {
      return Promise.reject(new Error(`SCTP port ${localPort} is in use`));
    }
    return new Promise((resolve, reject) => {
      const association = SctpAssociation.initiate(this.#host, {
        remote: { address: remote.address, port: this.#peerLinkPort },
        localPort,
        peerPort: remote.port,
        outboundStreams: this.#streamCount(options.outboundStreams),
        inboundStreams: this.#streamCount(options.inboundStreams),
      });
      this.#associations.add(association);
      this.#clientPorts.set(localPort, association);
      this.#byPeer.set(key(remote.address, remote.port, localPort), association);
      this.#pending.set(association, { makeHandler, resolve, reject });
    });
  }

  /** Aborts every association (the peers learn it from the ABORT) and closes the link. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const association of [...this.#associations]) association.abort('endpoint closing');
    this.#listeners.clear();
    await this.#link.close();
  }

  // ----- internals -----

  #streamCount(requested: number | undefined): number {
    const n = requested ?? this.#limits.defaultStreams;
    return Math.max(1, Math.min(this.#limits.maxStreams, 65535, Math.floor(n)));
  }

  #freePort(): number {
    for (;;) {
      const port = 49152 + Math.floor(Math.random() * 16384);
      if (!this.#portTaken(port)) return port;
    }
  }

  #portTaken(port: number): boolean {
    return this.#listeners.has(port) || this.#clientPorts.has(port) || this.#closedClientPortOwned(port);
  }

  /** Whether `port` was a client association's that ended less than RTO.max ago (then it is forgotten). */
  #closedClientPortOwned(port: number): boolean {
    const until = this.#closedClientPorts.get(port);
    if (until === undefined) return false;
    if (this.#clock.now() < until) return true;
    this.#closedClientPorts.delete(port);
    return false;
  }

  async #closeListener(listener: Listener): Promise<void> {
    if (this.#listeners.get(listener.port) === listener) this.#listeners.delete(listener.port);
    const ended = [...listener.associations].map((a) => this.#whenClosed(a));
    for (const a of listener.associations) a.shutdown();
    // A peer that vanished never completes the shutdown: it is aborted after a short bound rather than
    // when T2-shutdown gives up (Association.Max.Retrans back-offs, up to a minute).
    const cancel = this.#host.timers.after(LISTENER_SHUTDOWN_TIMEOUT_MS, () => {
      for (const a of listener.associations) a.abort('listener closing');
    });
    await Promise.all(ended);
    cancel();
  }

  #whenClosed(association: SctpAssociation): Promise<void> {
    if (association.state === 'closed') return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.#closeWaiters.get(association) ?? [];
      list.push(resolve);
      this.#closeWaiters.set(association, list);
    });
  }

  #up(association: SctpAssociation, up: AssociationUp): AssociationHandler | undefined {
    const pending = this.#pending.get(association);
    if (pending !== undefined) {
      this.#pending.delete(association);
      const handler = pending.makeHandler(association, up);
      pending.resolve(association);
      return handler;
    }
    const listener = this.#listeners.get(association.localPort);
    if (listener === undefined) {
      association.abort('listener closed');
      return undefined;
    }
    listener.associations.add(association);
    return listener.accept(association, up);
  }

  #forget(association: SctpAssociation, event: AssociationEvent): void {
    this.#associations.delete(association);
    for (const path of association.paths) {
      const k = key(path.remote.address, association.peerPort, association.localPort);
      if (this.#byPeer.get(k) === association) this.#byPeer.delete(k);
    }
    if (this.#clientPorts.get(association.localPort) === association) {
      this.#clientPorts.delete(association.localPort);
      this.#closedClientPorts.set(association.localPort, this.#clock.now() + this.#params.rtoMax);
    }
    this.#listeners.get(association.localPort)?.associations.delete(association);
    const pending = this.#pending.get(association);
    if (pending !== undefined) {
      this.#pending.delete(association);
      const why = event.type === 'communication-lost' ? (event.cause ?? event.reason) : event.type;
      pending.reject(new Error(`SCTP association to ${association.remote.address} failed: ${why}`));
    }
    for (const resolve of this.#closeWaiters.get(association) ?? []) resolve();
    this.#closeWaiters.delete(association);
  }

  #register(association: SctpAssociation): void {
    this.#associations.add(association);
    for (const path of association.paths) {
      this.#byPeer.set(key(path.remote.address, association.peerPort, association.localPort), association);
    }
  }

  /** Nothing a peer sends may throw out of here (the link's callback), whatever its content. */
  #onPacket(bytes: Uint8Array, remote: LinkAddress, local: string): void {
    if (this.#closed) return;
    this.#receiveTask.enter();
    const decoded = decodePacket(bytes, this.#host.crc32c);
    if (!decoded.ok) {
      this.counters.badPackets++;
      return;
    }
    const packet = decoded.value;
    const first = packet.chunks[0];
    const port = packet.destinationPort;
    const listener = this.#listeners.get(port);
    const association = this.#byPeer.get(key(remote.address, packet.sourcePort, port));
    // RFC 9260 8.4 applies only to ports this endpoint owns; a raw link also sees other stacks' packets.
    if (
      first === undefined ||
      (listener === undefined &&
        association === undefined &&
        !this.#clientPorts.has(port) &&
        !this.#closedClientPortOwned(port))
    ) {
      this.counters.notOurs++;
      return;
    }
    if (listener !== undefined && association === undefined && !acceptsAddress(listener, local)) {
      this.counters.notOurs++;
      return;
    }
    if (first.type === ChunkType.INIT) {
      // RFC 9260 8.5.1 A, 6.10: INIT has verification tag 0 and travels alone.
      if (packet.verificationTag !== 0 || packet.chunks.length !== 1) return;
      this.#onInit(packet, first, remote, listener, association);
      return;
    }
    if (first.type === ChunkType.COOKIE_ECHO) {
      this.#onCookieEcho(packet, first, remote, listener, association);
      return;
    }
    if (association !== undefined) {
      association.receive(packet, remote);
      return;
    }
    this.#outOfTheBlue(packet, remote);
  }

  /** RFC 9260 5.1 B: answer with INIT ACK and a State Cookie, keeping nothing. */
  #onInit(
    packet: Packet,
    chunk: RawChunk,
    remote: LinkAddress,
    listener: Listener | undefined,
    association: SctpAssociation | undefined,
  ): void {
    const init = decodeInit(chunk);
    if (!init.ok) {
      // RFC 9260 3.3.2: a zero Initiate Tag is discarded; other invalid fields are answered with ABORT.
      const tag =
        chunk.value.length >= 4 ? new DataView(chunk.value.buffer, chunk.value.byteOffset).getUint32(0) : 0;
      if (tag !== 0) this.#sendAbort(packet, remote, tag, encodeCause(Cause.INVALID_MANDATORY_PARAMETER));
      return;
    }
    const peer = init.value;
    if (association === undefined && listener === undefined) {
      this.#sendAbort(packet, remote, peer.initiateTag);
      return;
    }
    const peerAddresses = [remote.address, ...listedAddresses(peer, this.#host.localAddresses)]
      .filter((a, i, all) => all.indexOf(a) === i)
      .slice(0, this.#limits.maxPeerAddresses);
    let localTag: number;
    let initialTsn: number;
    let tieLocal = 0;
    let tiePeer = 0;
    if (association !== undefined) {
      const collision = association.initCollision();
      if (collision === 'discard') return;
      // RFC 9260 5.2.2: a restart may not bring new addresses.
      if (!association.knowsAll(peerAddresses)) {
        const listed = peerAddresses.flatMap((a) => encodeIpAddressParam(a) ?? []);
        this.#sendAbort(
          packet,
          remote,
          peer.initiateTag,
          encodeCause(Cause.RESTART_WITH_NEW_ADDRESSES, concat(listed)),
        );
        return;
      }
      ({ localTag, initialTsn, tieLocal, tiePeer } = collision);
    } else {
      if (this.#associations.size >= this.#limits.maxAssociations) {
        this.#sendAbort(packet, remote, peer.initiateTag, encodeCause(Cause.OUT_OF_RESOURCE));
        return;
      }
      localTag = randomTag();
      initialTsn = randomTag();
    }
    const offeredOutbound = listener?.outboundStreams ?? this.#limits.defaultStreams;
    const offeredInbound = listener?.inboundStreams ?? this.#limits.defaultStreams;
    const cookie = this.#signer.sign({
      createdAt: this.#clock.now(),
      lifespan: this.#params.validCookieLife,
      localPort: packet.destinationPort,
      peerPort: packet.sourcePort,
      localTag,
      peerTag: peer.initiateTag,
      localInitialTsn: initialTsn,
      peerInitialTsn: peer.initialTsn,
      peerARwnd: peer.aRwnd,
      outboundStreams: Math.min(offeredOutbound, peer.inboundStreams),
      inboundStreams: Math.min(offeredInbound, peer.outboundStreams),
      localTieTag: tieLocal,
      peerTieTag: tiePeer,
      peerAddresses,
      linkPort: remote.port,
    });
    const params: Uint8Array[] = [encodeParameter(ParamType.STATE_COOKIE, cookie)];
    const addresses = (listener?.addresses ?? []).filter((a) => !WILDCARDS.has(a));
    if (addresses.length > 1) params.push(...addresses.flatMap((a) => encodeIpAddressParam(a) ?? []));
    params.push(...unrecognizedParameters(peer.params));
    const initAck = encodeInit(
      ChunkType.INIT_ACK,
      {
        initiateTag: localTag,
        aRwnd: this.#limits.receiveWindow,
        outboundStreams: offeredOutbound,
        inboundStreams: offeredInbound,
        initialTsn,
      },
      params,
    );
    this.#link.send(
      encodePacket(packet.destinationPort, packet.sourcePort, peer.initiateTag, [initAck], this.#host.crc32c),
      remote,
    );
  }

  /** RFC 9260 5.1.5 and 5.2.4: a COOKIE ECHO creates the association, or is matched against the existing one. */
  #onCookieEcho(
    packet: Packet,
    chunk: RawChunk,
    remote: LinkAddress,
    listener: Listener | undefined,
    association: SctpAssociation | undefined,
  ): void {
    const verified = this.#signer.verify(chunk.value, this.#clock.now());
    if (!verified.ok) {
      this.counters.cookiesRejected++;
      if ('staleness' in verified) {
        const staleness = new Uint8Array(4);
        new DataView(staleness.buffer).setUint32(0, verified.staleness);
        const error = encodeChunk(ChunkType.ERROR, 0, encodeCause(Cause.STALE_COOKIE, staleness));
        this.#link.send(
          encodePacket(
            packet.destinationPort,
            packet.sourcePort,
            verified.peerTag,
            [error],
            this.#host.crc32c,
          ),
          remote,
        );
      }
      return;
    }
    const c = verified.value;
    if (c.localPort !== packet.destinationPort || c.peerPort !== packet.sourcePort) return;
    if (association !== undefined) {
      association.cookieEcho(c, packet, remote, 0);
      return;
    }
    if (packet.verificationTag !== c.localTag || listener === undefined) return;
    if (this.#associations.size >= this.#limits.maxAssociations) {
      this.#sendAbort(packet, remote, c.peerTag, encodeCause(Cause.OUT_OF_RESOURCE));
      return;
    }
    const created = SctpAssociation.fromCookie(this.#host, c, remote);
    if (created.state === 'closed') return;
    this.#register(created);
    created.answerCookie(packet, remote, 0);
  }

  /** RFC 9260 8.4: a packet of no association, to a port of ours. */
  #outOfTheBlue(packet: Packet, remote: LinkAddress): void {
    this.counters.outOfTheBlue++;
    const types = packet.chunks.map((c) => c.type);
    if (types.includes(ChunkType.ABORT) || types.includes(ChunkType.SHUTDOWN_COMPLETE)) return;
    if (types.includes(ChunkType.COOKIE_ACK)) return;
    if (packet.chunks.some((c) => c.type === ChunkType.ERROR && causeCodes(c).includes(Cause.STALE_COOKIE)))
      return;
    if (types[0] === ChunkType.SHUTDOWN_ACK) {
      const complete = encodeChunk(ChunkType.SHUTDOWN_COMPLETE, T_BIT);
      this.#link.send(
        encodePacket(
          packet.destinationPort,
          packet.sourcePort,
          packet.verificationTag,
          [complete],
          this.#host.crc32c,
        ),
        remote,
      );
      return;
    }
    const abort = encodeChunk(ChunkType.ABORT, T_BIT);
    this.#link.send(
      encodePacket(
        packet.destinationPort,
        packet.sourcePort,
        packet.verificationTag,
        [abort],
        this.#host.crc32c,
      ),
      remote,
    );
  }

  #sendAbort(packet: Packet, remote: LinkAddress, tag: number, cause?: Uint8Array): void {
    const abort = encodeChunk(ChunkType.ABORT, 0, cause);
    this.#link.send(
      encodePacket(packet.destinationPort, packet.sourcePort, tag, [abort], this.#host.crc32c),
      remote,
    );
  }
}

function key(address: string, peerPort: number, localPort: number): string {
  return `${address}|${peerPort}|${localPort}`;
}

/** Whether a listener takes a packet sent to `local`; a link bound to a wildcard cannot tell, so it does. */
function acceptsAddress(listener: Listener, local: string): boolean {
  return (
    listener.addresses.length === 0 ||
    WILDCARDS.has(local) ||
    local === '' ||
    listener.addresses.some((a) => a === local || WILDCARDS.has(a))
  );
}

/** Parameters this stack does not know, per the two high bits of their type (RFC 9260 3.2.1). */
function unrecognizedParameters(params: readonly { type: number; raw: Uint8Array }[]): Uint8Array[] {
  const known: number[] = [
    ParamType.IPV4_ADDRESS,
    ParamType.IPV6_ADDRESS,
    ParamType.COOKIE_PRESERVATIVE,
    ParamType.HOST_NAME_ADDRESS,
    ParamType.SUPPORTED_ADDRESS_TYPES,
  ];
  const report: Uint8Array[] = [];
  for (const p of params) {
    if (known.includes(p.type)) continue;
    const action = p.type >> 14;
    if (action === 1 || action === 3) report.push(encodeParameter(ParamType.UNRECOGNIZED_PARAMETER, p.raw));
    if (action < 2) break;
  }
  return report;
}
