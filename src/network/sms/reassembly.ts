// Reassembly of concatenated short messages (TS 23.040 9.2.3.24.1): parts are held per originator,
// reference and total until all have come. Memory is bounded: at most `maxMessages` incomplete messages
// and `maxBytes` of held content (the oldest message is dropped to make room) and each message expires
// `timeoutMs` after its first part. A part already held, or one of a message completed within the
// timeout (a loop resending it), is refused.
import type { Concatenation } from './user-data.ts';

export type PartContent = string | Uint8Array;

export type ReassemblyResult =
  | { status: 'complete'; content: PartContent }
  | { status: 'pending'; received: number; total: number }
  | { status: 'refused'; reason: string };

export interface ReassemblerLimits {
  maxMessages: number;
  maxBytes: number;
  timeoutMs: number;
}

export const DEFAULT_REASSEMBLY_LIMITS: ReassemblerLimits = {
  maxMessages: 1000,
  maxBytes: 4 * 1024 * 1024,
  timeoutMs: 10 * 60_000,
};

interface Pending {
  firstAt: number;
  total: number;
  parts: (PartContent | undefined)[];
  received: number;
  bytes: number;
}

const sizeOf = (content: PartContent): number =>
  typeof content === 'string' ? content.length * 2 : content.length;

function join(parts: readonly PartContent[]): PartContent | undefined {
  if (parts.every((part) => typeof part === 'string')) return parts.join('');
  if (!parts.every((part) => part instanceof Uint8Array)) return undefined;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export class SmsReassembler {
  private readonly pending = new Map<string, Pending>();
  /** Completed keys and when they completed, oldest first, to refuse a loop's resent parts. */
  private readonly completed = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly limits: ReassemblerLimits = DEFAULT_REASSEMBLY_LIMITS) {}

  /** Messages waiting for parts, and the content they hold (for metrics and tests). */
  get size(): { messages: number; bytes: number } {
    return { messages: this.pending.size, bytes: this.bytes };
  }

  /** Adds the part `concat` describes from `originator`, received at `now` (ms, an injected clock). */
  add(originator: string, concat: Concatenation, content: PartContent, now: number): ReassemblyResult {
    this.expire(now);
    const { total, sequence } = concat;
    if (total < 1 || total > 255 || sequence < 1 || sequence > total)
      return { status: 'refused', reason: 'sequence number outside 1..total' };
    const size = sizeOf(content);
    if (size > this.limits.maxBytes)
      return { status: 'refused', reason: 'part larger than the reassembly memory' };
    const key = `${originator}\u0000${concat.referenceBits}:${concat.reference}:${total}`;
    if (this.completed.has(key))
      return { status: 'refused', reason: 'part of a message already reassembled' };
    let entry = this.pending.get(key);
    if (entry?.parts[sequence - 1] !== undefined) return { status: 'refused', reason: 'duplicate part' };
    if (entry === undefined) {
      while (this.pending.size >= this.limits.maxMessages) this.dropOldest();
      entry = {
        firstAt: now,
        total,
        parts: new Array<PartContent | undefined>(total),
        received: 0,
        bytes: 0,
      };
      this.pending.set(key, entry);
    }
    while (this.bytes + size > this.limits.maxBytes) {
      const oldest = this.pending.keys().next().value;
      if (oldest === undefined || oldest === key) break;
      this.dropOldest();
    }
    if (this.bytes + size > this.limits.maxBytes) {
      this.remove(key);
      return { status: 'refused', reason: 'reassembly memory full' };
    }
    entry.parts[sequence - 1] = content;
    entry.received++;
    entry.bytes += size;
    this.bytes += size;
    if (entry.received < total) return { status: 'pending', received: entry.received, total };
    this.remove(key);
    this.completed.set(key, now);
    const joined = join(entry.parts as PartContent[]);
    if (joined === undefined) return { status: 'refused', reason: 'parts mix text and octets' };
    return { status: 'complete', content: joined };
  }

  /** Drops incomplete messages and completion records older than the timeout. */
  expire(now: number): void {
    for (const [key, entry] of this.pending) {
      if (now - entry.firstAt < this.limits.timeoutMs) break;
      this.remove(key);
    }
    for (const [key, at] of this.completed) {
      if (now - at < this.limits.timeoutMs && this.completed.size <= this.limits.maxMessages) break;
      this.completed.delete(key);
    }
  }

  private dropOldest(): void {
    const oldest = this.pending.keys().next().value;
    if (oldest !== undefined) this.remove(oldest);
  }

  private remove(key: string): void {
    const entry = this.pending.get(key);
    if (entry === undefined) return;
    this.bytes -= entry.bytes;
    this.pending.delete(key);
  }
}
