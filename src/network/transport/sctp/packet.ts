import { CHUNK_HEADER_SIZE, COMMON_HEADER_SIZE, type Decoded, type RawChunk } from './chunks.ts';
import { crc32c, type Crc32c } from './crc32c.ts';

/** An SCTP packet: the common header (RFC 9260 3.1) and its chunks. */
export interface Packet {
  sourcePort: number;
  destinationPort: number;
  verificationTag: number;
  chunks: RawChunk[];
}

/** Chunks a packet may carry before the rest are ignored (a 64 KiB packet of empty chunks is 16k). */
const MAX_CHUNKS_PER_PACKET = 512;

/**
 * Checks the CRC32c and frames the chunks. The chunks' values are views into `bytes`: the caller copies
 * what it keeps past the packet's lifetime.
 */
export function decodePacket(bytes: Uint8Array, checksum: Crc32c = crc32c): Decoded<Packet> {
  if (bytes.length < COMMON_HEADER_SIZE + CHUNK_HEADER_SIZE) return { ok: false, error: 'packet too short' };
  const received = (bytes[8]! | (bytes[9]! << 8) | (bytes[10]! << 16) | (bytes[11]! << 24)) >>> 0;
  let crc = checksum(bytes, 0, 8, 0);
  crc = checksum(ZERO4, 0, 4, crc);
  crc = checksum(bytes, 12, bytes.length, crc);
  if (crc !== received) return { ok: false, error: 'bad CRC32c' };
  const chunks: RawChunk[] = [];
  let offset = COMMON_HEADER_SIZE;
  while (offset < bytes.length) {
    if (bytes.length - offset < CHUNK_HEADER_SIZE) {
      // RFC 9260 3.2: padding is at most 3 bytes of zeros; anything else is a framing error.
      if (bytes.subarray(offset).every((b) => b === 0)) break;
      return { ok: false, error: 'truncated chunk header' };
    }
    const length = (bytes[offset + 2]! << 8) | bytes[offset + 3]!;
    if (length < CHUNK_HEADER_SIZE || offset + length > bytes.length) {
      return { ok: false, error: `chunk length ${length} does not fit the packet` };
    }
    if (chunks.length === MAX_CHUNKS_PER_PACKET) return { ok: false, error: 'too many chunks' };
    chunks.push({
      type: bytes[offset]!,
      flags: bytes[offset + 1]!,
      value: bytes.subarray(offset + CHUNK_HEADER_SIZE, offset + length),
    });
    offset += (length + 3) & ~3;
  }
  return {
    ok: true,
    value: {
      sourcePort: (bytes[0]! << 8) | bytes[1]!,
      destinationPort: (bytes[2]! << 8) | bytes[3]!,
      verificationTag: ((bytes[4]! << 24) | (bytes[5]! << 16) | (bytes[6]! << 8) | bytes[7]!) >>> 0,
      chunks,
    },
  };
}

const ZERO4 = new Uint8Array(4);

/**
 * Outgoing packets are cut from 64 KiB slabs, one after the other, instead of each taking an
 * ArrayBuffer or a slice of Node's 8 KiB pool (refilled every five full-size packets): the allocation
 * showed in profiles. A link may hold a packet until it is sent, so no byte of a slab is handed out
 * twice; a slab is freed with its last packet. A finished packet gives back the room it did not use.
 */
const SLAB_SIZE = 65536;
let slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
let slabUsed = 0;

function slabTake(size: number): Buffer {
  if (size > SLAB_SIZE) return Buffer.allocUnsafeSlow(size);
  if (slabUsed + size > SLAB_SIZE) {
    slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
    slabUsed = 0;
  }
  const bytes = slab.subarray(slabUsed, slabUsed + size);
  slabUsed += size;
  return bytes;
}

/** Returns the unused end of the latest piece taken (8-byte aligned), when nothing was taken since. */
function slabTrim(bytes: Buffer, used: number): void {
  if (bytes.buffer === slab.buffer && bytes.byteOffset + bytes.length === slabUsed) {
    slabUsed = bytes.byteOffset + ((used + 7) & ~7);
  }
}

/** Writes a packet's chunks into one buffer, then stamps the CRC32c. */
export class PacketBuilder {
  readonly #buffer: Buffer;
  readonly #checksum: Crc32c;
  #length = COMMON_HEADER_SIZE;

  constructor(
    maxSize: number,
    sourcePort: number,
    destinationPort: number,
    verificationTag: number,
    checksum: Crc32c = crc32c,
  ) {
    this.#checksum = checksum;
    // Every byte of the packet is written below, padding included, so the unzeroed memory never leaves.
    this.#buffer = slabTake(maxSize);
    const b = this.#buffer;
    b[0] = sourcePort >>> 8;
    b[1] = sourcePort & 0xff;
    b[2] = destinationPort >>> 8;
    b[3] = destinationPort & 0xff;
    b[4] = verificationTag >>> 24;
    b[5] = (verificationTag >>> 16) & 0xff;
    b[6] = (verificationTag >>> 8) & 0xff;
    b[7] = verificationTag & 0xff;
  }

  get size(): number {
    return this.#length;
  }

  get empty(): boolean {
    return this.#length === COMMON_HEADER_SIZE;
  }

  /** Bytes still free, for a chunk of this size padded. */
  room(): number {
    return this.#buffer.length - this.#length;
  }

  /** Appends an encoded chunk (header included); false if it does not fit. */
  add(chunk: Uint8Array): boolean {
    const padded = (chunk.length + 3) & ~3;
    if (padded > this.room()) return false;
    this.#buffer.set(chunk, this.#length);
    this.#buffer.fill(0, this.#length + chunk.length, this.#length + padded);
    this.#length += padded;
    return true;
  }

  /** Appends a DATA chunk written in place (no intermediate copy of the user data). */
  addData(
    flags: number,
    tsn: number,
    streamId: number,
    ssn: number,
    ppid: number,
    userData: Uint8Array,
  ): boolean {
    const length = 16 + userData.length;
    const padded = (length + 3) & ~3;
    if (padded > this.room()) return false;
    const b = this.#buffer;
    const o = this.#length;
    b[o] = 0;
    b[o + 1] = flags;
    b[o + 2] = length >>> 8;
    b[o + 3] = length & 0xff;
    writeU32(b, o + 4, tsn);
    b[o + 8] = streamId >>> 8;
    b[o + 9] = streamId & 0xff;
    b[o + 10] = ssn >>> 8;
    b[o + 11] = ssn & 0xff;
    writeU32(b, o + 12, ppid);
    b.set(userData, o + 16);
    b.fill(0, o + length, o + padded);
    this.#length += padded;
    return true;
  }

  /** The finished packet (a view of the builder's buffer) with its CRC32c. */
  finish(): Uint8Array {
    const b = this.#buffer;
    b[8] = b[9] = b[10] = b[11] = 0;
    const crc = this.#checksum(b, 0, this.#length, 0);
    b[8] = crc & 0xff;
    b[9] = (crc >>> 8) & 0xff;
    b[10] = (crc >>> 16) & 0xff;
    b[11] = crc >>> 24;
    slabTrim(b, this.#length);
    return b.subarray(0, this.#length);
  }
}

function writeU32(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 24;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
}

/** A whole packet of the given chunks (control packets: INIT ACK, ABORT, ...). */
export function encodePacket(
  sourcePort: number,
  destinationPort: number,
  verificationTag: number,
  chunks: readonly Uint8Array[],
  checksum: Crc32c = crc32c,
): Uint8Array {
  let size = COMMON_HEADER_SIZE;
  for (const c of chunks) size += (c.length + 3) & ~3;
  const builder = new PacketBuilder(size, sourcePort, destinationPort, verificationTag, checksum);
  for (const c of chunks) builder.add(c);
  return builder.finish();
}
