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
  try {
    return { ok: true, value: decode(new PerReader(bytes, aligned)) };
  } catch (error) {
    if (error instanceof PerError) return { ok: false, error: error.message };
    return { ok: false, error: `undecodable: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The complete PER encoding of a value; throws PerError when the value breaks its constraints. */
export function encodeComplete<T>(
  value: T,
  aligned: boolean,
  encode: (w: PerWriter, value: T) => void,
): Uint8Array {
  const w = new PerWriter(aligned);
  encode(w, value);
  return w.finish();
}
