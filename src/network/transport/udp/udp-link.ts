import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import {
  isIpv6Address,
  type LinkAddress,
  type PacketLink,
  type PacketReceiver,
} from '../sctp/packet-link.ts';

/** SCTP over UDP (RFC 6951): the well-known encapsulation port. */
export const SCTP_UDP_PORT = 9899;

/** Receive and send buffer asked for each socket (docs/performance.md, "N2: 1,000 gNBs"). */
const SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

export interface UdpLinkOptions {
  /** Local addresses to bind, one UDP socket each (`0.0.0.0` / `::` for any). */
  addresses: readonly string[];
  /** The local UDP port; 0 for an ephemeral one. Default 9899. */
  port?: number;
  /** The path MTU assumed (no PMTU discovery): 1500 unless told. */
  mtu?: number;
}

/** Carries SCTP packets in UDP datagrams, one per packet (RFC 6951 5.1). */
export class UdpLink implements PacketLink {
  readonly localAddresses: readonly string[];
  readonly port: number;
  readonly #sockets: { address: string; v6: boolean; socket: Socket }[];
  readonly #mtu: number;
  #receiver: PacketReceiver = () => undefined;

  private constructor(
    sockets: { address: string; v6: boolean; socket: Socket }[],
    port: number,
    mtu: number,
  ) {
    this.#sockets = sockets;
    this.port = port;
    this.#mtu = mtu;
    this.localAddresses = sockets.map((s) => s.address);
    for (const s of sockets) {
      s.socket.on('message', (msg, rinfo) =>
        this.#receiver(msg, { address: rinfo.address, port: rinfo.port }, s.address),
      );
      // Socket errors (an ICMP unreachable surfacing on some platforms) are packet loss to SCTP.
      s.socket.on('error', () => undefined);
    }
  }

  static async open(options: UdpLinkOptions): Promise<UdpLink> {
    let port = options.port ?? SCTP_UDP_PORT;
    const sockets: { address: string; v6: boolean; socket: Socket }[] = [];
    try {
      for (const address of options.addresses) {
        const v6 = isIPv6(address);
        const socket = createSocket({
          type: v6 ? 'udp6' : 'udp4',
          ipv6Only: v6,
          // One socket carries every association: the kernel's default buffer (about 208 KiB) overflows
          // when hundreds of radios set up at once, and each drop costs an SCTP retransmission timeout.
          // The kernel caps the size at net.core.rmem_max / wmem_max.
          recvBufferSize: SOCKET_BUFFER_BYTES,
          sendBufferSize: SOCKET_BUFFER_BYTES,
        });
        sockets.push({ address, v6, socket });
        await new Promise<void>((resolve, reject) => {
          socket.once('error', reject);
          socket.bind(port, address, () => {
            socket.off('error', reject);
            resolve();
          });
        });
        // Every socket shares the first one's port, so that peers see one encapsulation port.
        port = socket.address().port;
      }
    } catch (error) {
      for (const s of sockets) s.socket.close();
      throw error;
    }
    return new UdpLink(sockets, port, options.mtu ?? 1500);
  }

  maxPacketSize(remote: LinkAddress): number {
    // IP header (20 or 40 bytes) and the UDP header (8).
    return this.#mtu - (isIpv6Address(remote.address) ? 40 : 20) - 8;
  }

  send(packet: Uint8Array, remote: LinkAddress, local?: string): void {
    const v6 = isIpv6Address(remote.address);
    const s =
      this.#sockets.find((x) => x.v6 === v6 && x.address === local) ?? this.#sockets.find((x) => x.v6 === v6);
    // The stack never writes to a packet it has sent, so dgram may keep a reference until it is out.
    // No callback: dgram then tries a synchronous send first; a failure is an ignored error event.
    s?.socket.send(packet, remote.port, remote.address);
  }

  onPacket(receiver: PacketReceiver): void {
    this.#receiver = receiver;
  }

  async close(): Promise<void> {
    await Promise.all(
      this.#sockets.map((s) => new Promise<void>((resolve) => s.socket.close(() => resolve()))),
    );
  }
}
