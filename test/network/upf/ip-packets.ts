/** IPv4 packets for the UPF tests: ICMP echo, UDP and TCP SYN, with the checksums the kernel checks. */

/** RFC 1071 Internet checksum. */
export function internetChecksum(...parts: Uint8Array[]): number {
  let sum = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i += 2) sum += ((part[i] ?? 0) << 8) | (part[i + 1] ?? 0);
  }
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

const octets = (address: string): number[] => address.split('.').map(Number);

export function ipv4Packet(
  source: string,
  destination: string,
  protocol: number,
  payload: Uint8Array,
): Buffer {
  const header = Buffer.alloc(20);
  header[0] = 0x45;
  header.writeUInt16BE(20 + payload.length, 2);
  header.writeUInt16BE(0x4000, 6); // don't fragment
  header[8] = 64;
  header[9] = protocol;
  header.set(octets(source), 12);
  header.set(octets(destination), 16);
  header.writeUInt16BE(internetChecksum(header), 10);
  return Buffer.concat([header, payload]);
}

function pseudoHeader(source: string, destination: string, protocol: number, length: number): Buffer {
  const p = Buffer.alloc(12);
  p.set(octets(source), 0);
  p.set(octets(destination), 4);
  p[9] = protocol;
  p.writeUInt16BE(length, 10);
  return p;
}

export function icmpEcho(
  source: string,
  destination: string,
  id: number,
  sequence: number,
  data = 32,
): Buffer {
  const icmp = Buffer.alloc(8 + data, 0x61);
  icmp[0] = 8;
  icmp[1] = 0;
  icmp.writeUInt16BE(0, 2);
  icmp.writeUInt16BE(id, 4);
  icmp.writeUInt16BE(sequence, 6);
  icmp.writeUInt16BE(internetChecksum(icmp), 2);
  return ipv4Packet(source, destination, 1, icmp);
}

export function udpPacket(
  source: string,
  destination: string,
  sourcePort: number,
  destinationPort: number,
  data: Uint8Array,
): Buffer {
  const udp = Buffer.alloc(8 + data.length);
  udp.writeUInt16BE(sourcePort, 0);
  udp.writeUInt16BE(destinationPort, 2);
  udp.writeUInt16BE(udp.length, 4);
  udp.set(data, 8);
  const sum = internetChecksum(pseudoHeader(source, destination, 17, udp.length), udp);
  udp.writeUInt16BE(sum === 0 ? 0xffff : sum, 6);
  return ipv4Packet(source, destination, 17, udp);
}

export function tcpSyn(
  source: string,
  destination: string,
  sourcePort: number,
  destinationPort: number,
): Buffer {
  const tcp = Buffer.alloc(20);
  tcp.writeUInt16BE(sourcePort, 0);
  tcp.writeUInt16BE(destinationPort, 2);
  tcp.writeUInt32BE(0x01020304, 4);
  tcp[12] = 5 << 4;
  tcp[13] = 0x02; // SYN
  tcp.writeUInt16BE(65535, 14);
  tcp.writeUInt16BE(internetChecksum(pseudoHeader(source, destination, 6, 20), tcp), 16);
  return ipv4Packet(source, destination, 6, tcp);
}

export interface Ipv4View {
  source: string;
  destination: string;
  protocol: number;
  payload: Buffer;
}

export function readIpv4(packet: Uint8Array): Ipv4View {
  const b = Buffer.from(packet);
  const header = (b[0] ?? 0x45) & 0x0f;
  return {
    source: [...b.subarray(12, 16)].join('.'),
    destination: [...b.subarray(16, 20)].join('.'),
    protocol: b[9] ?? 0,
    payload: b.subarray(4 * header, b.readUInt16BE(2)),
  };
}

const ipv6Octets = (address: string): Buffer => {
  const [head = '', tail = ''] = address.split('::');
  const groups = (text: string) => (text === '' ? [] : text.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = Buffer.alloc(16);
  all.forEach((g, i) => bytes.writeUInt16BE(g, 2 * i));
  return bytes;
};

/** An ICMPv6 Echo Request (RFC 4443 4.1) with its checksum over the RFC 8200 8.1 pseudo-header. */
export function icmpv6Echo(source: string, destination: string, id: number, sequence: number): Buffer {
  const icmp = Buffer.alloc(8 + 16, 0x62);
  icmp[0] = 128;
  icmp[1] = 0;
  icmp.writeUInt16BE(0, 2);
  icmp.writeUInt16BE(id, 4);
  icmp.writeUInt16BE(sequence, 6);
  const pseudo = Buffer.alloc(40);
  ipv6Octets(source).copy(pseudo, 0);
  ipv6Octets(destination).copy(pseudo, 16);
  pseudo.writeUInt32BE(icmp.length, 32);
  pseudo[39] = 58;
  icmp.writeUInt16BE(internetChecksum(pseudo, icmp), 2);
  const header = Buffer.alloc(40);
  header[0] = 0x60;
  header.writeUInt16BE(icmp.length, 4);
  header[6] = 58;
  header[7] = 64;
  ipv6Octets(source).copy(header, 8);
  ipv6Octets(destination).copy(header, 24);
  return Buffer.concat([header, icmp]);
}
