import type { OptionalEntry } from '../../../src/network/nas/ie-table.ts';
import { messageDefinition, type NasMessageType } from '../../../src/network/nas/message-codec.ts';
import { prng } from '../ngap/fuzz.ts';

/**
 * The mutations of the session and handover fuzz (session-fuzz.test.ts), all from one fixed-seed PRNG:
 * byte-level ones for any bytes, and structure-aware ones that know where a NAS message's IEs and an
 * NGAP PDU's protocol IEs and length fields are, and which field of a decoded value to change.
 */

export interface Random {
  int(n: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Uint8Array;
}

export function seeded(seed: number): Random {
  const next = prng(seed);
  const int = (n: number): number => Math.floor(next() * n);
  return {
    int,
    chance: (p) => next() < p,
    pick: (items) => items[int(items.length)]!,
    bytes: (n) => Uint8Array.from({ length: n }, () => int(256)),
  };
}

const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts));

// Copies are `new Uint8Array(bytes)`: a Buffer's `slice()` is a view (the encoders return Buffers).

/** Values that sit on the edges of length and range checks. */
const EDGES = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff];

/** One byte-level mutation: bit flips, truncation, inserted, deleted or edge-valued bytes, or new bytes. */
export function mutateBytes(random: Random, input: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(input);
  switch (random.int(6)) {
    case 0: {
      for (let flips = 1 + random.int(4); flips > 0 && bytes.length > 0; flips--)
        bytes[random.int(bytes.length)]! ^= 1 << random.int(8);
      return bytes;
    }
    case 1:
      return bytes.subarray(0, random.int(bytes.length));
    case 2: {
      const at = random.int(bytes.length + 1);
      return concat(bytes.subarray(0, at), random.bytes(1 + random.int(8)), bytes.subarray(at));
    }
    case 3: {
      const at = random.int(bytes.length);
      return concat(bytes.subarray(0, at), bytes.subarray(at + 1 + random.int(4)));
    }
    case 4:
      if (bytes.length > 0) bytes[random.int(bytes.length)] = random.pick(EDGES);
      return bytes;
    default:
      return random.bytes(random.int(48));
  }
}

// ---- NAS (TS 24.007 11.2, TS 24.501 section 8 tables)

/** Where one IE of an encoded NAS message lies, and its length field if it has one. */
interface NasIe {
  start: number;
  end: number;
  /** Offset and size of the length field (LV, LV-E, TLV, TLV-E). */
  length?: { at: number; octets: 1 | 2 };
  optional: boolean;
}

const LENGTH_OCTETS = { V: 0, LV: 1, 'LV-E': 2, TV: 0, TLV: 1, 'TLV-E': 2 } as const;

/**
 * The IEs of a well-formed plain NAS message of type `messageType`, read with its table (the message
 * codec's own definition). Half-octet mandatory IEs are left inside the fixed part.
 */
export function nasIes(messageType: NasMessageType, bytes: Uint8Array): { header: number; ies: NasIe[] } {
  const definition = messageDefinition(messageType);
  const header = bytes[0] === 0x2e ? 4 : 3;
  const ies: NasIe[] = [];
  let offset = header;
  let half = false;
  const optional = new Map<number, OptionalEntry<string, unknown>>();
  for (const entry of definition.ies) {
    if (entry.presence === 'O' || entry.presence === 'C') {
      optional.set(entry.half ? entry.iei << 4 : entry.iei, entry as OptionalEntry<string, unknown>);
      continue;
    }
    if (entry.presence === 'spare' || entry.half) {
      if (half) offset += 1;
      half = !half;
      continue;
    }
    const octets = LENGTH_OCTETS[entry.format];
    const length = octets === 0 ? entry.min : readLength(bytes, offset, octets);
    ies.push({
      start: offset,
      end: offset + octets + length,
      ...(octets === 0 ? {} : { length: { at: offset, octets } }),
      optional: false,
    });
    offset += octets + length;
  }
  while (offset < bytes.length) {
    const iei = bytes[offset]!;
    if (iei & 0x80) {
      ies.push({ start: offset, end: offset + 1, optional: true });
      offset += 1;
      continue;
    }
    const entry = optional.get(iei);
    const format: keyof typeof LENGTH_OCTETS = entry?.format ?? (iei >= 0x70 ? 'TLV-E' : 'TLV');
    const octets = LENGTH_OCTETS[format];
    const length = format === 'TV' ? (entry?.min ?? 0) : readLength(bytes, offset + 1, octets);
    ies.push({
      start: offset,
      end: offset + 1 + octets + length,
      ...(octets === 0 ? {} : { length: { at: offset + 1, octets } }),
      optional: true,
    });
    offset += 1 + octets + length;
  }
  return { header, ies };
}

function readLength(bytes: Uint8Array, at: number, octets: number): number {
  return octets === 1 ? (bytes[at] ?? 0) : ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
}

function writeLength(bytes: Uint8Array, at: number, octets: 1 | 2, value: number): void {
  if (octets === 1) bytes[at] = value & 0xff;
  else {
    bytes[at] = (value >> 8) & 0xff;
    bytes[at + 1] = value & 0xff;
  }
}

/** A length on the edge: 0, one off the real one, the most the field holds, or any. */
function edgeLength(random: Random, real: number, octets: 1 | 2): number {
  const max = octets === 1 ? 0xff : 0xffff;
  return random.pick([0, 1, real - 1, real + 1, real + 2, max, random.int(max + 1)]) & max;
}

/**
 * One structure-aware mutation of a well-formed NAS message: a length field corrupted, an IE
 * duplicated, deleted, inserted (known or unknown IEI), moved out of sequence or given random contents,
 * or a header field (PDU session identity, PTI, message type) given a random value.
 */
export function mutateNas(random: Random, messageType: NasMessageType, input: Uint8Array): Uint8Array {
  const { header, ies } = nasIes(messageType, input);
  const bytes = new Uint8Array(input);
  const span = (ie: NasIe) => bytes.subarray(ie.start, ie.end);
  const optional = ies.filter((ie) => ie.optional);
  const withLength = ies.filter((ie) => ie.length !== undefined);
  switch (random.int(7)) {
    case 0: {
      if (withLength.length === 0) break;
      const ie = random.pick(withLength);
      const { at, octets } = ie.length!;
      writeLength(bytes, at, octets, edgeLength(random, readLength(bytes, at, octets), octets));
      return bytes;
    }
    case 1: {
      if (optional.length === 0) break;
      const ie = random.pick(optional);
      const at = random.chance(0.5) ? ie.end : bytes.length;
      return concat(bytes.subarray(0, at), span(ie), bytes.subarray(at));
    }
    case 2: {
      if (ies.length === 0) break;
      const ie = random.pick(ies);
      return concat(bytes.subarray(0, ie.start), bytes.subarray(ie.end));
    }
    case 3: {
      const known = messageDefinition(messageType).ies.flatMap((e) =>
        e.presence === 'O' || e.presence === 'C' ? [e] : [],
      );
      const entry = known.length > 0 && random.chance(0.7) ? random.pick(known) : undefined;
      const iei = entry === undefined ? random.int(0x80) : entry.half ? entry.iei << 4 : entry.iei;
      const value = random.bytes(random.pick([0, 1, 2, 3, 8, random.int(40)]));
      const ie =
        iei & 0x80
          ? Uint8Array.of(iei | random.int(16))
          : iei >= 0x70
            ? concat(Uint8Array.of(iei, value.length >> 8, value.length & 0xff), value)
            : concat(Uint8Array.of(iei, value.length), value);
      const at = random.chance(0.5) ? bytes.length : random.pick([header, ...ies.map((i) => i.end)]);
      return concat(bytes.subarray(0, at), ie, bytes.subarray(at));
    }
    case 4: {
      if (optional.length < 2) break;
      const first = optional[0]!;
      const last = optional[optional.length - 1]!;
      const middle = bytes.subarray(first.end, last.start);
      return concat(
        bytes.subarray(0, first.start),
        span(last),
        middle,
        span(first),
        bytes.subarray(last.end),
      );
    }
    case 5: {
      if (ies.length === 0) break;
      const ie = random.pick(ies);
      const from =
        ie.length === undefined ? ie.start + (ie.optional ? 1 : 0) : ie.length.at + ie.length.octets;
      for (let i = from; i < ie.end; i++) bytes[i] = random.int(256);
      return bytes;
    }
    default:
      break;
  }
  // The header: PDU session identity (0..255, TS 24.007 11.2.3.1b), PTI, or the message type.
  const field = random.int(header - 1) + 1;
  bytes[field] = random.chance(0.5) ? random.pick([0, 1, 15, 16, 0xff]) : random.int(256);
  return bytes;
}

// ---- NGAP (TS 38.413 9.4, aligned PER: X.691)

/** Where each protocol IE of an encoded NGAP PDU lies (id, criticality, open type value). */
interface NgapIe {
  start: number;
  end: number;
  /** Offset and size of the IE value's length determinant. */
  lengthAt: number;
  lengthOctets: number;
}

/** A length determinant of an open type (X.691 11.9.3.6-7: one octet below 128, else two). */
function determinant(length: number): Uint8Array {
  return length < 128 ? Uint8Array.of(length) : Uint8Array.of(0x80 | (length >> 8), length & 0xff);
}

function readDeterminant(bytes: Uint8Array, at: number): { length: number; octets: number } {
  const first = bytes[at] ?? 0;
  return first & 0x80
    ? { length: ((first & 0x3f) << 8) | (bytes[at + 1] ?? 0), octets: 2 }
    : { length: first, octets: 1 };
}

/**
 * The protocol IEs of a well-formed NGAP PDU: the PDU's header (CHOICE, procedure code, criticality), its
 * open type's length determinant, the message's extension bit and IE count, then each ProtocolIE-Field.
 */
export function ngapIes(bytes: Uint8Array): { header: Uint8Array; ies: NgapIe[] } {
  const outer = readDeterminant(bytes, 3);
  const body = 3 + outer.octets;
  const ies: NgapIe[] = [];
  let offset = body + 3;
  while (offset < bytes.length) {
    const inner = readDeterminant(bytes, offset + 3);
    const end = offset + 3 + inner.octets + inner.length;
    ies.push({ start: offset, end, lengthAt: offset + 3, lengthOctets: inner.octets });
    offset = end;
  }
  return { header: bytes.subarray(0, 3), ies };
}

/** An NGAP PDU of `header` with these protocol IEs, its length determinant and IE count made to agree. */
function ngapWith(header: Uint8Array, ies: Uint8Array[], extension = 0): Uint8Array {
  const body = concat(Uint8Array.of(extension, ies.length >> 8, ies.length & 0xff), ...ies);
  return concat(header, determinant(body.length), body);
}

/** Protocol IE ids the radio's UE-associated messages carry (TS 38.413 9.4.7), for ids swapped in. */
const IE_IDS = [
  10, 85, 15, 19, 22, 29, 38, 53, 54, 56, 61, 63, 65, 66, 70, 75, 76, 84, 100, 101, 105, 106, 119, 121,
];

/**
 * One structure-aware mutation of a well-formed NGAP PDU: the PDU's or an IE's length determinant or the
 * IE count corrupted, or (lengths kept right) an IE duplicated, deleted, inserted from `donors`, moved,
 * given another id or criticality, or random contents.
 */
export function mutateNgap(random: Random, input: Uint8Array, donors: readonly Uint8Array[]): Uint8Array {
  const { header, ies } = ngapIes(input);
  const fields = ies.map((ie) => input.subarray(ie.start, ie.end));
  const bytes = new Uint8Array(input);
  switch (random.int(9)) {
    case 0: {
      const at = 3;
      const { length, octets } = readDeterminant(bytes, at);
      const wrong = edgeLength(random, length, 1) & (octets === 1 ? 0x7f : 0xff);
      bytes[at + octets - 1] = wrong;
      return bytes;
    }
    case 1: {
      if (ies.length === 0) break;
      const ie = random.pick(ies);
      const { length } = readDeterminant(bytes, ie.lengthAt);
      bytes[ie.lengthAt + ie.lengthOctets - 1] = edgeLength(random, length, 1);
      return bytes;
    }
    case 2: {
      const at = 3 + readDeterminant(bytes, 3).octets + 1;
      bytes[at] = random.pick([0, 0xff, random.int(256)]);
      bytes[at + 1] = random.pick([0, 1, ies.length - 1, ies.length + 1, 0xff, random.int(256)]) & 0xff;
      return bytes;
    }
    case 3: {
      if (fields.length === 0) break;
      const i = random.int(fields.length);
      fields.splice(random.int(fields.length + 1), 0, fields[i]!);
      return ngapWith(header, fields);
    }
    case 4: {
      if (fields.length === 0) break;
      fields.splice(random.int(fields.length), 1);
      return ngapWith(header, fields);
    }
    case 5: {
      const donor = donors.length === 0 ? undefined : random.pick(donors);
      const taken = donor === undefined ? [] : ngapIes(donor).ies;
      const inserted =
        taken.length > 0 && random.chance(0.7)
          ? donor!.subarray(...spanOf(random.pick(taken)))
          : concat(
              Uint8Array.of(0, random.pick(IE_IDS), random.pick([0x00, 0x40, 0x80])),
              ((value) => concat(determinant(value.length), value))(random.bytes(random.int(24))),
            );
      fields.splice(random.int(fields.length + 1), 0, inserted);
      return ngapWith(header, fields);
    }
    case 6: {
      if (fields.length < 2) break;
      const [moved] = fields.splice(random.int(fields.length), 1);
      fields.splice(random.int(fields.length + 1), 0, moved!);
      return ngapWith(header, fields);
    }
    case 7: {
      if (fields.length === 0) break;
      const i = random.int(fields.length);
      const field = new Uint8Array(fields[i]!);
      if (random.chance(0.5)) {
        field[0] = random.chance(0.8) ? 0 : random.int(256);
        field[1] = random.chance(0.8) ? random.pick(IE_IDS) : random.int(256);
      } else field[2] = random.pick([0x00, 0x40, 0x80, 0xc0]);
      fields[i] = field;
      return ngapWith(header, fields);
    }
    default: {
      if (ies.length === 0) break;
      const ie = random.pick(ies);
      for (let i = ie.lengthAt + ie.lengthOctets; i < ie.end; i++)
        if (random.chance(0.5)) bytes[i] = random.int(256);
      return bytes;
    }
  }
  return mutateBytes(random, input);
}

const spanOf = (ie: NgapIe): [number, number] => [ie.start, ie.end];

// ---- decoded values ("random values for each field")

/** Every path to a leaf (number, string, bytes, bit string) or a list of a decoded value. */
function leaves(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []) {
  if (value instanceof Uint8Array || typeof value !== 'object' || value === null) {
    out.push(path);
    return out;
  }
  if (Array.isArray(value)) out.push(path);
  else if ('bytes' in value && 'length' in value) {
    out.push(path);
    return out;
  }
  for (const [key, child] of Object.entries(value))
    leaves(child, [...path, Array.isArray(value) ? Number(key) : key], out);
  return out;
}

function randomLike(random: Random, value: unknown): unknown {
  if (value instanceof Uint8Array)
    return random.bytes(random.pick([0, 1, value.length, value.length + 1, random.int(64)]));
  if (Array.isArray(value)) {
    if (value.length === 0 || random.chance(0.3)) return [];
    const copy: unknown[] = [...(value as unknown[])];
    if (random.chance(0.5)) copy.push(copy[random.int(copy.length)]);
    else copy.splice(random.int(copy.length), 1);
    return copy;
  }
  if (typeof value === 'number')
    return random.pick([0, 1, 255, 256, 65535, 2 ** 32 - 1, random.int(2 ** 32), -1]);
  if (typeof value === 'string') return random.chance(0.5) ? random.int(8) : `${value}x`;
  if (typeof value === 'object' && value !== null && 'bytes' in value) {
    const n = random.int(48);
    return { bytes: random.bytes(Math.ceil(n / 8)), length: n };
  }
  return random.int(256);
}

/**
 * A copy of a decoded value with one field (chosen at random) given a random value of its kind, or an
 * optional field removed; the encoder may refuse the result (the caller falls back to byte mutations).
 */
export function mutateValue<T>(random: Random, value: T): T {
  const copy = structuredClone(value);
  const paths = leaves(copy).filter((p) => p.length > 0);
  if (paths.length === 0) return copy;
  const path = random.pick(paths);
  let parent: Record<string | number, unknown> = copy as Record<string, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (random.chance(0.15) && !Array.isArray(parent)) delete parent[last];
  else parent[last] = randomLike(random, parent[last]);
  return copy;
}
