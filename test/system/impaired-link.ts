import type { LinkAddress, PacketLink } from '../../src/network/transport/sctp/packet-link.ts';

/**
 * `tc netem loss 5% reorder 25% delay 5ms`, in this process, around a packet link of our stack: both
 * what it sends and what it receives are impaired. For kernels without sch_netem (this project's
 * build machines: "Specified qdisc kind is unknown", no module loading). As in netem, a reordered
 * packet skips the delay and so overtakes the delayed ones. The losses come from a fixed-seed PRNG, so
 * a run's impairments are the same as long as the packets are.
 */
export interface ImpairedLink extends PacketLink {
  readonly dropped: number;
  readonly reordered: number;
}

export const IMPAIRMENT = { loss: 0.05, reorder: 0.25, delayMs: 5 };

/** mulberry32, seeded. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function impaired(link: PacketLink, seed: number): ImpairedLink {
  const random = prng(seed);
  const stats = { dropped: 0, reordered: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const impair = (deliver: () => void) => {
    if (random() < IMPAIRMENT.loss) {
      stats.dropped++;
      return;
    }
    if (random() < IMPAIRMENT.reorder) {
      stats.reordered++;
      setImmediate(deliver);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      deliver();
    }, IMPAIRMENT.delayMs);
    timers.add(timer);
  };
  return {
    get dropped() {
      return stats.dropped;
    },
    get reordered() {
      return stats.reordered;
    },
    localAddresses: link.localAddresses,
    maxPacketSize: (remote: LinkAddress) => link.maxPacketSize(remote),
    send(packet: Uint8Array, remote: LinkAddress, local?: string) {
      impair(() => link.send(packet, remote, local));
    },
    onPacket(receiver) {
      link.onPacket((packet, remote, local) => {
        // A received packet is only valid during the call (PacketReceiver): copy it (a Buffer's slice
        // would be a view of the same memory).
        const copy = new Uint8Array(packet);
        impair(() => receiver(copy, remote, local));
      });
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await link.close();
    },
  };
}
