/**
 * A TCP proxy for system tests that stands between one process and a server (a member and PostgreSQL)
 * and can cut the path. `blackhole` stops forwarding both ways without closing anything, as a cut cable
 * does: what either side sends is held here, undelivered and unanswered, and a connection opened
 * meanwhile is accepted and never connected onwards (its handshake waits: a server that accepts the
 * connection and never answers). `restore` delivers what was held, in order, and forwards again, as TCP's
 * retransmissions do once a cable is back (TCP never delivers a stream with a hole in it). `reset` ends
 * every connection with a TCP RST, as a path that comes back after the server gave the connection up.
 */
import net from 'node:net';

export interface TcpProxy {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** Whether the path is cut. */
  readonly cut: boolean;
  blackhole(): void;
  /** What the clients sent while the path was cut, held undelivered (latin1), for a test to wait on. */
  heldTowardsServer(): string;
  restore(): void;
  reset(): void;
  /** Stops listening and resets every connection. */
  close(): Promise<void>;
}

/** One client's connection and, once connected onwards, its server side. */
interface Pair {
  client: net.Socket;
  server: net.Socket | undefined;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let cut = false;
  /** Chunks read while the path was cut, in the order read, with the socket each goes to. */
  let held: { to: net.Socket; chunk: Buffer; towardsServer: boolean }[] = [];

  /** Copies `from` to `to` (holding what comes while cut), reading only while `to` takes more. */
  const forward = (from: net.Socket, to: net.Socket, towardsServer: boolean): void => {
    from.on('data', (chunk: Buffer) => {
      if (cut) held.push({ to, chunk, towardsServer });
      else if (!to.write(chunk)) from.pause();
    });
    to.on('drain', () => from.resume());
  };

  const connectOnwards = (pair: Pair): void => {
    const server = net.connect(target);
    pair.server = server;
    forward(pair.client, server, true);
    forward(server, pair.client, false);
    server.on('error', () => pair.client.resetAndDestroy());
    server.on('close', () => {
      pairs.delete(pair);
      pair.client.destroy();
    });
    pair.client.resume();
  };

  const listener = net.createServer({ pauseOnConnect: true }, (client) => {
    const pair: Pair = { client, server: undefined };
    pairs.add(pair);
    client.on('error', () => pair.server?.resetAndDestroy());
    client.on('close', () => {
      pairs.delete(pair);
      pair.server?.destroy();
    });
    // Cut: accepted by this host's kernel, and then nothing (the client's bytes wait unread).
    if (!cut) connectOnwards(pair);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = listener.address() as net.AddressInfo;

  const reset = (): void => {
    for (const pair of pairs) {
      pair.client.resetAndDestroy();
      pair.server?.resetAndDestroy();
    }
    pairs.clear();
    held = [];
  };

  return {
    port,
    get cut() {
      return cut;
    },
    blackhole() {
      cut = true;
    },
    heldTowardsServer: () =>
      held
        .filter((h) => h.towardsServer)
        .map((h) => h.chunk.toString('latin1'))
        .join(''),
    restore() {
      cut = false;
      for (const { to, chunk } of held) if (!to.destroyed) to.write(chunk);
      held = [];
      for (const pair of pairs) if (pair.server === undefined) connectOnwards(pair);
    },
    reset,
    async close() {
      reset();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
