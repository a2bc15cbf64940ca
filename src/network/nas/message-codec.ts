// The generic codec of plain NAS messages (TS 24.501 8.1, TS 24.007 11.2): a header, then the IEs in
// the order of the message's table. Mandatory IEs have no IEI and come first; optional ones are found
// by their IEI. Decoding never throws: it returns what it decoded with errors classified as section 7
// says (see decode-error.ts).
import { InvalidIeValue } from './ie-codec.ts';
import type { AnyEntry, IesOf, MessageDefinition, OptionalEntry } from './ie-table.ts';
import { nasError, type NasError } from './decode-error.ts';
import { FIVEGMM_MESSAGES } from './messages-5gmm.ts';
import { FIVEGSM_MESSAGES } from './messages-5gsm.ts';

/** Extended protocol discriminators, TS 24.007 11.2.3.1.1A. */
export const EPD = { fiveGmm: 0x7e, fiveGsm: 0x2e } as const;

type MmDefinitions = typeof FIVEGMM_MESSAGES;
type SmDefinitions = typeof FIVEGSM_MESSAGES;

type FiveGmmMessageType = keyof MmDefinitions;
type FiveGsmMessageType = keyof SmDefinitions;
export type NasMessageType = FiveGmmMessageType | FiveGsmMessageType;

export type FiveGmmMessage = {
  [K in FiveGmmMessageType]: { messageType: K } & IesOf<MmDefinitions[K]['ies']>;
}[FiveGmmMessageType];

export type FiveGsmMessage = {
  [K in FiveGsmMessageType]: {
    messageType: K;
    /** PDU session identity (octet 2, TS 24.007 11.2.3.1b). */
    pduSessionId: number;
    /** Procedure transaction identity (octet 3, TS 24.007 11.2.3.1a). */
    pti: number;
  } & IesOf<SmDefinitions[K]['ies']>;
}[FiveGsmMessageType];

/** A plain 5GMM or 5GSM message, typed from its table. */
export type NasMessage = FiveGmmMessage | FiveGsmMessage;

/** The message of one type, e.g. `NasMessageOf<'registrationRequest'>`. */
export type NasMessageOf<K extends NasMessageType> = Extract<NasMessage, { messageType: K }>;

/** What a decoder could make of a message: all of it, or a fatal error and the part decoded before it. */
export type NasDecodeResult =
  | { ok: true; message: NasMessage; errors: NasError[] }
  | {
      ok: false;
      error: NasError;
      errors: NasError[];
      partial?: { messageType: NasMessageType } & Record<string, unknown>;
    };

interface Compiled {
  name: NasMessageType;
  epd: number;
  definition: MessageDefinition;
  mandatory: readonly AnyEntry[];
  /** Optional and conditional entries by IEI, with their position in the table. */
  byIei: Map<number, { entry: OptionalEntry<string, unknown>; index: number }>;
  /** Half-octet TV entries by the value of bits 8-5. */
  byHalfIei: Map<number, { entry: OptionalEntry<string, unknown>; index: number }>;
}

function compile(epd: number, definitions: Record<string, MessageDefinition>): Map<number, Compiled> {
  const byType = new Map<number, Compiled>();
  for (const [name, definition] of Object.entries(definitions)) {
    const compiled: Compiled = {
      name: name as NasMessageType,
      epd,
      definition,
      mandatory: definition.ies.filter((entry) => entry.presence === 'M' || entry.presence === 'spare'),
      byIei: new Map(),
      byHalfIei: new Map(),
    };
    definition.ies.forEach((entry, index) => {
      if (entry.presence !== 'O' && entry.presence !== 'C') return;
      (entry.half ? compiled.byHalfIei : compiled.byIei).set(entry.iei, { entry, index });
    });
    byType.set(definition.type, compiled);
  }
  return byType;
}

const MM_BY_TYPE = compile(EPD.fiveGmm, FIVEGMM_MESSAGES);
const SM_BY_TYPE = compile(EPD.fiveGsm, FIVEGSM_MESSAGES);
const BY_NAME = new Map<string, Compiled>(
  [...MM_BY_TYPE.values(), ...SM_BY_TYPE.values()].map((c) => [c.name, c]),
);

export const FIVEGMM_HEADER_LENGTH = 3;
const FIVEGSM_HEADER_LENGTH = 4;

/** The table of a message type, e.g. for its title. */
export function messageDefinition(messageType: NasMessageType): MessageDefinition {
  const compiled = BY_NAME.get(messageType);
  if (compiled === undefined) throw new RangeError(`unknown NAS message type ${messageType}`);
  return compiled.definition;
}

/** Every message type this codec knows. */
export function messageTypes(): NasMessageType[] {
  return [...BY_NAME.keys()] as NasMessageType[];
}

function decodeValue(
  entry: AnyEntry & { codec: unknown },
  value: Uint8Array,
): { ok: true; value: unknown } | { ok: false; detail: string } {
  try {
    const codec = (entry as OptionalEntry<string, unknown>).codec;
    if (codec.kind !== 'octets') return { ok: false, detail: 'half-octet codec on octets' };
    return { ok: true, value: codec.decode(value) };
  } catch (error) {
    // Value codecs signal bad contents with InvalidIeValue; anything else they throw on hostile
    // input is a defect, but must still not escape the codec.
    return {
      ok: false,
      detail: error instanceof InvalidIeValue ? error.message : `decoder failed: ${String(error)}`,
    };
  }
}

function decodeNibble(
  entry: OptionalEntry<string, unknown>,
  nibble: number,
): { ok: true; value: unknown } | { ok: false; detail: string } {
  try {
    if (entry.codec.kind !== 'half') return { ok: false, detail: 'octets codec on a half octet' };
    return { ok: true, value: entry.codec.decode(nibble) };
  } catch (error) {
    return {
      ok: false,
      detail: error instanceof InvalidIeValue ? error.message : `decoder failed: ${String(error)}`,
    };
  }
}

const LENGTH_OCTETS: Record<string, number> = { V: 0, LV: 1, 'LV-E': 2, TV: 0, TLV: 1, 'TLV-E': 2 };

function readLength(buffer: Uint8Array, offset: number, octets: number): number | undefined {
  if (offset + octets > buffer.length) return undefined;
  return octets === 1 ? (buffer[offset] ?? 0) : ((buffer[offset] ?? 0) << 8) | (buffer[offset + 1] ?? 0);
}

/**
 * The header of a plain 5GMM or 5GSM message (TS 24.501 9.2 EPD, 9.3 security header type 0, 9.7
 * message type; a 5GSM header also holds the PDU session id and PTI): the table of its message type,
 * or why it does not read.
 */
function plainHeader(
  buffer: Uint8Array,
): { ok: true; compiled: Compiled; headerLength: number } | { ok: false; error: NasError } {
  const epd = buffer[0];
  if (epd === undefined) return { ok: false, error: nasError('message-too-short', 0, 'empty message') };
  if (epd !== EPD.fiveGmm && epd !== EPD.fiveGsm) {
    const detail = `protocol discriminator 0x${epd.toString(16)}`;
    return { ok: false, error: nasError('unknown-protocol-discriminator', 0, detail) };
  }
  const headerLength = epd === EPD.fiveGmm ? FIVEGMM_HEADER_LENGTH : FIVEGSM_HEADER_LENGTH;
  if (buffer.length < headerLength)
    return { ok: false, error: nasError('message-too-short', 0, `${buffer.length} octets`) };
  if (epd === EPD.fiveGmm && ((buffer[1] ?? 0) & 0xf) !== 0) {
    const detail = 'security-protected message: use decodeNasPdu';
    return { ok: false, error: nasError('unknown-security-header-type', 1, detail) };
  }
  const type = buffer[headerLength - 1] ?? 0;
  const compiled = (epd === EPD.fiveGmm ? MM_BY_TYPE : SM_BY_TYPE).get(type);
  if (compiled === undefined) {
    const detail = `message type 0x${type.toString(16)}`;
    return { ok: false, error: nasError('unknown-message-type', headerLength - 1, detail) };
  }
  return { ok: true, compiled, headerLength };
}

/**
 * The message type of a plain 5GMM or 5GSM message read from its header alone, without decoding its
 * IEs (a radio event names its NAS message this way); undefined when the header does not read.
 */
export function plainMessageType(buffer: Uint8Array): NasMessageType | undefined {
  const header = plainHeader(buffer);
  return header.ok ? header.compiled.name : undefined;
}

/**
 * Decodes one plain 5GMM or 5GSM message occupying all of `buffer`. A 5GMM message with a security
 * header type other than 0 is not plain: decode it with decodeNasPdu.
 */
export function decodeNasMessage(buffer: Uint8Array): NasDecodeResult {
  const errors: NasError[] = [];
  const fail = (
    error: NasError,
    partial?: { messageType: NasMessageType } & Record<string, unknown>,
  ): NasDecodeResult => {
    errors.push(error);
    return partial === undefined ? { ok: false, error, errors } : { ok: false, error, errors, partial };
  };
  const header = plainHeader(buffer);
  if (!header.ok) return fail(header.error);
  const { compiled, headerLength } = header;

  const out: { messageType: NasMessageType } & Record<string, unknown> = { messageType: compiled.name };
  if (compiled.epd === EPD.fiveGsm) {
    out.pduSessionId = buffer[1] ?? 0;
    out.pti = buffer[2] ?? 0;
  }
  let offset = headerLength;

  // Mandatory part: half-octet IEs come in pairs sharing an octet, the first in bits 4-1.
  let highNibbleNext = false;
  for (const entry of compiled.mandatory) {
    const key = entry.key ?? 'spare half octet';
    if (entry.presence === 'spare' || entry.half) {
      const octet = buffer[offset];
      if (octet === undefined)
        return fail(nasError('missing-mandatory-ie', offset, 'message ends', { ie: key }), out);
      const nibble = highNibbleNext ? octet >> 4 : octet & 0xf;
      if (highNibbleNext) offset += 1;
      highNibbleNext = !highNibbleNext;
      if (entry.presence === 'spare') continue;
      const decoded = decodeNibble(entry as OptionalEntry<string, unknown>, nibble);
      if (!decoded.ok)
        return fail(nasError('invalid-mandatory-ie', offset, decoded.detail, { ie: key }), out);
      out[key] = decoded.value;
      continue;
    }
    const lengthOctets = LENGTH_OCTETS[entry.format] ?? 0;
    const length = lengthOctets === 0 ? entry.min : readLength(buffer, offset, lengthOctets);
    if (length === undefined || offset + lengthOctets + length > buffer.length)
      return fail(nasError('missing-mandatory-ie', offset, 'message ends inside the IE', { ie: key }), out);
    if (length < entry.min || length > entry.max)
      return fail(
        nasError('invalid-mandatory-ie', offset, `length ${length} outside ${entry.min}..${entry.max}`, {
          ie: key,
        }),
        out,
      );
    const decoded = decodeValue(
      entry,
      buffer.subarray(offset + lengthOctets, offset + lengthOctets + length),
    );
    if (!decoded.ok) return fail(nasError('invalid-mandatory-ie', offset, decoded.detail, { ie: key }), out);
    out[key] = decoded.value;
    offset += lengthOctets + length;
  }

  // Non-imperative part (TS 24.007 11.2.4): a set bit 8 marks a one-octet IE (IEI in bits 8-5 for
  // type 1); IEIs 0x70-0x7f are TLV-E (TS 24.007 11.2.4, 5GS); any other is TV or TLV.
  let lastIndex = -1;
  while (offset < buffer.length) {
    const start = offset;
    const iei = buffer[offset] ?? 0;
    let found: { entry: OptionalEntry<string, unknown>; index: number } | undefined;
    let decoded: { ok: true; value: unknown } | { ok: false; detail: string };
    if (iei & 0x80) {
      found = compiled.byHalfIei.get(iei >> 4);
      offset += 1;
      if (found === undefined) {
        errors.push(nasError('unknown-ie', start, `IEI 0x${iei.toString(16)}`, { iei }));
        continue;
      }
      decoded = decodeNibble(found.entry, iei & 0xf);
    } else {
      found = compiled.byIei.get(iei);
      const format = found?.entry.format ?? (iei >= 0x70 ? 'TLV-E' : 'TLV');
      const lengthOctets = LENGTH_OCTETS[format] ?? 0;
      const length = format === 'TV' ? (found?.entry.min ?? 0) : readLength(buffer, offset + 1, lengthOctets);
      if (length === undefined || offset + 1 + lengthOctets + length > buffer.length) {
        // A cut-off IE ends the message: nothing after it can be delimited.
        if (found === undefined && iei >> 4 === 0)
          return fail(
            nasError('comprehension-required-ie', start, `IEI 0x${iei.toString(16)} cut off`, { iei }),
            out,
          );
        errors.push(
          nasError('invalid-optional-ie', start, 'IE runs past the message', { iei, ie: found?.entry.key }),
        );
        break;
      }
      const value = buffer.subarray(offset + 1 + lengthOctets, offset + 1 + lengthOctets + length);
      offset += 1 + lengthOctets + length;
      if (found === undefined) {
        if (iei >> 4 === 0)
          return fail(
            nasError('comprehension-required-ie', start, `IEI 0x${iei.toString(16)}`, { iei }),
            out,
          );
        errors.push(nasError('unknown-ie', start, `IEI 0x${iei.toString(16)}`, { iei }));
        continue;
      }
      decoded =
        length < found.entry.min || length > found.entry.max
          ? { ok: false, detail: `length ${length} outside ${found.entry.min}..${found.entry.max}` }
          : decodeValue(found.entry, value);
    }
    const { entry, index } = found;
    if (entry.key in out) {
      errors.push(nasError('repeated-ie', start, 'first occurrence kept', { iei, ie: entry.key }));
      continue;
    }
    if (index < lastIndex) {
      errors.push(
        nasError('out-of-sequence-ie', start, 'IE precedes one already received', { iei, ie: entry.key }),
      );
      continue;
    }
    if (!decoded.ok) {
      errors.push(nasError('invalid-optional-ie', start, decoded.detail, { iei, ie: entry.key }));
      continue;
    }
    out[entry.key] = decoded.value;
    lastIndex = index;
  }
  return { ok: true, message: out as unknown as NasMessage, errors };
}

/** Encodes a plain 5GMM or 5GSM message. Throws on values its IEs cannot carry (a caller's defect). */
export function encodeNasMessage(message: NasMessage): Uint8Array {
  const compiled = BY_NAME.get(message.messageType);
  if (compiled === undefined) throw new RangeError(`unknown NAS message type ${message.messageType}`);
  const values = message as unknown as Record<string, unknown>;
  // Header octets and IE heads as numbers, IE values as they come; one buffer is filled at the end (a
  // registration encodes a dozen messages on each side: no small array per IE head).
  const parts: (number | Uint8Array)[] = [];
  if (compiled.epd === EPD.fiveGmm) parts.push(EPD.fiveGmm, 0, compiled.definition.type);
  else {
    const sm = message as FiveGsmMessage;
    parts.push(EPD.fiveGsm, byte(sm.pduSessionId), byte(sm.pti), compiled.definition.type);
  }
  let length = parts.length;
  let pendingNibble: number | undefined;
  for (const entry of compiled.definition.ies) {
    if (entry.presence === 'spare' || (entry.presence === 'M' && entry.half)) {
      let nibble = 0;
      if (entry.presence === 'M') {
        if (entry.codec.kind !== 'half') throw new TypeError(`${entry.key} needs a half-octet codec`);
        nibble = entry.codec.encode(required(values, entry.key)) & 0xf;
      }
      if (pendingNibble === undefined) pendingNibble = nibble;
      else {
        parts.push(pendingNibble | (nibble << 4));
        length += 1;
        pendingNibble = undefined;
      }
      continue;
    }
    const value = entry.presence === 'M' ? required(values, entry.key) : values[entry.key];
    if (value === undefined) continue;
    if (entry.half) {
      if (entry.codec.kind !== 'half' || entry.presence === 'M')
        throw new TypeError(`${entry.key} table entry`);
      parts.push((entry.iei << 4) | (entry.codec.encode(value) & 0xf));
      length += 1;
      continue;
    }
    if (entry.codec.kind !== 'octets') throw new TypeError(`${entry.key} needs an octets codec`);
    const encoded = entry.codec.encode(value);
    if (encoded.length < entry.min || encoded.length > entry.max)
      throw new RangeError(`${entry.key}: ${encoded.length} octets outside ${entry.min}..${entry.max}`);
    if (entry.presence !== 'M') parts.push(entry.iei);
    const lengthOctets = LENGTH_OCTETS[entry.format] ?? 0;
    if (lengthOctets === 1) parts.push(encoded.length);
    if (lengthOctets === 2) parts.push(encoded.length >> 8, encoded.length & 0xff);
    parts.push(encoded);
    length += (entry.presence === 'M' ? 0 : 1) + lengthOctets + encoded.length;
  }
  if (pendingNibble !== undefined)
    throw new TypeError(`${message.messageType}: unpaired half octet in its table`);
  const out = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const part of parts) {
    if (typeof part === 'number') out[offset++] = part;
    else {
      out.set(part, offset);
      offset += part.length;
    }
  }
  return out;
}

function required(values: Record<string, unknown>, key: string): unknown {
  const value = values[key];
  if (value === undefined) throw new TypeError(`mandatory IE ${key} missing`);
  return value;
}

function byte(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 0xff) throw new RangeError(`${value} is not an octet`);
  return value;
}
