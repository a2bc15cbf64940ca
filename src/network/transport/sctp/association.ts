import { randomBytes } from 'node:crypto';
import type { Timers } from '../../../clock.ts';
import type {
  AssociationEvent,
  AssociationHandler,
  AssociationState,
  AssociationUp,
  InboundMessage,
  N2Association,
  SendOptions,
  SendResult,
  StreamCounts,
  TransportAddress,
} from '../n2-transport.ts';
import {
  Cause,
  ChunkType,
  type InitChunk,
  ParamType,
  type RawChunk,
  type SackChunk,
  T_BIT,
  causeCodes,
  decodeCumulativeTsn,
  decodeData,
  decodeInit,
  decodeParameters,
  decodeSack,
  describeCauses,
  encodeCause,
  encodeChunk,
  encodeCumulativeTsn,
  encodeInit,
  encodeIpAddressParam,
  encodeParameter,
  encodeSack,
  encodeTextCause,
  invalidStreamCause,
  bytesToIp,
} from './chunks.ts';
import type { Crc32c } from './crc32c.ts';
import { encodePacket, type Packet, PacketBuilder } from './packet.ts';
import type { LinkAddress } from './packet-link.ts';
import { Path } from './path.ts';
import { ReceiveBuffer } from './receive-buffer.ts';
import type { SctpLimits, SctpParameters } from './sctp-config.ts';
import { SendQueue } from './send-queue.ts';
import { tsnAdd, tsnLte } from './serial-number.ts';
import type { CookieContents } from './state-cookie.ts';

/** RFC 9260 4: the association states. Each carries what only it needs. */
type State =
  | { name: 'cookie-wait'; init: Uint8Array; retransmits: number }
  | { name: 'cookie-echoed'; init: Uint8Array; cookieEcho: Uint8Array; retransmits: number }
  | { name: 'established' }
  | { name: 'shutdown-pending' }
  | { name: 'shutdown-sent'; retransmits: number }
  | { name: 'shutdown-received' }
  | { name: 'shutdown-ack-sent'; retransmits: number }
  | { name: 'closed' };

/** What an association needs from the endpoint that owns it. */
export interface AssociationHost {
  readonly now: () => number;
  readonly timers: Timers;
  readonly params: SctpParameters;
  readonly limits: SctpLimits;
  readonly localAddresses: readonly string[];
  /** The CRC32c the packets are sealed with. */
  readonly crc32c: Crc32c;
  send(packet: Uint8Array, remote: LinkAddress): void;
  /** Whether the endpoint is handling received packets (receive-task.ts). */
  receiving(): boolean;
  maxPacketSize(remote: LinkAddress): number;
  /** The association came up (or restarted, `restart` true); returns its handler when it has none yet. */
  up(association: SctpAssociation, up: AssociationUp): AssociationHandler | undefined;
  /** A peer address was added: the endpoint routes packets from it to this association. */
  addressAdded(association: SctpAssociation, address: string): void;
  closed(association: SctpAssociation, reason: AssociationEvent): void;
}

export function randomTag(): number {
  for (;;) {
    const tag = randomBytes(4).readUInt32BE(0);
    if (tag !== 0) return tag;
  }
}

interface InitiatorOptions {
  remote: LinkAddress;
  localPort: number;
  peerPort: number;
  outboundStreams: number;
  inboundStreams: number;
}

let nextAssociationId = 1;

/** The smallest fragment cut to fill a packet; with less room left, the packet goes first. */
const MIN_FRAGMENT = 256;

/**
 * One SCTP association (RFC 9260): the state machine, the TCB (tags, TSNs, paths, queues) and its
 * timers (T1-init/cookie, T3-rtx, T2-shutdown, delayed SACK, heartbeat), on the host's injected clock.
 */
export class SctpAssociation implements N2Association {
  readonly id = nextAssociationId++;
  readonly localPort: number;
  readonly peerPort: number;
  localTag: number;
  peerTag = 0;
  #state: State;
  #streams: StreamCounts = { inbound: 0, outbound: 0 };
  paths: Path[] = [];
  #primary = 0;
  #send: SendQueue;
  #receive: ReceiveBuffer | undefined;
  #peerRwnd = 0;
  #errorCount = 0;
  /** When the last packet of this association (its verification tag checked) arrived, host clock ms. */
  #lastReceived: number;
  #handler: AssociationHandler | undefined;
  readonly #host: AssociationHost;
  /** The locally offered stream counts (for INIT and for restarts). */
  readonly #offered: { outbound: number; inbound: number };
  #localInitialTsn: number;

  // Timers: each holds the cancel function of a running timer.
  #t1: (() => void) | undefined;
  #t3: (() => void) | undefined;
  #t2: (() => void) | undefined;
  #sackTimer: (() => void) | undefined;
  #heartbeatTimers: ((() => void) | undefined)[] = [];

  // Transmission state.
  #inPacket = false;
  #flushScheduled = false;
  #taskFlushScheduled = false;
  /** The packet #flush is filling. */
  #builder: PacketBuilder | undefined;
  readonly #scheduledFlush = (): void => {
    this.#flushScheduled = false;
    this.#flush();
  };
  readonly #taskFlush = (): void => {
    this.#taskFlushScheduled = false;
    this.#flush();
  };
  #sackDue = false;
  #sackNow = false;
  /** A SACK that must not wait for the end of the turn: gaps, duplicates, the I bit (RFC 9260 6.2, 6.7). */
  #sackAtOnce = false;
  #dataPacketsUnacked = 0;
  #control: Uint8Array[] = [];
  #fastRecoveryExit: number | undefined;
  #fastRetransmitNow = false;
  #refused = false;

  private constructor(host: AssociationHost, localPort: number, peerPort: number, state: State, tsn: number) {
    this.#host = host;
    this.localPort = localPort;
    this.peerPort = peerPort;
    this.localTag = 0;
    this.#state = state;
    this.#localInitialTsn = tsn;
    this.#send = new SendQueue(tsn, 0);
    this.#offered = { outbound: 0, inbound: 0 };
    this.#lastReceived = host.now();
  }

  /** The initiator's side: sends INIT and waits in COOKIE-WAIT (RFC 9260 5.1 A). */
  static initiate(host: AssociationHost, o: InitiatorOptions): SctpAssociation {
    const tsn = randomTag();
    const a = new SctpAssociation(host, o.localPort, o.peerPort, { name: 'closed' }, tsn);
    a.localTag = randomTag();
    a.#offered.outbound = o.outboundStreams;
    a.#offered.inbound = o.inboundStreams;
    // A single-homed endpoint lists no address: the peer uses the packet's source (RFC 9260 5.1.2).
    const params =
      host.localAddresses.length > 1 ? host.localAddresses.flatMap((a) => encodeIpAddressParam(a) ?? []) : [];
    const init = encodeInit(
      ChunkType.INIT,
      {
        initiateTag: a.localTag,
        aRwnd: host.limits.receiveWindow,
        outboundStreams: o.outboundStreams,
        inboundStreams: o.inboundStreams,
        initialTsn: tsn,
      },
      params,
    );
    a.paths = [a.#newPath(o.remote, true, host.limits.receiveWindow)];
    a.#state = { name: 'cookie-wait', init, retransmits: 0 };
    a.#sendControlPacket(0, [init]);
    a.#startT1();
    return a;
  }

  /** The responder's side, from a valid State Cookie (RFC 9260 5.1 D). */
  static fromCookie(host: AssociationHost, c: CookieContents, source: LinkAddress): SctpAssociation {
    const a = new SctpAssociation(host, c.localPort, c.peerPort, { name: 'established' }, c.localInitialTsn);
    a.#offered.outbound = c.outboundStreams;
    a.#offered.inbound = c.inboundStreams;
    a.#establish(c, source);
    return a;
  }

  // ----- N2Association -----

  get state(): AssociationState {
    switch (this.#state.name) {
      case 'cookie-wait':
      case 'cookie-echoed':
      case 'established':
        return 'established';
      case 'shutdown-pending':
      case 'shutdown-sent':
      case 'shutdown-received':
      case 'shutdown-ack-sent':
        return 'shutting-down';
      case 'closed':
        return 'closed';
    }
  }

  /** The RFC 9260 state name, for diagnostics and tests. */
  get protocolState(): State['name'] {
    return this.#state.name;
  }

  get remote(): TransportAddress {
    return { address: this.#primaryPath().remote.address, port: this.peerPort };
  }

  get streams(): StreamCounts {
    return this.#streams;
  }

  get queuedBytes(): number {
    return this.#send.queuedBytes;
  }

  set handler(handler: AssociationHandler) {
    this.#handler = handler;
  }

  send(streamId: number, ppid: number, payload: Uint8Array, options?: SendOptions): SendResult {
    if (this.#state.name !== 'established') return { ok: false, error: 'closed' };
    if (!Number.isInteger(streamId) || streamId < 0 || streamId >= this.#streams.outbound) {
      return { ok: false, error: 'invalid-stream' };
    }
    if (payload.length === 0) return { ok: false, error: 'empty' };
    if (payload.length > this.#host.limits.maxMessageSize) return { ok: false, error: 'too-large' };
    if (this.#send.queuedBytes + payload.length > this.#host.limits.maxQueuedBytes) {
      this.#refused = true;
      return { ok: false, error: 'queue-full' };
    }
    this.#send.enqueue(streamId, ppid >>> 0, payload, options?.unordered ?? false);
    this.#scheduleFlush();
    return { ok: true };
  }

  shutdown(): void {
    if (this.#state.name !== 'established') return;
    this.#state = { name: 'shutdown-pending' };
    this.#scheduleFlush();
  }

  silentForMs(): number {
    return this.#host.now() - this.#lastReceived;
  }

  abort(cause?: string): void {
    if (this.#state.name === 'closed') return;
    this.#sendAbort(encodeTextCause(Cause.USER_INITIATED_ABORT, cause ?? ''));
    this.#close({
      type: 'communication-lost',
      reason: 'local-abort',
      ...(cause === undefined ? {} : { cause }),
    });
  }

  // ----- inbound -----

  /** The path index of a peer address, learning the link port it now uses (RFC 6951 5.4). */
  pathIndex(remote: LinkAddress): number {
    // A loop, not findIndex(): this runs per packet.
    for (let i = 0; i < this.paths.length; i++) {
      const path = this.paths[i]!;
      if (path.remote.address !== remote.address) continue;
      path.remote.port = remote.port;
      return i;
    }
    return -1;
  }

  /**
   * One packet for this association, after the endpoint matched it (and handled any INIT or new
   * COOKIE ECHO). Checks the verification tag (RFC 9260 8.5) and processes the chunks in order.
   */
  receive(packet: Packet, remote: LinkAddress, firstChunk = 0): void {
    if (this.#state.name === 'closed') return;
    const first = packet.chunks[firstChunk];
    if (first === undefined) return;
    const tagOk = packet.verificationTag === this.localTag;
    const reflected = (first.flags & T_BIT) !== 0 && packet.verificationTag === this.peerTag;
    if (first.type === ChunkType.ABORT || first.type === ChunkType.SHUTDOWN_COMPLETE) {
      // RFC 9260 8.5.1 B, C: these may carry the peer's own tag with the T bit.
      if (!tagOk && !reflected) return;
    } else if (!tagOk && firstChunk === 0) {
      return;
    }
    this.#lastReceived = this.#host.now();
    const pathIndex = this.pathIndex(remote);
    const deliveries: InboundMessage[] = [];
    let sawData = false;
    this.#inPacket = true;
    try {
      for (let i = firstChunk; i < packet.chunks.length; i++) {
        const chunk = packet.chunks[i]!;
        const next = this.#chunk(chunk, pathIndex, deliveries);
        if (next === 'data') sawData = true;
        if (next === 'stop' || this.#isClosed()) break;
      }
    } finally {
      this.#inPacket = false;
    }
    if (sawData && !this.#isClosed()) this.#dataReceived();
    for (const m of deliveries) {
      if (this.#isClosed()) break;
      this.#handler?.message(m);
    }
    // A SACK reporting a gap or a duplicate, control chunks and retransmissions leave at once: fast
    // retransmit counts one miss indication per SACK (RFC 9260 7.2.4), so those SACKs are never merged.
    // Otherwise the SACK waits for the end of this turn of the event loop, with the answers the
    // application sends and the SACKs of the other packets read in the same turn (RFC 9260 6.2 asks
    // for one every second packet; the turn ends within the same millisecond).
    const urgent =
      this.#sackAtOnce ||
      this.#control.length > 0 ||
      this.#fastRetransmitNow ||
      this.#send.nextRetransmit() !== undefined;
    if (urgent) this.#flush();
    else this.#scheduleFlush();
  }

  /** RFC 9260 5.2.4: a COOKIE ECHO for this existing association (restart, collision or duplicate). */
  cookieEcho(c: CookieContents, packet: Packet, remote: LinkAddress, chunkIndex: number): void {
    const tagsMatch = c.localTag === this.localTag;
    const peerMatch = c.peerTag === this.peerTag;
    if (!tagsMatch && !peerMatch && c.localTieTag === this.localTag && c.peerTieTag === this.peerTag) {
      // Action A: the peer restarted.
      if (this.#state.name === 'shutdown-ack-sent') {
        // RFC 9260 5.2.4 A: while shutting down, answer with SHUTDOWN ACK and an Cookie Received While
        // Shutting Down error, and do not restart.
        this.#sendControlPacket(c.peerTag, [
          encodeChunk(ChunkType.SHUTDOWN_ACK, 0),
          encodeChunk(ChunkType.ERROR, 0, encodeCause(Cause.COOKIE_WHILE_SHUTTING_DOWN)),
        ]);
        return;
      }
      this.#restart(c, remote);
    } else if (tagsMatch && !peerMatch) {
      // Action B: an INIT collision; take the peer's tag.
      this.#establish(c, remote);
    } else if (!tagsMatch && peerMatch && c.localTieTag === 0 && c.peerTieTag === 0) {
      // Action C: silently discarded.
      return;
    } else if (tagsMatch && peerMatch) {
      // Action D: a duplicate; enter ESTABLISHED if still in COOKIE ECHOED.
      if (this.#state.name === 'cookie-wait' || this.#state.name === 'cookie-echoed')
        this.#establish(c, remote);
    } else {
      return;
    }
    this.answerCookie(packet, remote, chunkIndex);
  }

  /** Sends COOKIE ACK and processes the chunks bundled after the COOKIE ECHO (RFC 9260 5.1 D). */
  answerCookie(packet: Packet, remote: LinkAddress, chunkIndex: number): void {
    this.#control.push(encodeChunk(ChunkType.COOKIE_ACK, 0));
    this.receive({ ...packet, verificationTag: this.localTag }, remote, chunkIndex + 1);
    this.#flush();
  }

  /** The tie-tags and INIT-ACK fields for an INIT that found this association (RFC 9260 5.2.1, 5.2.2). */
  initCollision(): { localTag: number; initialTsn: number; tieLocal: number; tiePeer: number } | 'discard' {
    switch (this.#state.name) {
      case 'cookie-wait':
        return { localTag: this.localTag, initialTsn: this.#localInitialTsn, tieLocal: 0, tiePeer: 0 };
      case 'cookie-echoed':
        return {
          localTag: this.localTag,
          initialTsn: this.#localInitialTsn,
          tieLocal: this.localTag,
          tiePeer: this.peerTag,
        };
      case 'shutdown-ack-sent':
        // RFC 9260 9.2: an INIT in SHUTDOWN-ACK-SENT is answered by the SHUTDOWN ACK already pending.
        return 'discard';
      case 'established':
      case 'shutdown-pending':
      case 'shutdown-sent':
      case 'shutdown-received':
        return {
          localTag: randomTag(),
          initialTsn: randomTag(),
          tieLocal: this.localTag,
          tiePeer: this.peerTag,
        };
      case 'closed':
        return 'discard';
    }
  }

  /** Whether `addresses` are all known paths (RFC 9260 5.2.2: a restart must not add addresses). */
  knowsAll(addresses: readonly string[]): boolean {
    return addresses.every((a) => this.paths.some((p) => p.remote.address === a));
  }

  // ----- chunk handling -----

  #chunk(chunk: RawChunk, pathIndex: number, deliveries: InboundMessage[]): 'next' | 'data' | 'stop' {
    switch (chunk.type) {
      case ChunkType.DATA:
        return this.#onData(chunk, deliveries);
      case ChunkType.SACK: {
        const sack = decodeSack(chunk);
        if (!sack.ok) return this.#violation(`SACK: ${sack.error}`);
        if (this.#established()) this.#onSack(sack.value);
        return 'next';
      }
      case ChunkType.HEARTBEAT:
        // RFC 9260 8.3: echo the Heartbeat Info back unchanged, to the address it came from.
        if (this.#state.name !== 'cookie-wait') {
          this.#sendControlPacket(
            this.peerTag,
            [encodeChunk(ChunkType.HEARTBEAT_ACK, 0, chunk.value)],
            pathIndex,
          );
        }
        return 'next';
      case ChunkType.HEARTBEAT_ACK:
        this.#onHeartbeatAck(chunk);
        return 'next';
      case ChunkType.ABORT:
        this.#close({
          type: 'communication-lost',
          reason: 'peer-abort',
          ...withCause(describeCauses(chunk)),
        });
        return 'stop';
      case ChunkType.SHUTDOWN:
        return this.#onShutdown(chunk);
      case ChunkType.SHUTDOWN_ACK:
        if (this.#state.name === 'shutdown-sent' || this.#state.name === 'shutdown-ack-sent') {
          this.#sendControlPacket(this.peerTag, [encodeChunk(ChunkType.SHUTDOWN_COMPLETE, 0)]);
          this.#close({ type: 'shutdown-complete' });
          return 'stop';
        }
        return 'next';
      case ChunkType.SHUTDOWN_COMPLETE:
        if (this.#state.name === 'shutdown-ack-sent') {
          this.#close({ type: 'shutdown-complete' });
          return 'stop';
        }
        return 'next';
      case ChunkType.ERROR:
        if (this.#state.name === 'cookie-echoed' && causeCodes(chunk).includes(Cause.STALE_COOKIE)) {
          // RFC 9260 5.2.6: start over with a new INIT.
          this.#restartInit();
          return 'stop';
        }
        return 'next';
      case ChunkType.INIT_ACK:
        if (this.#state.name === 'cookie-wait') this.#onInitAck(chunk, pathIndex);
        return 'stop';
      case ChunkType.COOKIE_ACK:
        if (this.#state.name === 'cookie-echoed') {
          this.#cancelT1();
          this.#state = { name: 'established' };
          this.#comeUp();
        }
        return 'next';
      case ChunkType.INIT:
      case ChunkType.COOKIE_ECHO:
        // The endpoint handles these before the association sees the packet.
        return 'next';
      default:
        return this.#unrecognized(chunk);
    }
  }

  /** RFC 9260 3.2: the two high bits of an unknown chunk type say whether to go on and whether to report. */
  #unrecognized(chunk: RawChunk): 'next' | 'stop' {
    const action = chunk.type >> 6;
    if (action === 1 || action === 3) {
      const whole = encodeChunk(chunk.type, chunk.flags, chunk.value.subarray(0, 1024));
      this.#control.push(encodeChunk(ChunkType.ERROR, 0, encodeCause(Cause.UNRECOGNIZED_CHUNK_TYPE, whole)));
    }
    return action >= 2 ? 'next' : 'stop';
  }

  #violation(why: string): 'stop' {
    this.#sendAbort(encodeTextCause(Cause.PROTOCOL_VIOLATION, why));
    this.#close({ type: 'communication-lost', reason: 'protocol-violation', cause: why });
    return 'stop';
  }

  /** Read through a method so that TypeScript does not keep a narrowing across calls that change it. */
  #isClosed(): boolean {
    return this.#state.name === 'closed';
  }

  #established(): boolean {
    const s = this.#state.name;
    return s !== 'cookie-wait' && s !== 'cookie-echoed' && s !== 'closed';
  }

  #onData(chunk: RawChunk, deliveries: InboundMessage[]): 'data' | 'stop' | 'next' {
    if (!this.#established() || this.#receive === undefined) return 'next';
    const data = decodeData(chunk);
    if (!data.ok) {
      if (chunk.value.length === 12) {
        // RFC 9260 6.2: a DATA chunk without user data aborts with No User Data.
        const tsn = chunk.value.subarray(0, 4);
        this.#sendAbort(encodeCause(Cause.NO_USER_DATA, tsn));
        this.#close({ type: 'communication-lost', reason: 'protocol-violation', cause: 'No User Data' });
        return 'stop';
      }
      return this.#violation(`DATA: ${data.error}`);
    }
    const outcome = this.#receive.receive(data.value, deliveries);
    switch (outcome) {
      case 'accepted':
        if (data.value.immediate) this.#sackNow = this.#sackAtOnce = true;
        return 'data';
      case 'duplicate':
      case 'dropped':
        this.#sackNow = this.#sackAtOnce = true;
        return 'data';
      case 'invalid-stream':
        this.#control.push(encodeChunk(ChunkType.ERROR, 0, invalidStreamCause(data.value.streamId)));
        return 'data';
      case 'violation':
        this.#sendAbort(encodeTextCause(Cause.PROTOCOL_VIOLATION, 'message exceeds the reassembly limit'));
        this.#close({ type: 'communication-lost', reason: 'protocol-violation', cause: 'message too large' });
        return 'stop';
    }
  }

  /** RFC 9260 6.2: SACK every second packet with DATA, at once on gaps and duplicates, else after the delay. */
  #dataReceived(): void {
    this.#sackDue = true;
    this.#dataPacketsUnacked++;
    if (this.#dataPacketsUnacked >= 2) this.#sackNow = true;
    if (this.#receive?.needsImmediateSack) this.#sackNow = this.#sackAtOnce = true;
    // RFC 9260 9.2: in SHUTDOWN-SENT, every packet with DATA is answered with a SHUTDOWN at once.
    if (this.#state.name === 'shutdown-sent') {
      this.#sackNow = true;
      this.#control.push(encodeCumulativeTsn(ChunkType.SHUTDOWN, this.#receive!.cumulativeTsn));
      this.#startT2();
    }
    if (!this.#sackNow && this.#sackTimer === undefined) {
      this.#sackTimer = this.#host.timers.after(this.#host.params.sackDelay, () => {
        this.#sackTimer = undefined;
        this.#sackNow = true;
        this.#flush();
      });
    }
  }

  #onSack(sack: SackChunk): void {
    const flightBefore = this.#send.flightBytes;
    const result = this.#send.applySack(sack);
    if (result.stale) return;
    if (result.invalid) {
      this.#violation('SACK acknowledges a TSN not sent');
      return;
    }
    const now = this.#host.now();
    if (result.rtt !== undefined) this.paths[result.rtt.path]?.measureRtt(now - result.rtt.sentAt);
    const inRecovery = this.#fastRecoveryExit !== undefined;
    for (const [index, bytes] of result.ackedBytesByPath) {
      const path = this.paths[index];
      if (path === undefined) continue;
      path.onAcked(bytes, flightBefore + path.mtu >= path.cwnd, inRecovery);
      path.errorCount = 0;
    }
    if (result.ackedBytesByPath.size > 0) this.#errorCount = 0;
    if (this.#fastRecoveryExit !== undefined && tsnLte(this.#fastRecoveryExit, sack.cumulativeTsnAck)) {
      this.#fastRecoveryExit = undefined;
    }
    if (result.fastRetransmit.length > 0) {
      for (const c of result.fastRetransmit) {
        c.retransmit = true;
        this.#send.flightBytes -= c.userData.length;
      }
      if (this.#fastRecoveryExit === undefined) {
        this.paths[result.fastRetransmit[0]!.path]?.onFastRetransmit();
        this.#fastRecoveryExit = tsnAdd(this.#send.nextTsn, -1);
      }
      this.#fastRetransmitNow = true;
    }
    this.#peerRwnd = Math.max(0, sack.aRwnd - this.#send.flightBytes);
    if (this.#send.outstanding.length === 0) this.#cancelT3();
    else if (result.cumulativeAdvanced) this.#startT3(true);
    this.#afterAcknowledged();
  }

  /** Drain notification, and the shutdown step that waited for everything to be acknowledged. */
  #afterAcknowledged(): void {
    if (this.#refused && this.#send.queuedBytes <= this.#host.limits.maxQueuedBytes / 2) {
      this.#refused = false;
      this.#emit({ type: 'drain' });
    }
  }

  #onShutdown(chunk: RawChunk): 'next' | 'stop' {
    const cum = decodeCumulativeTsn(chunk);
    if (!cum.ok) return this.#violation(cum.error);
    switch (this.#state.name) {
      case 'established':
      case 'shutdown-pending':
      case 'shutdown-received':
        this.#onSack({
          cumulativeTsnAck: cum.value,
          aRwnd: this.#peerRwnd + this.#send.flightBytes,
          gaps: [],
          duplicates: 0,
        });
        this.#state = { name: 'shutdown-received' };
        return 'next';
      case 'shutdown-sent':
        // RFC 9260 9.2: both sides sent SHUTDOWN: answer with SHUTDOWN ACK at once.
        this.#cancelT2();
        this.#state = { name: 'shutdown-ack-sent', retransmits: 0 };
        this.#sendControlPacket(this.peerTag, [encodeChunk(ChunkType.SHUTDOWN_ACK, 0)]);
        this.#startT2();
        return 'next';
      case 'cookie-wait':
      case 'cookie-echoed':
      case 'shutdown-ack-sent':
      case 'closed':
        return 'next';
    }
  }

  #onHeartbeatAck(chunk: RawChunk): void {
    const params = decodeParameters(chunk.value, 4);
    const info = params.ok ? params.value.find((p) => p.type === ParamType.HEARTBEAT_INFO) : undefined;
    if (info === undefined || info.value.length !== 16) return;
    const d = new DataView(info.value.buffer, info.value.byteOffset, 16);
    const path = this.paths[d.getUint32(0)];
    if (path === undefined || path.heartbeatNonce !== d.getUint32(4)) return;
    path.heartbeatNonce = undefined;
    path.measureRtt(Math.max(0, this.#host.now() - d.getFloat64(8)));
    path.errorCount = 0;
    this.#errorCount = 0;
    path.confirmed = true;
    if (!path.active) {
      path.active = true;
      this.#emit({ type: 'peer-address-change', address: this.#address(path), state: 'available' });
      if (!this.#primaryPath().active || this.#primaryPath() === path) this.#choosePrimary();
    }
  }

  #onInitAck(chunk: RawChunk, pathIndex: number): void {
    if (this.#state.name !== 'cookie-wait') return;
    const init = decodeInit(chunk);
    if (!init.ok) {
      this.#violation(`INIT ACK: ${init.error}`);
      return;
    }
    const cookie = init.value.params.find((p) => p.type === ParamType.STATE_COOKIE);
    if (cookie === undefined) {
      this.#sendAbort(encodeCause(Cause.MISSING_MANDATORY_PARAMETER, new Uint8Array([0, 0, 0, 1, 0, 7])));
      this.#close({
        type: 'communication-lost',
        reason: 'protocol-violation',
        cause: 'INIT ACK without a cookie',
      });
      return;
    }
    this.#cancelT1();
    this.peerTag = init.value.initiateTag;
    this.#setupTcb(init.value, init.value.initialTsn);
    this.#addPeerAddresses(init.value);
    this.#primary = Math.max(0, pathIndex);
    const echo = encodeChunk(ChunkType.COOKIE_ECHO, 0, cookie.value);
    this.#state = { name: 'cookie-echoed', init: this.#state.init, cookieEcho: echo, retransmits: 0 };
    this.#sendControlPacket(this.peerTag, [echo]);
    this.#startT1();
  }

  // ----- establishment -----

  #setupTcb(
    peer: Pick<InitChunk, 'aRwnd' | 'outboundStreams' | 'inboundStreams'>,
    peerInitialTsn: number,
  ): void {
    this.#streams = {
      outbound: Math.min(this.#offered.outbound, peer.inboundStreams),
      inbound: Math.min(this.#offered.inbound, peer.outboundStreams),
    };
    this.#send = new SendQueue(this.#localInitialTsn, this.#streams.outbound);
    this.#receive = new ReceiveBuffer(peerInitialTsn, this.#streams.inbound, this.#host.limits);
    this.#peerRwnd = peer.aRwnd;
    for (const p of this.paths) p.ssthresh = peer.aRwnd;
  }

  #establish(c: CookieContents, source: LinkAddress): void {
    this.localTag = c.localTag;
    this.peerTag = c.peerTag;
    this.#localInitialTsn = c.localInitialTsn;
    if (this.paths.length === 0) {
      // The INIT's source is confirmed; other listed addresses wait for a heartbeat (RFC 9260 5.4).
      this.paths = c.peerAddresses.map((address, i) =>
        this.#newPath({ address, port: c.linkPort }, i === 0, c.peerARwnd),
      );
      if (this.paths.length === 0) this.paths = [this.#newPath(source, true, c.peerARwnd)];
    }
    this.#offered.outbound = Math.max(this.#offered.outbound, c.outboundStreams);
    this.#offered.inbound = Math.max(this.#offered.inbound, c.inboundStreams);
    this.#setupTcb(
      { aRwnd: c.peerARwnd, outboundStreams: c.inboundStreams, inboundStreams: c.outboundStreams },
      c.peerInitialTsn,
    );
    this.#cancelT1();
    const wasUp = this.#handler !== undefined;
    this.#state = { name: 'established' };
    if (!wasUp) this.#comeUp();
  }

  #restart(c: CookieContents, source: LinkAddress): void {
    this.#cancelT3();
    this.#cancelSackTimer();
    this.#send.clear();
    this.#fastRecoveryExit = undefined;
    this.#errorCount = 0;
    for (const p of this.paths) {
      p.errorCount = 0;
      p.heartbeatNonce = undefined;
    }
    this.#establish(c, source);
    this.#emit({ type: 'restart', peerAddresses: this.#peerAddresses(), streams: this.#streams });
  }

  #comeUp(): void {
    const handler = this.#host.up(this, {
      peerAddresses: this.#peerAddresses(),
      localAddresses: this.#host.localAddresses.map((address) => ({ address, port: this.localPort })),
      streams: this.#streams,
    });
    if (handler !== undefined) this.#handler = handler;
    // The listener may have refused it at once (the N2 allowlist): no heartbeats for a closed association.
    if (this.#isClosed()) return;
    this.paths.forEach((_, i) => this.#startHeartbeat(i));
  }

  #addPeerAddresses(init: InitChunk): void {
    for (const address of listedAddresses(init, this.#host.localAddresses)) {
      if (this.paths.length >= this.#host.limits.maxPeerAddresses) break;
      if (this.paths.some((p) => p.remote.address === address)) continue;
      const first = this.paths[0]!;
      this.paths.push(this.#newPath({ address, port: first.remote.port }, false, init.aRwnd));
      this.#host.addressAdded(this, address);
    }
  }

  /** RFC 9260 5.2.6: the cookie went stale on its way; send the INIT again and wait in COOKIE-WAIT. */
  #restartInit(): void {
    const s = this.#state;
    if (s.name !== 'cookie-echoed') return;
    this.#cancelT1();
    this.peerTag = 0;
    this.#state = { name: 'cookie-wait', init: s.init, retransmits: s.retransmits };
    this.#sendControlPacket(0, [s.init]);
    this.#startT1();
  }

  #newPath(remote: LinkAddress, confirmed: boolean, peerRwnd: number): Path {
    const mtu = this.#host.maxPacketSize(remote);
    return new Path(
      { address: remote.address, port: remote.port },
      confirmed,
      mtu,
      peerRwnd,
      this.#host.params,
    );
  }

  #peerAddresses(): TransportAddress[] {
    const primary = this.#primaryPath();
    return [primary, ...this.paths.filter((p) => p !== primary)].map((p) => this.#address(p));
  }

  #address(path: Path): TransportAddress {
    return { address: path.remote.address, port: this.peerPort };
  }

  #primaryPath(): Path {
    return this.paths[this.#primary] ?? this.paths[0]!;
  }

  /** RFC 9260 6.4: data goes to the primary path while it is active, else to another active path. */
  #currentPathIndex(): number {
    if (this.paths[this.#primary]?.active) return this.#primary;
    const i = this.paths.findIndex((p) => p.active && p.confirmed);
    return i >= 0 ? i : this.#primary;
  }

  #choosePrimary(): void {
    const i = this.paths.findIndex((p) => p.active && p.confirmed);
    if (i >= 0 && i !== this.#primary) {
      this.#primary = i;
      this.#emit({ type: 'peer-address-change', address: this.#address(this.paths[i]!), state: 'primary' });
    }
  }

  // ----- transmission -----

  /**
   * While the endpoint handles received packets, flushes at the end of this turn of the event loop
   * (`setImmediate`, after the packets read in it): the answers to a turn's packets are bundled (RFC
   * 9260 6.1 C), so the last fragment of one message shares a packet with the next message and the
   * SACK, instead of each message leaving in packets of its own. What is sent outside that (a timer, a
   * storage commit's promise, a `setImmediate` callback) flushes at the end of its own task: from the
   * check phase or a timer, the end of the turn is a whole loop iteration later, behind the next poll
   * phase's packets (docs/sctp.md, "Bundling per turn of the event loop"). `process.nextTick` runs once the task's
   * promise reactions have drained, so what one commit releases still leaves in one flush.
   */
  #scheduleFlush(): void {
    if (this.#inPacket) return;
    if (this.#host.receiving()) {
      if (this.#flushScheduled) return;
      this.#flushScheduled = true;
      setImmediate(this.#scheduledFlush);
    } else if (!this.#taskFlushScheduled) {
      this.#taskFlushScheduled = true;
      process.nextTick(this.#taskFlush);
    }
  }

  /** Sends what is due: control chunks, a SACK, retransmissions and new data as the windows allow. */
  #flush(): void {
    if (this.#state.name === 'closed' || this.#inPacket) return;
    if (this.#state.name === 'cookie-wait' || this.#state.name === 'cookie-echoed') {
      if (this.#control.length > 0) this.#sendControlPacket(this.peerTag, this.#control.splice(0));
      return;
    }
    const pathIndex = this.#currentPathIndex();
    const path = this.paths[pathIndex]!;
    const now = this.#host.now();
    for (const c of this.#control.splice(0)) this.#addChunk(path, now, c);
    const sending = this.#send.nextRetransmit() !== undefined || this.#send.pendingBytes() > 0;
    if (this.#sackDue && (this.#sackNow || sending)) {
      this.#addSack(this.#open(path));
    }
    // Retransmissions first, then new data (RFC 9260 6.1); the first fast retransmit ignores cwnd.
    let dataSent = false;
    for (let c = this.#send.nextRetransmit(); c !== undefined; c = this.#send.nextRetransmit()) {
      if (!this.#fastRetransmitNow && this.#send.flightBytes >= path.cwnd) break;
      if (!this.#open(path).addData(c.flags, c.tsn, c.streamId, c.ssn, c.ppid, c.userData)) {
        const wasEmpty = this.#builder?.empty ?? true;
        this.#ship(path, now);
        this.#fastRetransmitNow = false;
        if (wasEmpty) break;
        continue;
      }
      this.#send.markSent(c, now, pathIndex);
      dataSent = true;
    }
    if (this.#fastRetransmitNow) {
      this.#fastRetransmitNow = false;
      this.#ship(path, now);
    }
    if (this.#send.nextRetransmit() === undefined) {
      // RFC 9260 6.1 D: Max.Burst limits the packets of new data one transmission sends.
      let packets = 0;
      for (let remaining = this.#send.pendingBytes(); remaining > 0; remaining = this.#send.pendingBytes()) {
        if (this.#send.flightBytes >= path.cwnd) break;
        // RFC 9260 6.1 A: with no window, one chunk may probe when nothing is in flight.
        if (this.#send.flightBytes > 0 && Math.min(remaining, MIN_FRAGMENT) > this.#peerRwnd) break;
        // Fill the packet: cut a fragment to the room left, unless that would make a sliver.
        let room = (this.#builder === undefined ? path.mtu - 12 : this.#builder.room()) - 16;
        if (room < Math.min(remaining, MIN_FRAGMENT)) {
          this.#ship(path, now);
          if (++packets >= this.#host.params.maxBurst) break;
          room = path.mtu - 12 - 16;
        }
        // A whole rest that fits goes as is; a cut keeps fragments 4-byte aligned.
        const taken = this.#send.takePending(now, pathIndex, remaining <= room ? remaining : room & ~3);
        this.#open(path).addData(
          taken.flags,
          taken.tsn,
          taken.streamId,
          taken.ssn,
          taken.ppid,
          taken.userData,
        );
        this.#peerRwnd = Math.max(0, this.#peerRwnd - taken.userData.length);
        dataSent = true;
      }
    }
    this.#shutdownStep(path, now);
    this.#ship(path, now);
    // An empty packet is not kept for the next flush: the path or the peer's tag may change by then.
    this.#builder = undefined;
    if (dataSent && this.#t3 === undefined) this.#startT3(false);
  }

  /** The packet #flush is filling (methods, not closures: a flush runs per turn and per SACK). */
  #open(path: Path): PacketBuilder {
    return (this.#builder ??= new PacketBuilder(
      path.mtu,
      this.localPort,
      this.peerPort,
      this.peerTag,
      this.#host.crc32c,
    ));
  }

  /** Sends the packet being filled, if it holds anything. */
  #ship(path: Path, now: number): void {
    const builder = this.#builder;
    if (builder === undefined || builder.empty) return;
    this.#host.send(builder.finish(), path.remote);
    path.lastSent = now;
    this.#builder = undefined;
  }

  /** Adds a chunk to the packet being filled, or to a new one when it does not fit. */
  #addChunk(path: Path, now: number, chunk: Uint8Array): void {
    if (!this.#open(path).add(chunk)) {
      this.#ship(path, now);
      this.#open(path).add(chunk);
    }
  }

  #addSack(builder: PacketBuilder): void {
    const s = this.#receive!.takeSack();
    builder.add(encodeSack(s.cumulativeTsnAck, s.aRwnd, s.gaps, s.duplicates));
    this.#sackDue = false;
    this.#sackNow = false;
    this.#sackAtOnce = false;
    this.#dataPacketsUnacked = 0;
    this.#cancelSackTimer();
  }

  /** RFC 9260 9.2: once nothing is outstanding, a pending shutdown sends SHUTDOWN or SHUTDOWN ACK. */
  #shutdownStep(path: Path, now: number): void {
    if (!this.#send.empty) return;
    if (this.#state.name === 'shutdown-pending') {
      this.#state = { name: 'shutdown-sent', retransmits: 0 };
      this.#addChunk(path, now, encodeCumulativeTsn(ChunkType.SHUTDOWN, this.#receive!.cumulativeTsn));
      this.#cancelT3();
      this.#startT2();
    } else if (this.#state.name === 'shutdown-received') {
      this.#state = { name: 'shutdown-ack-sent', retransmits: 0 };
      this.#addChunk(path, now, encodeChunk(ChunkType.SHUTDOWN_ACK, 0));
      this.#cancelT3();
      this.#startT2();
    }
  }

  #sendControlPacket(tag: number, chunks: Uint8Array[], pathIndex?: number): void {
    const path = (pathIndex === undefined ? undefined : this.paths[pathIndex]) ?? this.#primaryPath();
    this.#host.send(encodePacket(this.localPort, this.peerPort, tag, chunks, this.#host.crc32c), path.remote);
  }

  #sendAbort(cause: Uint8Array): void {
    if (this.#state.name === 'cookie-wait') return;
    this.#sendControlPacket(this.peerTag, [encodeChunk(ChunkType.ABORT, 0, cause)]);
  }

  // ----- timers -----

  /** T1-init / T1-cookie (RFC 9260 5.1 C): retransmit INIT or COOKIE ECHO, backing off. */
  #startT1(): void {
    this.#cancelT1();
    const path = this.#primaryPath();
    this.#t1 = this.#host.timers.after(path.rto, () => {
      this.#t1 = undefined;
      const s = this.#state;
      if (s.name !== 'cookie-wait' && s.name !== 'cookie-echoed') return;
      if (++s.retransmits > this.#host.params.maxInitRetransmits) {
        this.#close({ type: 'communication-lost', reason: 'retransmissions-exceeded' });
        return;
      }
      path.backOff();
      if (s.name === 'cookie-wait') this.#sendControlPacket(0, [s.init]);
      else this.#sendControlPacket(this.peerTag, [s.cookieEcho]);
      this.#startT1();
    });
  }

  #cancelT1(): void {
    this.#t1?.();
    this.#t1 = undefined;
  }

  /** T3-rtx (RFC 9260 6.3.2, 6.3.3). */
  #startT3(restart: boolean): void {
    if (this.#t3 !== undefined && !restart) return;
    this.#cancelT3();
    const pathIndex = this.#send.outstanding[0]?.path ?? this.#currentPathIndex();
    const path = this.paths[pathIndex] ?? this.#primaryPath();
    this.#t3 = this.#host.timers.after(path.rto, () => {
      this.#t3 = undefined;
      this.#onT3(pathIndex);
    });
  }

  #cancelT3(): void {
    this.#t3?.();
    this.#t3 = undefined;
  }

  #onT3(pathIndex: number): void {
    if (!this.#established() || this.#send.outstanding.length === 0) return;
    const path = this.paths[pathIndex]!;
    path.onTimeout();
    path.backOff();
    this.#fastRecoveryExit = undefined;
    if (!this.#countError(path)) return;
    this.#send.markAllForRetransmit();
    this.#flush();
    this.#startT3(false);
  }

  /** Counts a timeout against a path and the association (RFC 9260 8.1, 8.2); false once the association is lost. */
  #countError(path: Path): boolean {
    this.#errorCount++;
    path.errorCount++;
    if (this.#errorCount > this.#host.params.associationMaxRetrans) {
      this.#close({ type: 'communication-lost', reason: 'retransmissions-exceeded' });
      return false;
    }
    if (path.active && path.errorCount > this.#host.params.pathMaxRetrans) {
      path.active = false;
      this.#emit({ type: 'peer-address-change', address: this.#address(path), state: 'unreachable' });
      if (path === this.#primaryPath()) this.#choosePrimary();
    }
    return true;
  }

  /** T2-shutdown (RFC 9260 9.2): retransmit SHUTDOWN or SHUTDOWN ACK. */
  #startT2(): void {
    this.#cancelT2();
    const path = this.#primaryPath();
    this.#t2 = this.#host.timers.after(path.rto, () => {
      this.#t2 = undefined;
      const s = this.#state;
      if (s.name !== 'shutdown-sent' && s.name !== 'shutdown-ack-sent') return;
      path.backOff();
      if (!this.#countError(path)) return;
      const chunk =
        s.name === 'shutdown-sent'
          ? encodeCumulativeTsn(ChunkType.SHUTDOWN, this.#receive!.cumulativeTsn)
          : encodeChunk(ChunkType.SHUTDOWN_ACK, 0);
      this.#sendControlPacket(this.peerTag, [chunk], this.#currentPathIndex());
      this.#startT2();
    });
  }

  #cancelT2(): void {
    this.#t2?.();
    this.#t2 = undefined;
  }

  #cancelSackTimer(): void {
    this.#sackTimer?.();
    this.#sackTimer = undefined;
  }

  /**
   * HEARTBEAT per path (RFC 9260 8.3): idle confirmed paths every RTO + HB.interval (jittered by +-50%
   * of the RTO), unconfirmed ones every RTO (5.4). An unanswered heartbeat counts as an error.
   */
  #startHeartbeat(index: number): void {
    this.#heartbeatTimers[index]?.();
    const path = this.paths[index];
    if (path === undefined) return;
    const jitter = path.rto * (Math.random() - 0.5);
    const delay = path.confirmed ? path.rto + this.#host.params.heartbeatInterval + jitter : path.rto;
    this.#heartbeatTimers[index] = this.#host.timers.after(delay, () => {
      this.#heartbeatTimers[index] = undefined;
      if (!this.#established()) return;
      if (path.heartbeatNonce !== undefined) {
        if (!path.confirmed && path.errorCount >= this.#host.params.pathMaxRetrans) return;
        path.backOff();
        if (path.confirmed) {
          if (!this.#countError(path)) return;
        } else {
          path.errorCount++;
        }
      }
      const now = this.#host.now();
      const idle = now - path.lastSent >= path.rto + this.#host.params.heartbeatInterval / 2;
      if (!path.confirmed || idle || path.heartbeatNonce !== undefined) this.#sendHeartbeat(index, now);
      this.#startHeartbeat(index);
    });
  }

  #sendHeartbeat(index: number, now: number): void {
    const path = this.paths[index]!;
    const nonce = randomBytes(4).readUInt32BE(0);
    path.heartbeatNonce = nonce;
    const info = new Uint8Array(16);
    const d = new DataView(info.buffer);
    d.setUint32(0, index);
    d.setUint32(4, nonce);
    d.setFloat64(8, now);
    path.lastSent = now;
    this.#sendControlPacket(
      this.peerTag,
      [encodeChunk(ChunkType.HEARTBEAT, 0, encodeParameter(ParamType.HEARTBEAT_INFO, info))],
      index,
    );
  }

  // ----- events and closing -----

  /** Events go out on a later microtask: never inside the call (or packet) that caused them. */
  #emit(event: AssociationEvent): void {
    const handler = this.#handler;
    if (handler !== undefined) queueMicrotask(() => handler.event(event));
  }

  #close(event: AssociationEvent & { type: 'communication-lost' | 'shutdown-complete' }): void {
    if (this.#state.name === 'closed') return;
    this.#state = { name: 'closed' };
    this.#cancelT1();
    this.#cancelT2();
    this.#cancelT3();
    this.#cancelSackTimer();
    for (const cancel of this.#heartbeatTimers) cancel?.();
    this.#heartbeatTimers = [];
    this.#send.clear();
    this.#control = [];
    this.#host.closed(this, event);
    this.#emit(event);
  }
}

function withCause(cause: string | undefined): { cause?: string } {
  return cause === undefined ? {} : { cause };
}

/** Addresses listed in an INIT or INIT ACK, of the families this endpoint has locally. */
export function listedAddresses(init: InitChunk, localAddresses: readonly string[]): string[] {
  const v4 = localAddresses.length === 0 || localAddresses.some((a) => !a.includes(':'));
  const v6 = localAddresses.length === 0 || localAddresses.some((a) => a.includes(':'));
  const out: string[] = [];
  for (const p of init.params) {
    if (p.type === ParamType.IPV4_ADDRESS && p.value.length === 4 && v4) out.push(bytesToIp(p.value));
    if (p.type === ParamType.IPV6_ADDRESS && p.value.length === 16 && v6) out.push(bytesToIp(p.value));
  }
  return out;
}
