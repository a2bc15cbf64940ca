import { isIPv4, isIPv6 } from 'node:net';

/** One open connection as the share sees it. */
export interface SharedConnection {
  /** The client it counts against (see `clientKey`). */
  readonly client: string;
  /** Requests being answered on it; 0 while it waits for a request head (idle or slow). */
  busy: number;
  /** Closes it; called at most once, by the share, when it is evicted. */
  close(): void;
}

type Admission = { admitted: true } | { admitted: false; reason: 'client cap' | 'over share' };

/**
 * Who a connection counts against: its IPv4 address (IPv4-mapped IPv6 included), or the /64 of an IPv6
 * address, since one IPv6 host usually holds a whole /64 and could otherwise pose as many clients.
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIPv4(address) || !isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, '').toLowerCase())
    .join(':')}::/64`;
}

/**
 * Shares `capacity` connections fairly between clients. While there is room, anyone gets in (up to
 * `perClient`). Once full, a client holding less than its fair share (`capacity` divided by the number of
 * clients, itself included) still gets in: the client holding the most gives up its oldest idle
 * connection (its oldest if none is idle). A client at or over its share is refused. So however many
 * clients hold connections, a new one is admitted as long as there are fewer clients than `capacity`.
 */
export function createConnectionShare(options: { capacity: number; perClient: number }) {
  const { capacity, perClient } = options;
  // Each client's connections in the order they were admitted: the first idle one is the oldest.
  const byClient = new Map<string, Set<SharedConnection>>();
  let total = 0;

  function remove(connection: SharedConnection): void {
    const held = byClient.get(connection.client);
    if (!held?.delete(connection)) return;
    total--;
    if (held.size === 0) byClient.delete(connection.client);
  }

  function evictFromLargest(): void {
    let largest: Set<SharedConnection> | undefined;
    for (const held of byClient.values()) if (!largest || held.size > largest.size) largest = held;
    if (!largest) return;
    let victim: SharedConnection | undefined;
    for (const connection of largest) {
      victim ??= connection;
      if (connection.busy === 0) {
        victim = connection;
        break;
      }
    }
    if (!victim) return;
    remove(victim);
    victim.close();
  }

  return {
    /** Admits `connection` (possibly evicting another client's) or says why not; it is then not held. */
    admit(connection: SharedConnection): Admission {
      const held = byClient.get(connection.client)?.size ?? 0;
      if (held >= perClient) return { admitted: false, reason: 'client cap' };
      if (total >= capacity) {
        const clients = byClient.size + (held === 0 ? 1 : 0);
        if (held >= Math.floor(capacity / clients)) return { admitted: false, reason: 'over share' };
        evictFromLargest();
      }
      let set = byClient.get(connection.client);
      if (!set) byClient.set(connection.client, (set = new Set()));
      set.add(connection);
      total++;
      return { admitted: true };
    },

    /** Forgets a closed connection (harmless if it was evicted or never admitted). */
    release: remove,

    get size(): number {
      return total;
    },
  };
}
