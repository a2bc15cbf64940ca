import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';

import type { NativeAddon, UdpSocket } from '../native/native-addon.ts';
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

interface UdpLinkOptions {
  /** Local addresses to bind, one UDP socket each (`0.0.0.0` / `::` for any). */
  addresses: readonly string[];
  /** The local UDP port; 0 for an ephemeral one. Default 9899. */
  port?: number;
  /** The path MTU assumed (no PMTU discovery): 1500 unless told. */
  mtu?: number;
  /**
   * The native addon: its UDP sockets send each flush's packets with one sendmmsg and hand a readable
   * event's datagrams over in one callback scope (docs/sctp.md, "Batched system calls"). Without it,
   * node:dgram, a datagram at a time.
   */
  addon?: NativeAddon;
}

/** One bound socket and the packets sent through it since the last batch left (read in step). */
interface LinkSocket {
  address: string;
  v6: boolean;
  socket: { kind: 'native'; udp: UdpSocket } | { kind: 'dgram'; dgram: Socket };
  readonly packets: Uint8Array[];
  readonly addresses: string[];
  readonly ports: number[];
}

/** Carries SCTP packets in UDP datagrams, one per packet (RFC 6951 5.1). */
export class UdpLink implements PacketLink {
  readonly localAddresses: readonly string[];
  readonly port: number;
  readonly #sockets: LinkSocket[];
  readonly #mtu: number;
  #receiver: PacketReceiver = () => undefined;
  #closed = false;
  #batchQueued = false;
  readonly #sendBatches = () => {
    this.#batchQueued = false;
    for (const s of this.#sockets) sendBatch(s);
  };

  private constructor(sockets: LinkSocket[], port: number, mtu: number) {
    this.#sockets = sockets;
    this.port = port;
    this.#mtu = mtu;
    this.localAddresses = sockets.map((s) => s.address);
  }

  static async open(options: UdpLinkOptions): Promise<UdpLink> {
    let port = options.port ?? SCTP_UDP_PORT;
    const sockets: LinkSocket[] = [];
    // The receiver is the link's, set once it exists; packets before that have nowhere to go.
    let receive: PacketReceiver = () => undefined;
    try {
      for (const address of options.addresses) {
        const v6 = isIPv6(address);
        const socket =
          options.addon === undefined
            ? await openDgram(address, v6, port, (packet, remote) => receive(packet, remote, address))
            : openNative(options.addon, address, v6, port, (packet, remote) =>
                receive(packet, remote, address),
              );
        sockets.push({ address, v6, socket: socket.socket, packets: [], addresses: [], ports: [] });
        // Every socket shares the first one's port, so that peers see one encapsulation port.
        port = socket.port;
      }
    } catch (error) {
      await Promise.all(sockets.map(closeSocket));
      throw error;
    }
    const link = new UdpLink(sockets, port, options.mtu ?? 1500);
    receive = (packet, remote, local) => link.#receiver(packet, remote, local);
    return link;
  }

  maxPacketSize(remote: LinkAddress): number {
    // IP header (20 or 40 bytes) and the UDP header (8).
    return this.#mtu - (isIpv6Address(remote.address) ? 40 : 20) - 8;
  }

  send(packet: Uint8Array, remote: LinkAddress, local?: string): void {
    // The stack's timers may still send after close: such a packet is lost, as on the wire.
    if (this.#closed) return;
    const s = this.#socketFor(isIpv6Address(remote.address), local);
    if (s === undefined) return;
    // Packets leave together once the current callback is done (process.nextTick; queueMicrotask would
    // cost an AsyncResource a call): the stack sends a few per flush, and the native socket hands a batch
    // of received packets over in one callback scope. The stack never writes to a packet it has sent, so
    // it may wait until then.
    s.packets.push(packet);
    s.addresses.push(remote.address);
    s.ports.push(remote.port);
    if (!this.#batchQueued) {
      this.#batchQueued = true;
      process.nextTick(this.#sendBatches);
    }
  }

  /** The socket bound to `local`, else the first of the family (a loop: this runs per packet). */
  #socketFor(v6: boolean, local: string | undefined): LinkSocket | undefined {
    let first: LinkSocket | undefined;
    for (const s of this.#sockets) {
      if (s.v6 !== v6) continue;
      if (s.address === local) return s;
      first ??= s;
    }
    return first;
  }

  onPacket(receiver: PacketReceiver): void {
    this.#receiver = receiver;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // What the stack sent before closing (its ABORTs) still leaves.
    await Promise.all(
      this.#sockets.map(async (s) => {
        await sendLast(s);
        await closeSocket(s);
      }),
    );
  }
}

type Receive = (packet: Uint8Array, remote: LinkAddress) => void;

function openNative(
  addon: NativeAddon,
  address: string,
  v6: boolean,
  port: number,
  receive: Receive,
): { socket: LinkSocket['socket']; port: number } {
  const udp = new addon.UdpSocket(
    v6 ? 6 : 4,
    {
      onPacket: (packet, from, fromPort) => receive(packet, { address: from, port: fromPort }),
      // ICMP errors for earlier datagrams are packet loss to SCTP.
      onError: () => undefined,
    },
    { receiveBufferSize: SOCKET_BUFFER_BYTES, sendBufferSize: SOCKET_BUFFER_BYTES },
  );
  try {
    return { socket: { kind: 'native', udp }, port: udp.bind(address, port) };
  } catch (error) {
    udp.close();
    throw error;
  }
}

async function openDgram(
  address: string,
  v6: boolean,
  port: number,
  receive: Receive,
): Promise<{ socket: LinkSocket['socket']; port: number }> {
  const dgram = createSocket({
    type: v6 ? 'udp6' : 'udp4',
    ipv6Only: v6,
    // One socket carries every association: the kernel's default buffer (about 208 KiB) overflows
    // when hundreds of radios set up at once, and each drop costs an SCTP retransmission timeout.
    // The kernel caps the size at net.core.rmem_max / wmem_max.
    recvBufferSize: SOCKET_BUFFER_BYTES,
    sendBufferSize: SOCKET_BUFFER_BYTES,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      dgram.once('error', reject);
      dgram.bind(port, address, () => {
        dgram.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    dgram.close();
    throw error;
  }
  dgram.on('message', (msg, rinfo) => receive(msg, { address: rinfo.address, port: rinfo.port }));
  // Socket errors (an ICMP unreachable surfacing on some platforms) are packet loss to SCTP.
  dgram.on('error', () => undefined);
  return { socket: { kind: 'dgram', dgram }, port: dgram.address().port };
}

function sendBatch(s: LinkSocket): void {
  if (s.packets.length === 0) return;
  const socket = s.socket;
  if (socket.kind === 'native') {
    // A refusal is a lost packet, which SCTP recovers from. The addon reads the arrays synchronously.
    socket.udp.send(s.packets, s.addresses, s.ports);
  } else {
    // No callback: dgram then tries a synchronous send first; a failure is an ignored error event.
    for (let i = 0; i < s.packets.length; i++) socket.dgram.send(s.packets[i]!, s.ports[i], s.addresses[i]);
  }
  s.packets.length = 0;
  s.addresses.length = 0;
  s.ports.length = 0;
}

/**
 * The batch waiting at close. node:dgram sends after a turn of its own (an address lookup) and drops
 * what is still pending when the socket closes, so its sends are awaited here.
 */
async function sendLast(s: LinkSocket): Promise<void> {
  const socket = s.socket;
  if (socket.kind === 'native') {
    sendBatch(s);
    return;
  }
  const packets = s.packets.splice(0);
  const addresses = s.addresses.splice(0);
  const ports = s.ports.splice(0);
  await Promise.all(
    packets.map(
      (packet, i) =>
        new Promise<void>((resolve) => socket.dgram.send(packet, ports[i], addresses[i], () => resolve())),
    ),
  );
}

function closeSocket(s: LinkSocket): Promise<void> {
  const socket = s.socket;
  if (socket.kind === 'native') {
    socket.udp.close();
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => socket.dgram.close(() => resolve()));
}
