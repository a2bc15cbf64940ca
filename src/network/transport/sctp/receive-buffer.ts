import type { InboundMessage } from '../n2-transport.ts';
import type { DataChunk, GapBlock } from './chunks.ts';
import { CHUNK_OVERHEAD } from './sctp-config.ts';
import { ssnLt, tsnAdd, tsnDiff, tsnLte } from './serial-number.ts';

/**
 * The receiving half of an association (RFC 9260 6.2, 6.5, 6.6, 6.9): which TSNs arrived (cumulative
 * ack point, gaps, duplicates), reassembly of fragmented messages, and in-order delivery per stream.
 * Everything it holds is charged to a fixed window, which it advertises as a_rwnd.
 */

interface Fragment {
  streamId: number;
  ssn: number;
  ppid: number;
  unordered: boolean;
  beginning: boolean;
  ending: boolean;
  data: Uint8Array;
}

interface InboundStream {
  nextSsn: number;
  /** Complete ordered messages waiting for an earlier SSN. */
  waiting: Map<number, InboundMessage>;
}

type ReceiveOutcome =
  | 'accepted'
  | 'duplicate'
  /** No room (window or bookkeeping): dropped without being acknowledged, the peer retransmits. */
  | 'dropped'
  /** RFC 9260 6.5: acknowledged and discarded; the caller reports Invalid Stream Identifier. */
  | 'invalid-stream'
  /** A message longer than the limit, or fragments that contradict each other: abort. */
  | 'violation';

const MAX_DUPLICATES_REPORTED = 16;

/** Whether fragment g (if any) belongs to the same message as f. */
function sameMessage(f: Fragment, g: Fragment | undefined): g is Fragment {
  return (
    g !== undefined &&
    g.streamId === f.streamId &&
    g.unordered === f.unordered &&
    (f.unordered || g.ssn === f.ssn)
  );
}

/**
 * The user data to hold or deliver. Links hand their packets over (PacketReceiver), so a view of the
 * packet is kept when the chunk fills at least half of the memory the view keeps alive; a small chunk
 * of a large packet is copied (from Node's pool), so that what is held never pins more than twice what
 * the window is charged for it.
 */
function keep(userData: Uint8Array): Uint8Array {
  return userData.length * 2 >= userData.buffer.byteLength ? userData : Buffer.from(userData);
}
const MAX_GAP_BLOCKS = 64;

export class ReceiveBuffer {
  /** The last TSN received in sequence (the Cumulative TSN Ack). */
  cumulativeTsn: number;
  readonly #window: number;
  readonly #maxMessageSize: number;
  readonly #maxAbove: number;
  readonly #inboundStreams: number;
  /** TSNs received above `cumulativeTsn`. */
  readonly #above = new Set<number>();
  readonly #fragments = new Map<number, Fragment>();
  readonly #streams = new Map<number, InboundStream>();
  #duplicates: number[] = [];
  #held = 0;
  /** The highest TSN received (for "is there a gap"). */
  #highest: number;

  constructor(
    peerInitialTsn: number,
    inboundStreams: number,
    limits: { receiveWindow: number; maxMessageSize: number; maxOutOfOrderTsns: number },
  ) {
    this.cumulativeTsn = tsnAdd(peerInitialTsn, -1);
    this.#highest = this.cumulativeTsn;
    this.#inboundStreams = inboundStreams;
    this.#window = limits.receiveWindow;
    this.#maxMessageSize = limits.maxMessageSize;
    this.#maxAbove = limits.maxOutOfOrderTsns;
  }

  /** a_rwnd: the window left after what is held. */
  get advertisedWindow(): number {
    return Math.max(0, this.#window - this.#held);
  }

  get heldBytes(): number {
    return this.#held;
  }

  /** True when TSNs are missing below the highest received, or duplicates await reporting. */
  get needsImmediateSack(): boolean {
    return this.#above.size > 0 || this.#duplicates.length > 0;
  }

  /** Takes one DATA chunk; complete messages in deliverable order are pushed to `deliver`. */
  receive(chunk: DataChunk, deliver: InboundMessage[]): ReceiveOutcome {
    const { tsn } = chunk;
    if (tsnLte(tsn, this.cumulativeTsn) || this.#above.has(tsn)) {
      if (this.#duplicates.length < MAX_DUPLICATES_REPORTED) this.#duplicates.push(tsn);
      return 'duplicate';
    }
    const offset = tsnDiff(tsn, this.cumulativeTsn);
    // Gap blocks carry 16-bit offsets; a TSN further ahead cannot be reported, so it is not taken.
    if (offset > 0xffff) return 'dropped';
    const cost = chunk.userData.length + CHUNK_OVERHEAD;
    const inSequence = offset === 1;
    // RFC 9260 6.2: with no window left, drop; the next TSN in sequence is still taken (up to twice the
    // window) so that a full buffer of fragments waiting for it cannot stall the association.
    if (this.#held + cost > this.#window * (inSequence ? 2 : 1)) return 'dropped';
    if (!inSequence && this.#above.size >= this.#maxAbove) return 'dropped';

    this.#mark(tsn);
    if (chunk.streamId >= this.#inboundStreams) return 'invalid-stream';
    const fragment: Fragment = {
      streamId: chunk.streamId,
      ssn: chunk.ssn,
      ppid: chunk.ppid,
      unordered: chunk.unordered,
      beginning: chunk.beginning,
      ending: chunk.ending,
      data: keep(chunk.userData),
    };
    if (fragment.beginning && fragment.ending) {
      this.#complete(
        {
          streamId: fragment.streamId,
          ppid: fragment.ppid,
          payload: fragment.data,
          unordered: fragment.unordered,
        },
        fragment.ssn,
        deliver,
      );
      return 'accepted';
    }
    this.#fragments.set(tsn, fragment);
    this.#held += cost;
    return this.#reassemble(tsn, deliver);
  }

  /** The SACK's contents (RFC 9260 3.3.4), and forgets the duplicates it reports. */
  takeSack(): { cumulativeTsnAck: number; aRwnd: number; gaps: GapBlock[]; duplicates: number[] } {
    const gaps: GapBlock[] = [];
    if (this.#above.size > 0) {
      const offsets = Array.from(this.#above, (t) => tsnDiff(t, this.cumulativeTsn)).sort((a, b) => a - b);
      let start = offsets[0]!;
      let end = start;
      for (let i = 1; i <= offsets.length && gaps.length < MAX_GAP_BLOCKS; i++) {
        const o = offsets[i];
        if (o === end + 1) {
          end = o;
          continue;
        }
        gaps.push({ start, end });
        if (o !== undefined) start = end = o;
      }
    }
    const duplicates = this.#duplicates;
    this.#duplicates = [];
    return { cumulativeTsnAck: this.cumulativeTsn, aRwnd: this.advertisedWindow, gaps, duplicates };
  }

  #mark(tsn: number): void {
    if (tsn === tsnAdd(this.cumulativeTsn, 1)) {
      this.cumulativeTsn = tsn;
      let next = tsnAdd(tsn, 1);
      while (this.#above.delete(next)) {
        this.cumulativeTsn = next;
        next = tsnAdd(next, 1);
      }
    } else {
      this.#above.add(tsn);
    }
    if (tsnLte(this.#highest, tsn)) this.#highest = tsn;
  }

  /** Fragments of one message have consecutive TSNs (RFC 9260 6.9): look for its B and E around `tsn`. */
  #reassemble(tsn: number, deliver: InboundMessage[]): ReceiveOutcome {
    const f = this.#fragments.get(tsn)!;
    let first = tsn;
    let size = f.data.length;
    while (!this.#fragments.get(first)!.beginning) {
      const previous = this.#fragments.get(tsnAdd(first, -1));
      if (!sameMessage(f, previous) || previous.ending) break;
      first = tsnAdd(first, -1);
      size += previous.data.length;
    }
    let last = tsn;
    while (!this.#fragments.get(last)!.ending) {
      const next = this.#fragments.get(tsnAdd(last, 1));
      if (!sameMessage(f, next) || next.beginning) break;
      last = tsnAdd(last, 1);
      size += next.data.length;
    }
    if (size > this.#maxMessageSize) return 'violation';
    if (!this.#fragments.get(first)!.beginning || !this.#fragments.get(last)!.ending) return 'accepted';
    const payload = Buffer.allocUnsafe(size);
    let offset = 0;
    for (let t = first; ; t = tsnAdd(t, 1)) {
      const g = this.#fragments.get(t)!;
      payload.set(g.data, offset);
      offset += g.data.length;
      this.#fragments.delete(t);
      this.#held -= g.data.length + CHUNK_OVERHEAD;
      if (t === last) break;
    }
    this.#complete({ streamId: f.streamId, ppid: f.ppid, payload, unordered: f.unordered }, f.ssn, deliver);
    return 'accepted';
  }

  #complete(message: InboundMessage, ssn: number, deliver: InboundMessage[]): void {
    if (message.unordered) {
      deliver.push(message);
      return;
    }
    let stream = this.#streams.get(message.streamId);
    if (stream === undefined) {
      stream = { nextSsn: 0, waiting: new Map() };
      this.#streams.set(message.streamId, stream);
    }
    // An SSN already delivered with a new TSN cannot be a retransmission: the peer is confused; drop it.
    if (ssnLt(ssn, stream.nextSsn) || stream.waiting.has(ssn)) return;
    if (ssn !== stream.nextSsn) {
      stream.waiting.set(ssn, message);
      this.#held += message.payload.length + CHUNK_OVERHEAD;
      return;
    }
    deliver.push(message);
    stream.nextSsn = (ssn + 1) & 0xffff;
    for (
      let next = stream.waiting.get(stream.nextSsn);
      next !== undefined;
      next = stream.waiting.get(stream.nextSsn)
    ) {
      stream.waiting.delete(stream.nextSsn);
      this.#held -= next.payload.length + CHUNK_OVERHEAD;
      deliver.push(next);
      stream.nextSsn = (stream.nextSsn + 1) & 0xffff;
    }
  }
}
