import type {
  LinkAddress,
  PacketLink,
  PacketReceiver,
} from '../../../../src/network/transport/sctp/packet-link.ts';

/**
 * Links between endpoints in memory. Every packet is delivered on a later turn (setImmediate), through
 * an optional filter that may drop, duplicate or hold it; `settle` waits until nothing is in flight.
 */
export class MemoryNetwork {
  readonly #receivers = new Map<string, PacketReceiver>();
  #inFlight = 0;
  /** Decides each packet's fate: deliver, drop, or deliver twice. */
  filter: (packet: Uint8Array, from: string, to: string) => 'deliver' | 'drop' | 'duplicate' = () =>
    'deliver';
  readonly sent: { from: string; to: string; packet: Uint8Array }[] = [];

  link(address: string, mtu = 1280): PacketLink {
    const deliver = (copy: Uint8Array, to: string) => this.#deliver(copy, address, to);
    const receivers = this.#receivers;
    return {
      localAddresses: [address],
      maxPacketSize: () => mtu,
      send: (packet: Uint8Array, remote: LinkAddress) => deliver(packet.slice(), remote.address),
      onPacket(receiver: PacketReceiver) {
        receivers.set(address, receiver);
      },
      async close() {
        receivers.delete(address);
      },
    };
  }

  #deliver(copy: Uint8Array, from: string, to: string): void {
    this.sent.push({ from, to, packet: copy });
    const fate = this.filter(copy, from, to);
    if (fate === 'drop') return;
    for (let i = 0; i < (fate === 'duplicate' ? 2 : 1); i++) {
      this.#inFlight++;
      setImmediate(() => {
        this.#inFlight--;
        this.#receivers.get(to)?.(copy, { address: from, port: 0 }, to);
      });
    }
  }

  /** Injects raw bytes as if `from` had sent them to `to`. */
  inject(packet: Uint8Array, from: string, to: string): void {
    this.#receivers.get(to)?.(packet, { address: from, port: 0 }, to);
  }

  async settle(): Promise<void> {
    for (let i = 0; i < 10_000; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#inFlight === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.#inFlight === 0) return;
      }
    }
    throw new Error('the memory network did not settle');
  }
}
