import { isIPv6 } from 'node:net';

import type { IpFamily, NativeAddon, RawSocket } from '../native/native-addon.ts';
import {
  isIpv6Address,
  type LinkAddress,
  type PacketLink,
  type PacketReceiver,
} from '../sctp/packet-link.ts';

interface RawLinkOptions {
  /** The loaded native addon (`loadNativeAddon`). */
  addon: NativeAddon;
  /** Local addresses to receive on; `0.0.0.0` / `::` for every address of that family. */
  addresses: readonly string[];
  /** The path MTU assumed (no PMTU discovery): 1500 unless told. */
  mtu?: number;
  /** SO_RCVBUF of each raw socket: every SCTP packet of the host passes through it. Default 4 MiB. */
  receiveBufferSize?: number;
  /** Receive failures and datagrams the addon could not parse; they are dropped. */
  onError?: (error: Error) => void;
}

const WILDCARDS = new Set(['0.0.0.0', '::']);
const DEFAULT_RECEIVE_BUFFER = 4 << 20;

interface FamilySocket {
  family: IpFamily;
  socket: RawSocket;
  /** The one address the socket is bound to (it then sends from it), if any. */
  bound: string | undefined;
  /** Destinations accepted; undefined: any (a wildcard was listed). */
  accepts: ReadonlySet<string> | undefined;
  /** Packets sent since the last batch left, with their destinations and sources (read in step). */
  readonly packets: Uint8Array[];
  readonly addresses: string[];
  readonly sources: (string | undefined)[];
}

/**
 * SCTP packets carried directly in IP datagrams of protocol 132 (RFC 9260 1.4), over the addon's raw
 * sockets: one per address family. Needs CAP_NET_RAW. A raw socket sees every SCTP datagram of its
 * network namespace, so the link keeps those addressed to its own addresses and the endpoint above
 * keeps those for its own ports; one raw stack per namespace, on a host without kernel SCTP (with
 * it, the kernel answers the same packets). See docs/sctp-native.md.
 */
export class RawLink implements PacketLink {
  readonly localAddresses: readonly string[];
  readonly #sockets: FamilySocket[];
  readonly #mtu: number;
  #receiver: PacketReceiver = () => undefined;
  #closed = false;
  #batchQueued = false;
  readonly #sendBatches = () => {
    this.#batchQueued = false;
    for (const entry of this.#sockets) this.#sendBatch(entry);
  };

  private constructor(options: RawLinkOptions) {
    this.localAddresses = [...options.addresses];
    this.#mtu = options.mtu ?? 1500;
    this.#sockets = [];
    const onError = options.onError ?? (() => undefined);
    try {
      for (const family of [4, 6] as const) {
        const mine = options.addresses.filter((a) => (isIPv6(a) ? 6 : 4) === family);
        if (mine.length === 0) continue;
        const wildcard = mine.some((a) => WILDCARDS.has(a));
        const bound = !wildcard && mine.length === 1 ? mine[0] : undefined;
        const entry: FamilySocket = {
          family,
          bound,
          accepts: wildcard ? undefined : new Set(mine),
          packets: [],
          addresses: [],
          sources: [],
          socket: new options.addon.RawSocket(
            family,
            {
              onPacket: (packet, source, destination) => {
                if (entry.accepts === undefined || entry.accepts.has(destination)) {
                  this.#receiver(packet, { address: source, port: 0 }, destination);
                }
              },
              onError,
            },
            { receiveBufferSize: options.receiveBufferSize ?? DEFAULT_RECEIVE_BUFFER },
          ),
        };
        this.#sockets.push(entry);
        if (bound !== undefined) entry.socket.bind(bound);
      }
    } catch (error) {
      for (const entry of this.#sockets) entry.socket.close();
      throw error;
    }
  }

  /** Opens the raw sockets; throws the addon's error (EPERM without CAP_NET_RAW, EADDRNOTAVAIL). */
  static open(options: RawLinkOptions): RawLink {
    if (options.addresses.length === 0) throw new Error('raw link: no local address');
    return new RawLink(options);
  }

  maxPacketSize(remote: LinkAddress): number {
    // An IPv4 datagram's Total Length and an IPv6 Payload Length are 16 bits (loopback's MTU is 65,536).
    return isIpv6Address(remote.address) ? Math.min(this.#mtu - 40, 65535) : Math.min(this.#mtu, 65535) - 20;
  }

  send(packet: Uint8Array, remote: LinkAddress, local?: string): void {
    // The stack's timers may still send after close: such a packet is lost, as on the wire.
    if (this.#closed) return;
    const family = isIpv6Address(remote.address) ? 6 : 4;
    // A loop, not find(): this runs per packet.
    let entry: FamilySocket | undefined;
    for (const s of this.#sockets) if (s.family === family) entry = s;
    if (entry === undefined) return;
    // A socket bound to one address sends from it; otherwise pick the asked-for source (multi-homing).
    const source =
      entry.bound === undefined && local !== undefined && !WILDCARDS.has(local) && entry.accepts?.has(local)
        ? local
        : undefined;
    // Packets leave together once the current callback is done (process.nextTick; queueMicrotask would
    // cost an AsyncResource a call): the stack sends a few per flush, and the handlers of one batch of
    // received packets run in one callback scope (the addon). One sendmmsg for them all costs less than
    // a system call each; the kernel copies them.
    entry.packets.push(packet);
    entry.addresses.push(remote.address);
    entry.sources.push(source);
    if (!this.#batchQueued) {
      this.#batchQueued = true;
      process.nextTick(this.#sendBatches);
    }
  }

  #sendBatch(entry: FamilySocket): void {
    if (entry.packets.length === 0) return;
    // A refusal is a lost packet, which SCTP recovers from.
    entry.socket.sendBatch(entry.packets, entry.addresses, entry.sources);
    // The addon read them synchronously: the arrays serve the next batch.
    entry.packets.length = 0;
    entry.addresses.length = 0;
    entry.sources.length = 0;
  }

  onPacket(receiver: PacketReceiver): void {
    this.#receiver = receiver;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // What the stack sent before closing (its ABORTs) still leaves.
    for (const entry of this.#sockets) {
      this.#sendBatch(entry);
      entry.socket.close();
    }
  }
}
