import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey, createConnectionShare, type SharedConnection } from './connection-share.ts';
import { connectionCapacity, openFileLimit } from './descriptor-limit.ts';

export interface ConnectionLimits {
  /**
   * A connection's first request head must arrive within this time of its accept, and each later one
   * within this time of its first byte (slow-header and silent clients).
   */
  headersTimeoutMs: number;
  /** An idle keep-alive connection closes after this time. */
  keepAliveTimeoutMs: number;
  /** Connections open at once, all clients together (lowered to 3/4 of the descriptor limit if above). */
  maxConnections: number;
  /** Connections open at once from one address, so one client cannot take every connection. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 4_096,
  maxConnectionsPerAddress: 256,
};

/** Node checks the header timeout on this interval (a server option): a tenth of it keeps the bound tight. */
export const checkingInterval = (limits: ConnectionLimits): number =>
  Math.max(100, Math.floor(limits.headersTimeoutMs / 10));

interface Tracked {
  connection: SharedConnection;
  headDeadline: NodeJS.Timeout;
}

/**
 * Bounds what idle, slow or numerous connections can hold (issues 12 and 28): short header and keep-alive
 * timeouts, a first request head due within the header timeout of the accept, a cap per client, and a
 * total cap under the descriptor limit shared fairly between clients (connection-share.ts). A connection
 * that is not admitted is closed at once, before it costs a parser or a descriptor for long.
 */
export function applyConnectionLimits(
  server: Server,
  limits: ConnectionLimits,
  descriptors: number | undefined = openFileLimit(),
): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const share = createConnectionShare({
    capacity: connectionCapacity(limits.maxConnections, descriptors),
    perClient: limits.maxConnectionsPerAddress,
  });
  // By remote address and port, which a TLS connection's socket shares with the TCP socket under it.
  const open = new Map<string, Tracked>();

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const connection: SharedConnection = {
      client: clientKey(address),
      busy: 0,
      close: () => socket.destroy(),
    };
    if (!share.admit(connection).admitted) {
      socket.destroy();
      return;
    }
    // Node's own header timeout counts from a request's first byte, so a connection that never sends one
    // would be held until the client leaves: the first head is due from the accept.
    const headDeadline = setTimeout(() => socket.destroy(), limits.headersTimeoutMs);
    headDeadline.unref();
    const key = `${address} ${socket.remotePort}`;
    open.set(key, { connection, headDeadline });
    socket.once('close', () => {
      clearTimeout(headDeadline);
      if (open.get(key)?.connection === connection) open.delete(key);
      share.release(connection);
    });
  });

  // A whole head has arrived: the deadline is met, and the connection is busy until its answer is done
  // (the share evicts idle connections first).
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const tracked = open.get(`${request.socket.remoteAddress} ${request.socket.remotePort}`);
    if (!tracked) return;
    clearTimeout(tracked.headDeadline);
    tracked.connection.busy++;
    response.once('close', () => tracked.connection.busy--);
  });
}
