// The userland SCTP over UDP (RFC 6951) on loopback, beside a plain UDP echo of the same payloads in the
// same run (issue 13 item 6): message rate, round-trip latency and CPU per message for 200- and
// 2,000-byte messages; then 1,000 concurrent associations (set-up time, memory per association).
// Both ends run in this process, for the baseline as for SCTP, so CPU per message counts both ends.
// Run: node --expose-gc --import tsx bench/sctp.ts [--seconds N] (default 3 seconds per measurement).
import { parseArgs } from 'node:util';

import type { N2Association } from '../src/network/transport/n2-transport.ts';
import { createUdpTransport } from '../src/network/transport/udp/udp-transport.ts';
import { latency, rate, udpEchoPair, type EchoPair } from './echo-pair.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '3' } } });
const SECONDS = Number(values.seconds);
if (!(SECONDS > 0)) throw new RangeError('--seconds must be a positive number');
/** Messages kept in flight for the rate measurement. */
const WINDOW = 64;

interface Figures {
  messagesPerSecond: number;
  cpuUsPerMessage: number;
  p50Ms: number;
  p99Ms: number;
}

/** An echo pair under test: `send` one message, `onEcho` for every message that comes back. */

/**
 * Our stack at a given link MTU: 1500 (the UDP link's default, as on Ethernet) or 65535 (loopback's own
 * MTU, the one the UDP baseline's 2,000-byte datagrams travel unfragmented under).
 */
async function sctpEchoPair(mtu: number): Promise<EchoPair> {
  const server = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0, mtu });
  const client = await createUdpTransport({
    addresses: ['127.0.0.1'],
    udpPort: 0,
    peerUdpPort: server.link.port,
    mtu,
  });
  await server.transport.listen({ addresses: ['127.0.0.1'], port: 38412 }, (association) => ({
    message: (m) => association.send(m.streamId, m.ppid, m.payload),
    event: () => undefined,
  }));
  let echo = () => undefined as void;
  const association = await client.transport.connect(
    { remote: [{ address: '127.0.0.1', port: 38412 }] },
    () => ({
      message: () => echo(),
      event: () => undefined,
    }),
  );
  return {
    lossy: false,
    send: (payload) => {
      const result = association.send(1, 60, payload);
      if (!result.ok) throw new Error(`send refused: ${result.error}`);
    },
    onEcho: (callback) => (echo = callback),
    close: async () => {
      await client.transport.close();
      await server.transport.close();
    },
  };
}

async function measure(make: () => Promise<EchoPair>, size: number): Promise<Figures> {
  const payload = new Uint8Array(size).fill(7);
  const pair = await make();
  const r = await rate(pair, payload, SECONDS, WINDOW);
  const l = await latency(pair, payload, SECONDS);
  await pair.close();
  return { messagesPerSecond: r.perSecond, cpuUsPerMessage: r.cpuUs, p50Ms: l.p50, p99Ms: l.p99 };
}

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

async function manyAssociations(count: number) {
  const server = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0 });
  const client = await createUdpTransport({
    addresses: ['127.0.0.1'],
    udpPort: 0,
    peerUdpPort: server.link.port,
  });
  await server.transport.listen({ addresses: ['127.0.0.1'], port: 38412 }, () => ({
    message: () => undefined,
    event: () => undefined,
  }));
  const before = heapUsed();
  const start = performance.now();
  const associations: N2Association[] = [];
  // In batches of 100 so that a burst of INITs does not overflow the loopback socket buffers.
  for (let i = 0; i < count; i += 100) {
    const batch = Array.from({ length: Math.min(100, count - i) }, () =>
      client.transport.connect({ remote: [{ address: '127.0.0.1', port: 38412 }] }, () => ({
        message: () => undefined,
        event: () => undefined,
      })),
    );
    associations.push(...(await Promise.all(batch)));
  }
  const setupMs = performance.now() - start;
  const after = heapUsed();
  const serverCount = server.transport.associationCount;
  await client.transport.close();
  await server.transport.close();
  // Each association exists twice here (our client's end and our server's end).
  return {
    setupMs,
    bytesPerAssociation: (after - before) / (associations.length + serverCount),
    serverCount,
  };
}

const rows: string[] = [];
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
for (const size of [200, 2000]) {
  const udp = await measure(udpEchoPair, size);
  for (const mtu of [1500, 65535]) {
    const sctp = await measure(() => sctpEchoPair(mtu), size);
    const ratio = sctp.messagesPerSecond / udp.messagesPerSecond;
    rows.push(
      `| ${size} B | ${mtu} | ${fmt(sctp.messagesPerSecond)} | ${fmt(udp.messagesPerSecond)} | ${(ratio * 100).toFixed(0)}% ` +
        `| ${fmt(sctp.cpuUsPerMessage, 1)} | ${fmt(udp.cpuUsPerMessage, 1)} ` +
        `| ${sctp.p50Ms.toFixed(3)} / ${sctp.p99Ms.toFixed(3)} | ${udp.p50Ms.toFixed(3)} / ${udp.p99Ms.toFixed(3)} |`,
    );
  }
}
const many = await manyAssociations(1000);

process.stdout.write(
  [
    `SCTP over UDP on loopback, echo of each message; ${SECONDS} s per rate measurement, ${WINDOW} messages in flight.`,
    '',
    '| payload | SCTP link MTU | SCTP msg/s | UDP msg/s | ratio (goal >= 50%) | SCTP CPU µs/msg | UDP CPU µs/msg | SCTP RTT p50 / p99 ms | UDP RTT p50 / p99 ms |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `1,000 associations: set up in ${fmt(many.setupMs)} ms (${many.serverCount} on the server), ` +
      `${fmt(many.bytesPerAssociation / 1024, 1)} KiB of heap per association end` +
      ((globalThis as { gc?: unknown }).gc === undefined ? ' (run with --expose-gc for a settled heap)' : ''),
    '',
  ].join('\n'),
);
