/**
 * What the userland SCTP stack needs below it: something that carries whole SCTP packets (common header
 * and chunks, RFC 9260 3) to and from IP addresses. `udp/` carries them in UDP datagrams (RFC 6951);
 * the `raw` transport carries them directly in IP datagrams of protocol 132.
 *
 * The stack computes and checks the CRC32c itself; a link neither adds nor strips anything of the SCTP
 * packet.
 */

/**
 * Where a packet comes from or goes to, as far as the link is concerned: an IP address and, for UDP
 * encapsulation, the peer's UDP port (RFC 6951 5: the encapsulation port learned from the last packet
 * received on that path). A raw IP link uses port 0. SCTP ports are inside the packet.
 */
export interface LinkAddress {
  address: string;
  port: number;
}

/**
 * The family of a link address on the per-packet path: an IPv6 address in text always has a colon, an
 * IPv4 one never (node:net's isIPv6 runs a long regular expression, on every packet).
 */
export const isIpv6Address = (address: string): boolean => address.includes(':');

/**
 * Receives one inbound SCTP packet. The link hands `packet` over: it never writes to it again, and the
 * stack may keep views of it (user data is held and delivered without a copy; small chunks of large
 * packets are copied, see receive-buffer.ts). `local` is the address the packet was sent to, when the
 * link knows it (a link bound to one address always does).
 */
export type PacketReceiver = (packet: Uint8Array, remote: LinkAddress, local: string) => void;

export interface PacketLink {
  /**
   * The largest SCTP packet this link carries to `remote` without IP fragmentation (path MTU minus the IP
   * header and, for UDP, the UDP header). The stack bundles and fragments to fit it.
   */
  maxPacketSize(remote: LinkAddress): number;
  /**
   * Sends one SCTP packet. Never throws for a network condition: a packet that cannot be sent is lost,
   * as on the wire, and retransmission recovers. `local` asks for a source address (multi-homing);
   * the link may ignore it when it is bound to one address. The stack never writes to `packet` after
   * this call, so the link may hold it until it is sent.
   */
  send(packet: Uint8Array, remote: LinkAddress, local?: string): void;
  /** Sets the one receiver of inbound packets (replacing any earlier one). */
  onPacket(receiver: PacketReceiver): void;
  /** The local IP addresses the link receives on (an endpoint lists them in INIT / INIT-ACK). */
  readonly localAddresses: readonly string[];
  /** Stops receiving and releases the socket(s). */
  close(): Promise<void>;
}
