/**
 * Joins the pieces in which the kernel delivers a user message larger than the addon's receive
 * buffer (RFC 6458 section 8.1.21: partial delivery; a piece without MSG_EOR is followed by the rest
 * of the same message). Pieces are keyed by association: without SCTP_FRAGMENT_INTERLEAVE, Linux
 * delivers one message at a time per socket, so keys never interleave within one, but keying costs
 * nothing and keeps associations apart. A message over `maxMessageSize` is refused, not buffered.
 */

type AssemblyResult =
  { kind: 'partial' } | { kind: 'message'; payload: Uint8Array } | { kind: 'too-large'; size: number };

interface Pending {
  pieces: Uint8Array[];
  size: number;
}

export class MessageAssembler {
  readonly #pending = new Map<number, Pending>();

  constructor(readonly maxMessageSize: number) {}

  add(key: number, piece: Uint8Array, complete: boolean): AssemblyResult {
    const pending = this.#pending.get(key);
    const size = (pending?.size ?? 0) + piece.length;
    if (size > this.maxMessageSize) {
      this.#pending.delete(key);
      return { kind: 'too-large', size };
    }
    if (!complete) {
      if (pending === undefined) this.#pending.set(key, { pieces: [piece], size });
      else {
        pending.pieces.push(piece);
        pending.size = size;
      }
      return { kind: 'partial' };
    }
    if (pending === undefined) return { kind: 'message', payload: piece };
    this.#pending.delete(key);
    pending.pieces.push(piece);
    return { kind: 'message', payload: Buffer.concat(pending.pieces, size) };
  }

  /** Forgets a partial message (the association restarted or ended). */
  drop(key: number): void {
    this.#pending.delete(key);
  }
}
