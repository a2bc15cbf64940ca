/**
 * SCTP chunks and parameters (RFC 9260 3.2, 3.3): type numbers, the decoders of the chunks this stack
 * understands and the encoders of those it sends. Decoders take untrusted bytes and return a result
 * value; they never throw and never allocate more than the input's size.
 */

export const ChunkType = {
  DATA: 0,
  INIT: 1,
  INIT_ACK: 2,
  SACK: 3,
  HEARTBEAT: 4,
  HEARTBEAT_ACK: 5,
  ABORT: 6,
  SHUTDOWN: 7,
  SHUTDOWN_ACK: 8,
  ERROR: 9,
  COOKIE_ECHO: 10,
  COOKIE_ACK: 11,
  SHUTDOWN_COMPLETE: 14,
} as const;

export const ParamType = {
  HEARTBEAT_INFO: 1,
  IPV4_ADDRESS: 5,
  IPV6_ADDRESS: 6,
  STATE_COOKIE: 7,
  UNRECOGNIZED_PARAMETER: 8,
  COOKIE_PRESERVATIVE: 9,
  HOST_NAME_ADDRESS: 11,
  SUPPORTED_ADDRESS_TYPES: 12,
} as const;

/** Error cause codes (RFC 9260 3.3.10). */
export const Cause = {
  INVALID_STREAM_IDENTIFIER: 1,
  MISSING_MANDATORY_PARAMETER: 2,
  STALE_COOKIE: 3,
  OUT_OF_RESOURCE: 4,
  UNRESOLVABLE_ADDRESS: 5,
  UNRECOGNIZED_CHUNK_TYPE: 6,
  INVALID_MANDATORY_PARAMETER: 7,
  UNRECOGNIZED_PARAMETERS: 8,
  NO_USER_DATA: 9,
  COOKIE_WHILE_SHUTTING_DOWN: 10,
  RESTART_WITH_NEW_ADDRESSES: 11,
  USER_INITIATED_ABORT: 12,
  PROTOCOL_VIOLATION: 13,
} as const;

const CAUSE_NAMES: Record<number, string> = {
  1: 'Invalid Stream Identifier',
  2: 'Missing Mandatory Parameter',
  3: 'Stale Cookie Error',
  4: 'Out of Resource',
  5: 'Unresolvable Address',
  6: 'Unrecognized Chunk Type',
  7: 'Invalid Mandatory Parameter',
  8: 'Unrecognized Parameters',
  9: 'No User Data',
  10: 'Cookie Received While Shutting Down',
  11: 'Restart of an Association with New Addresses',
  12: 'User-Initiated Abort',
  13: 'Protocol Violation',
};

/** DATA chunk flags (RFC 9260 3.3.1). */
export const DataFlag = { END: 1, BEGINNING: 2, UNORDERED: 4, IMMEDIATE: 8 } as const;
/** The T bit of ABORT and SHUTDOWN COMPLETE: the verification tag is the sender's own, reflected. */
export const T_BIT = 1;

export const COMMON_HEADER_SIZE = 12;
export const CHUNK_HEADER_SIZE = 4;

export type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

const fail = (error: string): { ok: false; error: string } => ({ ok: false, error });

/** A chunk as framed in a packet: `value` is the bytes after the chunk header, without padding. */
export interface RawChunk {
  type: number;
  flags: number;
  value: Uint8Array;
}

interface Parameter {
  type: number;
  value: Uint8Array;
  /** The whole parameter (header and value, no padding), for reporting it back as unrecognised. */
  raw: Uint8Array;
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Splits a run of TLV parameters (or error causes: same framing). */
export function decodeParameters(bytes: Uint8Array, limit = 64): Decoded<Parameter[]> {
  const params: Parameter[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes.length - offset < 4) return fail('truncated parameter header');
    const type = (bytes[offset]! << 8) | bytes[offset + 1]!;
    const length = (bytes[offset + 2]! << 8) | bytes[offset + 3]!;
    if (length < 4 || offset + length > bytes.length)
      return fail(`parameter ${type} has bad length ${length}`);
    if (params.length === limit) return fail('too many parameters');
    params.push({
      type,
      value: bytes.subarray(offset + 4, offset + length),
      raw: bytes.subarray(offset, offset + length),
    });
    offset += (length + 3) & ~3;
  }
  return { ok: true, value: params };
}

export interface DataChunk {
  tsn: number;
  streamId: number;
  ssn: number;
  ppid: number;
  userData: Uint8Array;
  unordered: boolean;
  beginning: boolean;
  ending: boolean;
  /** The I bit (RFC 9260 3.3.1): the sender asks for an immediate SACK. */
  immediate: boolean;
}

export function decodeData(chunk: RawChunk): Decoded<DataChunk> {
  const v = chunk.value;
  if (v.length < 12) return fail('DATA shorter than its header');
  if (v.length === 12) return fail('DATA without user data');
  const d = view(v);
  return {
    ok: true,
    value: {
      tsn: d.getUint32(0),
      streamId: d.getUint16(4),
      ssn: d.getUint16(6),
      ppid: d.getUint32(8),
      userData: v.subarray(12),
      unordered: (chunk.flags & DataFlag.UNORDERED) !== 0,
      beginning: (chunk.flags & DataFlag.BEGINNING) !== 0,
      ending: (chunk.flags & DataFlag.END) !== 0,
      immediate: (chunk.flags & DataFlag.IMMEDIATE) !== 0,
    },
  };
}

/** INIT and INIT ACK share their fixed part (RFC 9260 3.3.2, 3.3.3). */
export interface InitChunk {
  initiateTag: number;
  aRwnd: number;
  outboundStreams: number;
  inboundStreams: number;
  initialTsn: number;
  params: Parameter[];
}

export function decodeInit(chunk: RawChunk): Decoded<InitChunk> {
  const v = chunk.value;
  if (v.length < 16) return fail('INIT shorter than its fixed part');
  const d = view(v);
  const params = decodeParameters(v.subarray(16));
  if (!params.ok) return params;
  const init = {
    initiateTag: d.getUint32(0),
    aRwnd: d.getUint32(4),
    outboundStreams: d.getUint16(8),
    inboundStreams: d.getUint16(10),
    initialTsn: d.getUint32(12),
    params: params.value,
  };
  // RFC 9260 3.3.2: a zero tag or zero stream count is an invalid mandatory parameter.
  if (init.initiateTag === 0) return fail('Initiate Tag is 0');
  if (init.outboundStreams === 0 || init.inboundStreams === 0) return fail('a stream count is 0');
  return { ok: true, value: init };
}

export interface GapBlock {
  /** Offsets from the cumulative TSN ack, inclusive. */
  start: number;
  end: number;
}

export interface SackChunk {
  cumulativeTsnAck: number;
  aRwnd: number;
  gaps: GapBlock[];
  duplicates: number;
}

export function decodeSack(chunk: RawChunk): Decoded<SackChunk> {
  const v = chunk.value;
  if (v.length < 12) return fail('SACK shorter than its fixed part');
  const d = view(v);
  const gapCount = d.getUint16(8);
  const dupCount = d.getUint16(10);
  if (v.length < 12 + 4 * gapCount + 4 * dupCount) return fail('SACK shorter than its blocks');
  const gaps: GapBlock[] = [];
  for (let i = 0; i < gapCount; i++) {
    const start = d.getUint16(12 + 4 * i);
    const end = d.getUint16(14 + 4 * i);
    if (start === 0 || end < start) return fail('SACK gap block out of order');
    gaps.push({ start, end });
  }
  return {
    ok: true,
    value: { cumulativeTsnAck: d.getUint32(0), aRwnd: d.getUint32(4), gaps, duplicates: dupCount },
  };
}

export function decodeCumulativeTsn(chunk: RawChunk): Decoded<number> {
  if (chunk.value.length !== 4) return fail('SHUTDOWN length is not 8');
  return { ok: true, value: view(chunk.value).getUint32(0) };
}

/** Error causes of an ABORT or ERROR chunk, as text (`Protocol Violation: ...`). */
export function describeCauses(chunk: RawChunk): string | undefined {
  const causes = decodeParameters(chunk.value, 16);
  if (!causes.ok || causes.value.length === 0) return undefined;
  return causes.value
    .map((c) => {
      const name = CAUSE_NAMES[c.type] ?? `cause ${c.type}`;
      const textual = c.type === Cause.USER_INITIATED_ABORT || c.type === Cause.PROTOCOL_VIOLATION;
      const detail =
        textual && c.value.length > 0 ? `: ${new TextDecoder().decode(c.value.subarray(0, 256))}` : '';
      return name + detail;
    })
    .join('; ');
}

export function causeCodes(chunk: RawChunk): number[] {
  const causes = decodeParameters(chunk.value, 16);
  return causes.ok ? causes.value.map((c) => c.type) : [];
}

// ----- encoders -----

/** A chunk's bytes with its header; the caller pads when bundling (see PacketBuilder). */
export function encodeChunk(type: number, flags: number, value: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(4 + value.length);
  out[0] = type;
  out[1] = flags;
  out[2] = out.length >>> 8;
  out[3] = out.length & 0xff;
  out.set(value, 4);
  return out;
}

/** One TLV parameter or error cause, padded to a multiple of 4. */
export function encodeParameter(type: number, value: Uint8Array): Uint8Array {
  const length = 4 + value.length;
  const out = new Uint8Array((length + 3) & ~3);
  out[0] = type >>> 8;
  out[1] = type & 0xff;
  out[2] = length >>> 8;
  out[3] = length & 0xff;
  out.set(value, 4);
  return out;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function encodeInit(
  type: 1 | 2,
  init: Omit<InitChunk, 'params'>,
  params: readonly Uint8Array[],
): Uint8Array {
  const fixed = new Uint8Array(16);
  const d = view(fixed);
  d.setUint32(0, init.initiateTag);
  d.setUint32(4, init.aRwnd);
  d.setUint16(8, init.outboundStreams);
  d.setUint16(10, init.inboundStreams);
  d.setUint32(12, init.initialTsn);
  return encodeChunk(type, 0, concat([fixed, ...params]));
}

export function encodeSack(
  cumulativeTsnAck: number,
  aRwnd: number,
  gaps: readonly GapBlock[],
  dups: readonly number[],
) {
  const value = new Uint8Array(12 + 4 * gaps.length + 4 * dups.length);
  const d = view(value);
  d.setUint32(0, cumulativeTsnAck);
  d.setUint32(4, aRwnd);
  d.setUint16(8, gaps.length);
  d.setUint16(10, dups.length);
  let o = 12;
  for (const g of gaps) {
    d.setUint16(o, g.start);
    d.setUint16(o + 2, g.end);
    o += 4;
  }
  for (const t of dups) {
    d.setUint32(o, t);
    o += 4;
  }
  return encodeChunk(ChunkType.SACK, 0, value);
}

export function encodeCumulativeTsn(type: 7, tsn: number): Uint8Array {
  const value = new Uint8Array(4);
  view(value).setUint32(0, tsn);
  return encodeChunk(type, 0, value);
}

export function encodeCause(code: number, detail: Uint8Array = new Uint8Array(0)): Uint8Array {
  return encodeParameter(code, detail);
}

export function encodeTextCause(code: 12 | 13, text: string): Uint8Array {
  return encodeCause(code, new TextEncoder().encode(text.slice(0, 200)));
}

/** The 4-byte value of an Invalid Stream Identifier cause: the stream id and 2 reserved bytes. */
export function invalidStreamCause(streamId: number): Uint8Array {
  return encodeCause(
    Cause.INVALID_STREAM_IDENTIFIER,
    new Uint8Array([streamId >>> 8, streamId & 0xff, 0, 0]),
  );
}

export function encodeIpAddressParam(address: string): Uint8Array | undefined {
  const bytes = ipToBytes(address);
  if (bytes === undefined) return undefined;
  return encodeParameter(bytes.length === 4 ? ParamType.IPV4_ADDRESS : ParamType.IPV6_ADDRESS, bytes);
}

export function ipToBytes(address: string): Uint8Array | undefined {
  if (address.includes(':')) return ipv6ToBytes(address);
  const parts = address.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const n = Number(parts[i]);
    if (!Number.isInteger(n) || n < 0 || n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function ipv6ToBytes(address: string): Uint8Array | undefined {
  const [head, tail, extra] = address.split('::');
  if (extra !== undefined) return undefined;
  const groups = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = groups(tail);
  const words: number[] = [];
  const push = (list: string[]) => {
    for (const g of list) {
      if (g.includes('.')) {
        const v4 = ipToBytes(g);
        if (v4 === undefined) return false;
        words.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return false;
        words.push(parseInt(g, 16));
      }
    }
    return true;
  };
  if (!push(h)) return undefined;
  const before = words.length;
  if (!push(t)) return undefined;
  const missing = 8 - words.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  words.splice(before, 0, ...new Array<number>(tail === undefined ? 0 : missing).fill(0));
  const out = new Uint8Array(16);
  words.forEach((w, i) => {
    out[2 * i] = w >>> 8;
    out[2 * i + 1] = w & 0xff;
  });
  return out;
}

export function bytesToIp(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join('.');
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  // Canonical text (RFC 5952): the longest run of two or more zero groups becomes '::'.
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (words[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === '0') j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (best < 0) return words.join(':');
  return `${words.slice(0, best).join(':')}::${words.slice(best + bestLength).join(':')}`;
}
