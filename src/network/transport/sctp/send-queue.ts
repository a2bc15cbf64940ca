import { DataFlag, type SackChunk } from './chunks.ts';
import { tsnAdd, tsnLt, tsnLte } from './serial-number.ts';

/**
 * The sending half's data (RFC 9260 6.1, 6.2.1, 6.6, 6.9, 7.2.4): user messages fragmented into DATA
 * chunks with their stream sequence numbers, TSNs given at first transmission, and the chunks in flight
 * until a SACK acknowledges them. Congestion control and timers are the association's; this module
 * answers "what was newly acknowledged" and "what is missing".
 */
interface OutboundChunk {
  /** Assigned when first sent. */
  tsn: number;
  streamId: number;
  ssn: number;
  ppid: number;
  flags: number;
  userData: Uint8Array;
  /** Times sent (1 after the first transmission); Karn's rule measures RTT only when it is 1. */
  sent: number;
  sentAt: number;
  /** The index of the path it was last sent on. */
  path: number;
  /** Acknowledged by a gap block of the latest SACK (may be revoked, RFC 9260 6.2.1). */
  gapAcked: boolean;
  /** Missing reports since it was last sent (fast retransmit at 3, RFC 9260 7.2.4). */
  missing: number;
  retransmit: boolean;
  /** Already fast-retransmitted once (RFC 9260 7.2.4: only once per chunk by this rule). */
  fastRetransmitted: boolean;
}

/** A user message waiting to be sent, fragmented as it goes out. */
interface PendingMessage {
  streamId: number;
  ssn: number;
  ppid: number;
  payload: Uint8Array;
  unordered: boolean;
  /** Bytes already taken into DATA chunks. */
  offset: number;
}

interface SackResult {
  /** The SACK was older than one already processed (cumulative ack behind): ignore it. */
  stale: boolean;
  /** Bytes newly acknowledged (cumulatively or by gap), per path index. */
  ackedBytesByPath: Map<number, number>;
  /** True when the cumulative ack point advanced. */
  cumulativeAdvanced: boolean;
  /** An RTT sample from a chunk sent once (Karn), with its path. */
  rtt: { path: number; sentAt: number } | undefined;
  /** Chunks that reached 3 missing reports: to fast-retransmit. */
  fastRetransmit: OutboundChunk[];
  /** An acknowledged TSN that was never sent (protocol violation). */
  invalid: boolean;
}

/** Counts a newly acknowledged chunk: bytes per path, and the RTT sample (Karn: first sent only). */
function credit(result: SackResult, c: OutboundChunk): void {
  result.ackedBytesByPath.set(c.path, (result.ackedBytesByPath.get(c.path) ?? 0) + c.userData.length);
  if (c.sent === 1 && result.rtt === undefined) result.rtt = { path: c.path, sentAt: c.sentAt };
}

export class SendQueue {
  /** The next TSN to assign. */
  nextTsn: number;
  /** The highest TSN the peer acknowledged cumulatively. */
  cumulativeTsnAck: number;
  /** Messages (or their rest) not yet sent. */
  readonly #pending: PendingMessage[] = [];
  #pendingHead = 0;
  /** Chunks sent and not cumulatively acknowledged, in TSN order. */
  readonly outstanding: OutboundChunk[] = [];
  readonly #ssn: Uint16Array;
  /** User-data bytes queued: pending plus outstanding. */
  queuedBytes = 0;
  /** User-data bytes outstanding and not gap-acknowledged (the flight size, all paths). */
  flightBytes = 0;

  constructor(initialTsn: number, outboundStreams: number) {
    this.nextTsn = initialTsn;
    this.cumulativeTsnAck = tsnAdd(initialTsn, -1);
    this.#ssn = new Uint16Array(outboundStreams);
  }

  get empty(): boolean {
    return this.#pendingHead === this.#pending.length && this.outstanding.length === 0;
  }

  /** Queues a message with its stream sequence number; it is fragmented when sent. */
  enqueue(streamId: number, ppid: number, payload: Uint8Array, unordered: boolean): void {
    const ssn = unordered ? 0 : this.#ssn[streamId]!;
    if (!unordered) this.#ssn[streamId] = (ssn + 1) & 0xffff;
    this.#pending.push({ streamId, ssn, ppid, payload, unordered, offset: 0 });
    this.queuedBytes += payload.length;
  }

  /** Bytes of the next message still to send (0 when nothing waits). */
  pendingBytes(): number {
    const head = this.#pending[this.#pendingHead];
    return head === undefined ? 0 : head.payload.length - head.offset;
  }

  /**
   * Takes at most `maxBytes` of the next message as one DATA chunk, gives it its TSN and moves it in
   * flight. Fragments are cut as packets fill (RFC 9260 6.9); one message at a time, so that the TSNs
   * of its fragments are consecutive.
   */
  takePending(now: number, path: number, maxBytes: number): OutboundChunk {
    const message = this.#pending[this.#pendingHead]!;
    const end = Math.min(message.payload.length, message.offset + maxBytes);
    const flags =
      (message.unordered ? DataFlag.UNORDERED : 0) |
      (message.offset === 0 ? DataFlag.BEGINNING : 0) |
      (end === message.payload.length ? DataFlag.END : 0);
    const chunk: OutboundChunk = {
      tsn: this.nextTsn,
      streamId: message.streamId,
      ssn: message.ssn,
      ppid: message.ppid,
      flags,
      userData: message.payload.subarray(message.offset, end),
      sent: 0,
      sentAt: 0,
      path,
      gapAcked: false,
      missing: 0,
      retransmit: false,
      fastRetransmitted: false,
    };
    message.offset = end;
    if (end === message.payload.length) {
      this.#pending[this.#pendingHead++] = undefined as unknown as PendingMessage;
      if (this.#pendingHead > 1024 && this.#pendingHead * 2 > this.#pending.length) {
        this.#pending.splice(0, this.#pendingHead);
        this.#pendingHead = 0;
      }
    }
    this.nextTsn = tsnAdd(this.nextTsn, 1);
    this.markSent(chunk, now, path);
    this.outstanding.push(chunk);
    return chunk;
  }

  markSent(chunk: OutboundChunk, now: number, path: number): void {
    chunk.sent++;
    chunk.sentAt = now;
    chunk.path = path;
    chunk.missing = 0;
    if (chunk.retransmit || chunk.sent === 1) this.flightBytes += chunk.userData.length;
    chunk.retransmit = false;
  }

  /** Marks every outstanding, unacknowledged chunk on `path` (all paths when undefined) for retransmission. */
  markAllForRetransmit(path?: number): number {
    let bytes = 0;
    for (const c of this.outstanding) {
      if (c.gapAcked || c.retransmit || (path !== undefined && c.path !== path)) continue;
      c.retransmit = true;
      this.flightBytes -= c.userData.length;
      bytes += c.userData.length;
    }
    return bytes;
  }

  /** The next chunk marked for retransmission, in TSN order. */
  nextRetransmit(): OutboundChunk | undefined {
    for (const c of this.outstanding) if (c.retransmit) return c;
    return undefined;
  }

  /** Processes a SACK (RFC 9260 6.2.1) against the chunks in flight. */
  applySack(sack: SackChunk): SackResult {
    const result: SackResult = {
      stale: false,
      ackedBytesByPath: new Map(),
      cumulativeAdvanced: false,
      rtt: undefined,
      fastRetransmit: [],
      invalid: false,
    };
    const cum = sack.cumulativeTsnAck;
    if (tsnLt(cum, this.cumulativeTsnAck)) {
      result.stale = true;
      return result;
    }
    // Acknowledging a TSN not yet sent is a protocol violation (RFC 9260 6.2.1 rule 2 implies it).
    if (!tsnLt(cum, this.nextTsn)) {
      result.invalid = true;
      return result;
    }
    // HTNA (RFC 9260 7.2.4): missing reports count only below the highest TSN newly acknowledged.
    let highestNewlyAcked: number | undefined;
    let removed = 0;
    for (const c of this.outstanding) {
      if (!tsnLte(c.tsn, cum)) break;
      if (!c.gapAcked) {
        if (!c.retransmit) this.flightBytes -= c.userData.length;
        credit(result, c);
        highestNewlyAcked = c.tsn;
      }
      this.queuedBytes -= c.userData.length;
      removed++;
    }
    if (removed > 0) {
      this.outstanding.splice(0, removed);
      result.cumulativeAdvanced = true;
    }
    this.cumulativeTsnAck = cum;

    // Gap blocks: acknowledged above the cumulative point; anything not covered is not (renege allowed).
    let gi = 0;
    for (const c of this.outstanding) {
      const offset = (c.tsn - cum) >>> 0;
      while (gi < sack.gaps.length && sack.gaps[gi]!.end < offset) gi++;
      const gap = sack.gaps[gi];
      const acked = gap !== undefined && gap.start <= offset;
      if (acked && !c.gapAcked) {
        c.gapAcked = true;
        if (!c.retransmit) this.flightBytes -= c.userData.length;
        c.retransmit = false;
        credit(result, c);
        highestNewlyAcked = c.tsn;
      } else if (!acked && c.gapAcked) {
        // Reneged (RFC 9260 6.2.1 rule 3): back in flight as unacknowledged.
        c.gapAcked = false;
        this.flightBytes += c.userData.length;
      }
    }
    if (highestNewlyAcked !== undefined) {
      for (const c of this.outstanding) {
        if (!tsnLt(c.tsn, highestNewlyAcked)) break;
        if (c.gapAcked || c.retransmit) continue;
        c.missing++;
        if (c.missing === 3 && !c.fastRetransmitted) {
          c.fastRetransmitted = true;
          result.fastRetransmit.push(c);
        }
      }
    }
    return result;
  }

  /** Forgets everything (restart): the queued bytes are lost. */
  clear(): void {
    this.#pending.length = 0;
    this.#pendingHead = 0;
    this.outstanding.length = 0;
    this.queuedBytes = 0;
    this.flightBytes = 0;
  }
}
