/**
 * TCP packets and TUN reads (a virtio_net_hdr in front) for the tests of the TUN offloads
 * (native/upf/tun-gso.c, tun-gro.c), and the C drivers beside them, compiled with cc.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { compileC } from '../../helpers/compile-c.ts';
import { internetChecksum } from './ip-packets.ts';

// virtio_net_hdr (include/uapi/linux/virtio_net.h), in the host's byte order as the TUN gives it.
export const NEEDS_CSUM = 1;
export const GSO_TCPV4 = 1;
export const GSO_TCPV6 = 4;
export const GSO_UDP_L4 = 5;
export const GSO_ECN = 0x80;

export const FIN = 0x01;
export const SYN = 0x02;
export const PSH = 0x08;
export const ACK = 0x10;
export const CWR = 0x80;

const littleEndian = new Uint16Array(new Uint8Array([1, 0]).buffer)[0] === 1;

export function vnet(
  flags: number,
  gsoType: number,
  hdrLen: number,
  gsoSize: number,
  start: number,
  offset: number,
): Buffer {
  const h = Buffer.alloc(10);
  h[0] = flags;
  h[1] = gsoType;
  for (const [at, v] of [
    [2, hdrLen],
    [4, gsoSize],
    [6, start],
    [8, offset],
  ] as const)
    if (littleEndian) h.writeUInt16LE(v, at);
    else h.writeUInt16BE(v, at);
  return h;
}

/** The fields of a virtio_net_hdr. */
export function readVnet(h: Buffer): {
  flags: number;
  gsoType: number;
  hdrLen: number;
  gsoSize: number;
  start: number;
  offset: number;
} {
  const u16 = (at: number) => (littleEndian ? h.readUInt16LE(at) : h.readUInt16BE(at));
  return {
    flags: h[0] ?? 0,
    gsoType: h[1] ?? 0,
    hdrLen: u16(2),
    gsoSize: u16(4),
    start: u16(6),
    offset: u16(8),
  };
}

export const pattern = (n: number, seed = 7): Buffer =>
  Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

/** A TCP header: ports 40000 -> 5001, options of `options` octets (NOPs), checksum field `check`. */
export function tcpHeader(seq: number, flags: number, options: number, check = 0xdead, ack = 1): Buffer {
  const t = Buffer.alloc(20 + options, 1); // NOP options
  t.writeUInt16BE(40000, 0);
  t.writeUInt16BE(5001, 2);
  t.writeUInt32BE(seq >>> 0, 4);
  t.writeUInt32BE(ack, 8);
  t[12] = ((20 + options) / 4) << 4;
  t[13] = flags;
  t.writeUInt16BE(65535, 14);
  t.writeUInt16BE(check, 16);
  t.writeUInt16BE(0, 18);
  return t;
}

export const V4_SRC = Buffer.from([10, 45, 0, 2]);
export const V4_DST = Buffer.from([10, 99, 0, 1]);
/** An IPv4 header; its checksum 0 unless `checksum`. */
export function ipv4Header(protocol: number, total: number, id: number, checksum = false): Buffer {
  const h = Buffer.alloc(20);
  h[0] = 0x45;
  h.writeUInt16BE(total & 0xffff, 2);
  h.writeUInt16BE(id & 0xffff, 4);
  h.writeUInt16BE(0x4000, 6);
  h[8] = 64;
  h[9] = protocol;
  V4_SRC.copy(h, 12);
  V4_DST.copy(h, 16);
  if (checksum) h.writeUInt16BE(internetChecksum(h), 10);
  return h;
}

export const V6_SRC = Buffer.from('fd000045000000000000000000000002', 'hex');
export const V6_DST = Buffer.from('fd000099000000000000000000000001', 'hex');
export function ipv6Header(payloadLength: number): Buffer {
  const h = Buffer.alloc(40);
  h[0] = 0x60;
  h.writeUInt16BE(payloadLength, 4);
  h[6] = 6;
  h[7] = 64;
  V6_SRC.copy(h, 8);
  V6_DST.copy(h, 24);
  return h;
}

/** The folded pseudo-header sum the kernel seeds a partial checksum with (not complemented). */
export function pseudoSeed(source: Buffer, destination: Buffer, protocol: number, length: number): number {
  let sum = protocol + length;
  for (const a of [source, destination]) for (let i = 0; i < a.length; i += 2) sum += a.readUInt16BE(i);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return sum;
}

/** A whole TCP packet as a wire carries it: both checksums right. */
export function tcpPacket(
  family: 4 | 6,
  seq: number,
  flags: number,
  payload: Buffer,
  { id = 0, options = 12, ack = 1 } = {},
): Buffer {
  const tcp = Buffer.concat([tcpHeader(seq, flags, options, 0, ack), payload]);
  const [source, destination] = family === 4 ? [V4_SRC, V4_DST] : [V6_SRC, V6_DST];
  const pseudo = Buffer.alloc(4);
  pseudo.writeUInt16BE(6, 0);
  pseudo.writeUInt16BE(tcp.length, 2);
  tcp.writeUInt16BE(internetChecksum(source, destination, pseudo, tcp), 16);
  const ip = family === 4 ? ipv4Header(6, 20 + tcp.length, id, true) : ipv6Header(tcp.length);
  return Buffer.concat([ip, tcp]);
}

/** Compiles a driver beside this file with the native sources it needs; returns its path. */
export function buildDriver(directory: string, name: string, sources: string[]): Promise<string> {
  return Promise.resolve(
    compileC(join(directory, name), join(import.meta.dirname, `${name}.c`), { upf: sources }),
  );
}

/** Runs a driver with `input` on stdin: its exit code and stdout. */
export function drive(driver: string, args: string[], input: Buffer): Promise<{ code: number; out: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(driver, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out: Buffer.concat(out) }));
    child.stdin.end(input);
  });
}
