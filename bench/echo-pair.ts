// Echo pairs and the rate and latency loops the SCTP benchmarks share (bench/sctp.ts over UDP,
// bench/sctp-raw.ts over raw IP), with the plain UDP echo both compare against.
import { createSocket } from 'node:dgram';

/** Two ends on loopback: what one sends comes back to it once the other has echoed it. */
export interface EchoPair {
  /** UDP may drop a datagram under load: the rate loop then refills its window. */
  lossy: boolean;
  send(payload: Uint8Array): void;
  onEcho(callback: () => void): void;
  close(): Promise<void>;
}

/** The bare baseline: a plain UDP echo of the same payloads. */
export async function udpEchoPair(): Promise<EchoPair> {
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

/** Rate with `window` messages in flight; a lost UDP datagram is replaced after 50 ms without echoes. */
export async function rate(
  pair: EchoPair,
  payload: Uint8Array,
  seconds: number,
  window: number,
): Promise<{ perSecond: number; cpuUs: number }> {
  let echoes = 0;
  let lastEcho = performance.now();
  pair.onEcho(() => {
    echoes++;
    lastEcho = performance.now();
    pair.send(payload);
  });
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < window; i++) pair.send(payload);
  while (performance.now() - start < seconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (pair.lossy && performance.now() - lastEcho > 50) {
      for (let i = 0; i < window; i++) pair.send(payload);
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
export async function latency(
  pair: EchoPair,
  payload: Uint8Array,
  seconds: number,
): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  const end = performance.now() + (seconds * 1000) / 2;
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
