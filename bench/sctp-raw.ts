// The userland SCTP over raw IP (the `raw` N2 transport, native addon) on loopback, beside a plain UDP
// echo of the same payloads in the same run (issue 13 item 6): message rate, round-trip latency and CPU
// per message for 200- and 2,000-byte messages. Both ends run in this process on one raw endpoint (one
// raw stack per network namespace), so CPU per message counts both ends, as for the UDP baseline.
// Needs CAP_NET_RAW and a kernel without SCTP. Run: node --import tsx bench/sctp-raw.ts [--seconds N]
import { parseArgs } from 'node:util';

import {
  kernelSctpSupport,
  loadNativeAddon,
  rawSocketSupport,
} from '../src/network/transport/native/native-addon.ts';
import { createRawTransport } from '../src/network/transport/raw/raw-transport.ts';
import { latency, rate, udpEchoPair, type EchoPair } from './echo-pair.ts';

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

async function measure(make: () => Promise<EchoPair>, size: number) {
  const payload = new Uint8Array(size).fill(7);
  const pair = await make();
  const r = await rate(pair, payload, SECONDS, WINDOW);
  const l = await latency(pair, payload, SECONDS);
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
