import { PerError, PerReader } from './per-reader.ts';
import { PerWriter } from './per-writer.ts';

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Decodes a complete PER encoding (X.691 10.1) of one value. Never throws: a malformed input, or any
 * failure while decoding it (e.g. a recursion limit), becomes an error value.
 */
export function decodeComplete<T>(
  bytes: Uint8Array,
  aligned: boolean,
  decode: (r: PerReader) => T,
): DecodeResult<T> {
  // Refusing hostile input is the common case under attack: skip capturing stack traces meanwhile.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return { ok: true, value: decode(new PerReader(bytes, aligned)) };
  } catch (error) {
    if (error instanceof PerError) return { ok: false, error: error.message };
    return { ok: false, error: `undecodable: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** One idle writer per variant, reused by top-level encodes (its open-type children are pooled too). */
const idle: { aligned: PerWriter | undefined; unaligned: PerWriter | undefined } = {
  aligned: undefined,
  unaligned: undefined,
};

/** The complete PER encoding of a value; throws PerError when the value breaks its constraints. */
export function encodeComplete<T>(
  value: T,
  aligned: boolean,
  encode: (w: PerWriter, value: T) => void,
): Uint8Array {
  const variant = aligned ? 'aligned' : 'unaligned';
  // Taken while in use, so an encode inside another (none does today) gets a fresh writer.
  const w = idle[variant] ?? new PerWriter(aligned);
  idle[variant] = undefined;
  try {
    w.reset();
    encode(w, value);
    return w.finish();
  } finally {
    idle[variant] = w;
  }
}
