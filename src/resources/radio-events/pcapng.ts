import { PacketBuilder } from '../../network/transport/sctp/packet.ts';

/**
 * A pcapng writer for recorded NGAP messages: each message becomes an IP packet carrying SCTP with one
 * DATA chunk (PPID 60, TS 38.412 section 7), as it went over N2, so Wireshark's SCTP and NGAP
 * dissectors read it. Pure: blocks in, bytes out; the caller streams them.
 */

/** One side of an N2 association: a 4- or 16-byte IP address and an SCTP port. */
export interface CaptureEndpoint {
  ip: Uint8Array;
  port: number;
}

interface CapturedMessage {
  /** Unix ms. */
  timestamp: number;
  from: CaptureEndpoint;
  to: CaptureEndpoint;
  /** SCTP stream: 0 for non-UE-associated signalling, another for UE-associated (TS 38.412 section 7). */
  stream: number;
  /** The NGAP PDU. */
  raw: Uint8Array;
  /** A packet comment (opt_comment), shown by Wireshark with the packet. */
  comment?: string;
}

/** pcapng media type (draft-ietf-opsawg-pcapng). */
export const PCAPNG_MEDIA_TYPE = 'application/x-pcapng';

/** LINKTYPE_RAW: each packet starts with its IPv4 or IPv6 header. */
const LINKTYPE_RAW = 101;
const NGAP_PPID = 60;
const IP_PROTOCOL_SCTP = 132;
const IPV4_HEADER = 20;
const IPV6_HEADER = 40;
const SCTP_COMMON_HEADER = 12;
const DATA_CHUNK_HEADER = 16;
const MAX_IP_LENGTH = 0xffff;
const DATA_BEGIN = 0x02;
const DATA_END = 0x01;
/** Any non-zero tag: 0 is reserved for packets carrying INIT (RFC 9260 section 8.5.1). */
const VERIFICATION_TAG = 1;

/** Section Header Block and one Interface Description Block (raw IP, microsecond timestamps). */
export function pcapngHeader(): Buffer {
  const shb = Buffer.alloc(28);
  shb.writeUInt32LE(0x0a0d0d0a, 0);
  shb.writeUInt32LE(28, 4);
  shb.writeUInt32LE(0x1a2b3c4d, 8); // byte-order magic
  shb.writeUInt16LE(1, 12); // version 1.0
  shb.writeUInt16LE(0, 14);
  shb.writeBigInt64LE(-1n, 16); // section length unknown: the file is streamed
  shb.writeUInt32LE(28, 24);
  // No if_tsresol option: the default resolution is the microsecond.
  const idb = Buffer.alloc(20);
  idb.writeUInt32LE(1, 0);
  idb.writeUInt32LE(20, 4);
  idb.writeUInt16LE(LINKTYPE_RAW, 8);
  idb.writeUInt16LE(0, 10);
  idb.writeUInt32LE(0, 12); // no snap length limit
  idb.writeUInt32LE(20, 16);
  return Buffer.concat([shb, idb]);
}

/** Sequence numbers of one direction of one association. */
interface DirectionState {
  tsn: number;
  ssn: Map<number, number>;
}

/**
 * Turns messages into Enhanced Packet Blocks, numbering each direction of each association as SCTP
 * does: TSNs from 1 up per DATA chunk, stream sequence numbers from 0 up per stream (RFC 9260 section
 * 6.5). A message too large for one IP packet is split into DATA fragments (B and E flags, one SSN).
 */
export function createNgapCapture() {
  const directions = new Map<string, DirectionState>();
  let ipId = 0;

  function stateOf(message: CapturedMessage): DirectionState {
    const key = `${message.from.ip.join('.')}/${message.from.port}>${message.to.ip.join('.')}/${message.to.port}`;
    let state = directions.get(key);
    if (state === undefined) {
      state = { tsn: 1, ssn: new Map() };
      directions.set(key, state);
    }
    return state;
  }

  function ipPacket(message: CapturedMessage, sctp: Uint8Array): Buffer {
    const { from, to } = message;
    if (from.ip.length === 4) {
      const packet = Buffer.allocUnsafe(IPV4_HEADER + sctp.length);
      packet.writeUInt8(0x45, 0);
      packet.writeUInt8(0, 1);
      packet.writeUInt16BE(packet.length, 2);
      packet.writeUInt16BE(ipId, 4);
      ipId = (ipId + 1) & 0xffff;
      packet.writeUInt16BE(0x4000, 6); // don't fragment: SCTP fragments itself
      packet.writeUInt8(64, 8);
      packet.writeUInt8(IP_PROTOCOL_SCTP, 9);
      packet.writeUInt16BE(0, 10);
      packet.set(from.ip, 12);
      packet.set(to.ip, 16);
      packet.writeUInt16BE(ipv4Checksum(packet), 10);
      packet.set(sctp, IPV4_HEADER);
      return packet;
    }
    const packet = Buffer.allocUnsafe(IPV6_HEADER + sctp.length);
    packet.writeUInt32BE(0x60000000, 0);
    packet.writeUInt16BE(sctp.length, 4);
    packet.writeUInt8(IP_PROTOCOL_SCTP, 6);
    packet.writeUInt8(64, 7);
    packet.set(from.ip, 8);
    packet.set(to.ip, 24);
    packet.set(sctp, IPV6_HEADER);
    return packet;
  }

  return {
    /** The blocks of one message: one per IP packet, most often one. */
    blocks(message: CapturedMessage): Buffer[] {
      if (message.from.ip.length !== message.to.ip.length) {
        throw new TypeError('both ends of a captured message must be of one IP family');
      }
      const state = stateOf(message);
      const ssn = state.ssn.get(message.stream) ?? 0;
      state.ssn.set(message.stream, (ssn + 1) & 0xffff);
      const ipHeader = message.from.ip.length === 4 ? IPV4_HEADER : 0;
      // A multiple of 4, so that the chunk's padding fits the IP length field too.
      const maxData = (MAX_IP_LENGTH - ipHeader - SCTP_COMMON_HEADER - DATA_CHUNK_HEADER) & ~3;
      const { raw } = message;
      const blocks: Buffer[] = [];
      for (let at = 0; at < raw.length || at === 0; at += maxData) {
        const piece = raw.subarray(at, Math.min(raw.length, at + maxData));
        const flags = (at === 0 ? DATA_BEGIN : 0) | (at + maxData >= raw.length ? DATA_END : 0);
        const builder = new PacketBuilder(
          SCTP_COMMON_HEADER + ((DATA_CHUNK_HEADER + piece.length + 3) & ~3),
          message.from.port,
          message.to.port,
          VERIFICATION_TAG,
        );
        builder.addData(flags, state.tsn, message.stream, ssn, NGAP_PPID, piece);
        state.tsn = (state.tsn + 1) >>> 0;
        const comment = at === 0 ? message.comment : undefined;
        blocks.push(enhancedPacketBlock(message.timestamp, ipPacket(message, builder.finish()), comment));
        if (raw.length === 0) break;
      }
      return blocks;
    },
  };
}

/** The options of a block carrying `comment` (opt_comment, then opt_endofopt), or none. */
function commentOption(comment: string | undefined): Buffer | undefined {
  if (comment === undefined) return undefined;
  const text = Buffer.from(comment, 'utf8');
  const option = Buffer.alloc(4 + ((text.length + 3) & ~3) + 4);
  option.writeUInt16LE(1, 0); // opt_comment
  option.writeUInt16LE(text.length, 2);
  text.copy(option, 4);
  return option; // ends with opt_endofopt: its four bytes are zero
}

/** An Enhanced Packet Block on interface 0 with its time in microseconds, and a comment if given. */
function enhancedPacketBlock(timestampMs: number, packet: Buffer, comment?: string): Buffer {
  const padded = (packet.length + 3) & ~3;
  const options = commentOption(comment);
  const total = 32 + padded + (options?.length ?? 0);
  const block = Buffer.alloc(total);
  const micros = Math.max(0, Math.trunc(timestampMs)) * 1000;
  block.writeUInt32LE(6, 0);
  block.writeUInt32LE(total, 4);
  block.writeUInt32LE(0, 8);
  block.writeUInt32LE(Math.floor(micros / 2 ** 32), 12);
  block.writeUInt32LE(micros % 2 ** 32, 16);
  block.writeUInt32LE(packet.length, 20);
  block.writeUInt32LE(packet.length, 24);
  packet.copy(block, 28);
  options?.copy(block, 28 + padded);
  block.writeUInt32LE(total, total - 4);
  return block;
}

/** The IPv4 header checksum (RFC 791), over the header with its checksum field zero. */
function ipv4Checksum(packet: Buffer): number {
  let sum = 0;
  for (let i = 0; i < IPV4_HEADER; i += 2) sum += packet.readUInt16BE(i);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}
