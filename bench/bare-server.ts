/**
 * The bare baseline: a `node:http` server answering every request with the same JSON body of a given byte
 * size. It runs in its own process, like the service, so it never shares an event loop with the load
 * generator. Usage: `node --import tsx bench/bare-server.ts <bytes>`; it prints its port and runs until
 * SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonBodyOfSize } from './json-body.ts';

const body = jsonBodyOfSize(Number(process.argv[2]));
const server = createServer((request, response) => {
  // Read the request body (the login posts one) before answering, as the service does.
  request.resume();
  request.on('end', () => {
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
    });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
