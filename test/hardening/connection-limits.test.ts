import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Issue 12, finding 6: idle and slow-header connections were held for a minute and one client could take
// every connection. Short timeouts and a per-address cap bound them (limits lowered here to stay fast).
let t: TestApp;
let port: number;
before(async () => {
  t = await createTestApp({
    connectionLimits: { headersTimeoutMs: 300, keepAliveTimeoutMs: 300, maxConnectionsPerAddress: 3 },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
after(() => t.close());

async function open(): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  // Read whatever the server answers, so its closing reaches this end.
  socket.resume();
  return socket;
}

const closed = (socket: Socket) =>
  new Promise<void>((resolve) => {
    if (socket.destroyed) resolve();
    socket.once('close', () => resolve());
  });

const connections = () =>
  new Promise<number>((resolve, reject) =>
    t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

describe('connection limits', () => {
  it('closes a connection that never finishes its request head', async () => {
    const socket = await open();
    socket.write('GET /api/v1/status HTTP/1.1\r\nhost: x\r\n');
    await closed(socket);
  });

  it('closes an idle keep-alive connection', async () => {
    const socket = await open();
    socket.write('GET /api/v1/status HTTP/1.1\r\nhost: x\r\n\r\n');
    await closed(socket);
  });

  it('refuses connections from one address beyond its cap, and serves again once they close', async () => {
    const held = await Promise.all([open(), open(), open()]);
    const extra = await open();
    await closed(extra);
    for (const socket of held) socket.destroy();
    await Promise.all(held.map(closed));
    // The server hears of the closes a moment later; then the address has room again.
    while ((await connections()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/status`);
    assert.equal(response.status, 200);
  });
});
