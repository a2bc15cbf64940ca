/**
 * Error causes (RFC 9260 section 3.3.10) as the kernel hands them over in an SCTP_COMM_LOST
 * notification after the peer's ABORT: turned into the human-readable `cause` of the N2 transport's
 * `communication-lost` event. The bytes come from the peer, so decoding returns an error value and
 * never throws.
 */

/** RFC 9260 section 3.3.10, Table 18. */
const CAUSE_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'Invalid Stream Identifier'],
  [2, 'Missing Mandatory Parameter'],
  [3, 'Stale Cookie Error'],
  [4, 'Out of Resource'],
  [5, 'Unresolvable Address'],
  [6, 'Unrecognized Chunk Type'],
  [7, 'Invalid Mandatory Parameter'],
  [8, 'Unrecognized Parameters'],
  [9, 'No User Data'],
  [10, 'Cookie Received While Shutting Down'],
  [11, 'Restart of an Association with New Addresses'],
  [12, 'User-Initiated Abort'],
  [13, 'Protocol Violation'],
]);

/** Causes whose value is text for people: the Upper Layer Abort Reason and Additional Information. */
const TEXT_CAUSES = new Set([12, 13]);

const MAX_CAUSES = 16;
const MAX_TEXT = 200;

interface ErrorCause {
  code: number;
  name: string;
  /** The value of a User-Initiated Abort or Protocol Violation cause, as text. */
  text?: string;
}

type ErrorCausesResult = { ok: true; causes: ErrorCause[] } | { ok: false; error: string };

export function decodeErrorCauses(bytes: Uint8Array): ErrorCausesResult {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const causes: ErrorCause[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (causes.length === MAX_CAUSES) return { ok: false, error: `more than ${MAX_CAUSES} error causes` };
    if (offset + 4 > bytes.length) return { ok: false, error: 'truncated error cause header' };
    const code = view.getUint16(offset);
    const length = view.getUint16(offset + 2);
    // The Cause Length covers the 4-byte header and the value, not the padding (3.3.10).
    if (length < 4 || offset + length > bytes.length) {
      return { ok: false, error: `error cause ${code} has a bad length ${length}` };
    }
    const cause: ErrorCause = { code, name: CAUSE_NAMES.get(code) ?? `cause ${code}` };
    if (TEXT_CAUSES.has(code) && length > 4) {
      cause.text = printable(bytes.subarray(offset + 4, offset + length));
    }
    causes.push(cause);
    offset += (length + 3) & ~3;
  }
  return { ok: true, causes };
}

/** One line for people: "User-Initiated Abort: bye; Protocol Violation". */
export function describeErrorCauses(bytes: Uint8Array): string {
  const result = decodeErrorCauses(bytes);
  if (!result.ok) return `malformed error causes (${result.error})`;
  return result.causes.map((c) => (c.text === undefined ? c.name : `${c.name}: ${c.text}`)).join('; ');
}

function printable(value: Uint8Array): string {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(value.subarray(0, MAX_TEXT));
  // Control characters from a peer do not belong in logs.
  return Array.from(text, (c) => (c.charCodeAt(0) < 0x20 || c === '\u007f' ? '?' : c)).join('');
}
