// The userland SCTP over raw IP (the `raw` N2 transport, native addon) on loopback, beside a plain UDP
// echo of the same payloads in the same run (issue 13 item 6): message rate, round-trip latency and CPU
// per message for 200- and 2,000-byte messages. Both ends run in this process on one raw endpoint (one
// raw stack per network namespace), so CPU per message counts both ends, as for the UDP baseline.
// Needs CAP_NET_RAW and a kernel without SCTP. Run: node --import tsx bench/sctp-raw.ts [--seconds N]
import { createSocket } from 'node:dgram';
import { parseArgs } from 'node:util';

import {
  kernelSctpSupport,
  loadNativeAddon,
  rawSocketSupport,
} from '../src/network/transport/native/native-addon.ts';
import { createRawTransport } from '../src/network/transport/raw/raw-transport.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '3' } } });
const SECONDS = Number(values.seconds);
if (!(SECONDS > 0)) throw new RangeError('--seconds must be a positive number');
/** Messages kept in flight for the rate measurement. */
const WINDOW = 64;

const load = loadNativeAddon();
if (!load.ok) throw load.error;
const addon = load.addon;
const raw = rawSocketSupport(addon, 4);
if (!raw.available) throw new Error(`bench/sctp-raw.ts: ${raw.reason}`);
if (kernelSctpSupport(addon).available)
  throw new Error('bench/sctp-raw.ts: the kernel has SCTP; it would answer');

/** An echo pair: `send` one message, `onEcho` for every message that comes back. */
interface EchoPair {
  /** UDP may drop a datagram under load: the rate loop then refills its window. */
  lossy: boolean;
  send(payload: Uint8Array): void;
  onEcho(callback: () => void): void;
  close(): Promise<void>;
}

async function udpEchoPair(): Promise<EchoPair> {
  const server = createSocket('udp4');
  const client = createSocket('udp4');
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
  server.on('message', (msg, rinfo) => server.send(msg, rinfo.port, rinfo.address));
  const port = server.address().port;
  let echo = () => undefined as void;
  client.on('message', () => echo());
  return {
    lossy: true,
    send: (payload) => client.send(payload, port, '127.0.0.1'),
    onEcho: (callback) => (echo = callback),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => client.close(() => resolve()));
    },
  };
}

/** `mtu`: loopback's own (65,536), or 1,500 as on an Ethernet NIC (2,000-byte messages then fragment). */
async function rawEchoPair(mtu: number): Promise<EchoPair> {
  const { transport } = createRawTransport({ addon, addresses: ['127.0.0.1'], mtu });
  await transport.listen({ addresses: ['127.0.0.1'], port: 38412 }, (association) => ({
    message: (m) => association.send(m.streamId, m.ppid, m.payload),
    event: () => undefined,
  }));
  let echo = () => undefined as void;
  const association = await transport.connect({ remote: [{ address: '127.0.0.1', port: 38412 }] }, () => ({
    message: () => echo(),
    event: () => undefined,
  }));
  return {
    lossy: false,
    send: (payload) => {
      const result = association.send(1, 60, payload);
      if (!result.ok) throw new Error(`send refused: ${result.error}`);
    },
    onEcho: (callback) => (echo = callback),
    close: () => transport.close(),
  };
}

/** Rate with WINDOW messages in flight; a lost UDP datagram is replaced after 50 ms without echoes. */
async function rate(pair: EchoPair, payload: Uint8Array): Promise<{ perSecond: number; cpuUs: number }> {
  let echoes = 0;
  let lastEcho = performance.now();
  pair.onEcho(() => {
    echoes++;
    lastEcho = performance.now();
    pair.send(payload);
  });
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < WINDOW; i++) pair.send(payload);
  while (performance.now() - start < SECONDS * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (pair.lossy && performance.now() - lastEcho > 50) {
      for (let i = 0; i < WINDOW; i++) pair.send(payload);
      lastEcho = performance.now();
    }
  }
  const elapsed = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const counted = echoes;
  pair.onEcho(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { perSecond: counted / elapsed, cpuUs: (used.user + used.system) / counted };
}

/** Round-trip times of one message at a time. */
async function latency(pair: EchoPair, payload: Uint8Array): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  const end = performance.now() + (SECONDS * 1000) / 2;
  while (performance.now() < end) {
    const sent = performance.now();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 100);
      pair.onEcho(() => {
        clearTimeout(timer);
        samples.push(performance.now() - sent);
        resolve();
      });
      pair.send(payload);
    });
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

async function measure(make: () => Promise<EchoPair>, size: number) {
  const payload = new Uint8Array(size).fill(7);
  const pair = await make();
  const r = await rate(pair, payload);
  const l = await latency(pair, payload);
  await pair.close();
  return { messagesPerSecond: r.perSecond, cpuUsPerMessage: r.cpuUs, p50Ms: l.p50, p99Ms: l.p99 };
}

const rows: string[] = [];
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
for (const size of [200, 2000]) {
  const udp = await measure(udpEchoPair, size);
  for (const mtu of [65536, 1500]) {
    const sctp = await measure(() => rawEchoPair(mtu), size);
    const ratio = sctp.messagesPerSecond / udp.messagesPerSecond;
    rows.push(
      `| ${size} B | ${fmt(mtu)} | ${fmt(sctp.messagesPerSecond)} | ${fmt(udp.messagesPerSecond)} | ${(ratio * 100).toFixed(0)}% ` +
        `| ${fmt(sctp.cpuUsPerMessage, 1)} | ${fmt(udp.cpuUsPerMessage, 1)} ` +
        `| ${sctp.p50Ms.toFixed(3)} / ${sctp.p99Ms.toFixed(3)} | ${udp.p50Ms.toFixed(3)} / ${udp.p99Ms.toFixed(3)} |`,
    );
  }
}

process.stdout.write(
  [
    `SCTP over raw IP on loopback, echo of each message; ${SECONDS} s per rate measurement, ${WINDOW} messages in flight.`,
    '',
    '| payload | link MTU | SCTP msg/s | UDP msg/s | ratio (goal >= 50%) | SCTP CPU µs/msg | UDP CPU µs/msg | SCTP RTT p50 / p99 ms | UDP RTT p50 / p99 ms |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n'),
);
