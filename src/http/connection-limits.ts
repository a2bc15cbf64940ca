import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** A client must send its whole request head within this time (slow-header clients). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection closes after this time. */
  keepAliveTimeoutMs: number;
  /** Connections open at once, all clients together; leave headroom under the descriptor limit. */
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

/**
 * Bounds what idle or slow connections can hold (issue 12): short header and keep-alive timeouts, a
 * cap on connections, and a cap per client address. A connection over a cap is closed at once, before
 * it costs a parser or a descriptor for long.
 */
/** Node checks the header timeout on this interval (a server option): a tenth of it keeps the bound tight. */
export const checkingInterval = (limits: ConnectionLimits): number =>
  Math.max(100, Math.floor(limits.headersTimeoutMs / 10));

export function applyConnectionLimits(server: Server, limits: ConnectionLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
