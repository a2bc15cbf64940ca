import type {
  AssociationEvent,
  ConnectOptions,
  InboundMessage,
  N2Transport,
  TransportAddress,
} from '../../src/network/transport/n2-transport.ts';
import { SIZES, STREAMS, pattern } from './sctp-raw/interop-plan.ts';

/** tc netem arguments of the lossy, reordering link (impaired-link.ts does the same in process). */
export const NETEM = ['loss', '5%', 'reorder', '25%', 'delay', '5ms'];

/** How often the interop plan's sizes (1 B to 64 KiB) are sent over the lossy link. */
const ROUNDS = 2;

export interface LossyResult {
  messages: number;
  bytes: number;
  /** What differs from what was sent, per stream; empty when every byte came back in order. */
  mismatches: string[];
  /**
   * How the association ended after our SHUTDOWN, or 'no end' after 30 s: a lost SHUTDOWN or SHUTDOWN
   * ACK waits for T2-shutdown, whose RTO doubles with each loss (1 s, 2 s, 4 s, ...).
   */
  end: AssociationEvent | 'no end';
}

/**
 * Connects to an echo server, sends the interop plan's sizes round-robin on four streams all at once
 * (so that many packets are in flight to be lost and reordered), waits for every echo, compares them
 * byte for byte with what was sent on their stream, in order, and shuts down.
 */
export async function lossyExchange(
  transport: N2Transport,
  remote: TransportAddress,
  timeoutMs = 45_000,
  local?: ConnectOptions['local'],
): Promise<LossyResult> {
  const echoes: InboundMessage[] = [];
  let ended: (event: AssociationEvent) => void = () => undefined;
  const end = new Promise<AssociationEvent>((resolve) => (ended = resolve));
  const association = await transport.connect(
    { remote: [remote], local, outboundStreams: STREAMS.length, inboundStreams: STREAMS.length },
    () => ({
      message: (m) => echoes.push(m),
      event: (e) => {
        if (e.type === 'communication-lost' || e.type === 'shutdown-complete') ended(e);
      },
    }),
  );
  const sent: Buffer[][] = STREAMS.map(() => []);
  let bytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, size] of SIZES.entries()) {
      const stream = STREAMS[i % STREAMS.length] ?? 0;
      const payload = pattern(size, round * SIZES.length + i);
      const result = association.send(stream, 60, payload);
      if (!result.ok) throw new Error(`send of ${size} B refused: ${result.error}`);
      sent[stream]?.push(payload);
      bytes += size;
    }
  }
  const messages = ROUNDS * SIZES.length;
  for (const deadline = Date.now() + timeoutMs; echoes.length < messages && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const mismatches: string[] = [];
  if (echoes.length !== messages) mismatches.push(`${echoes.length} of ${messages} echoes came back`);
  for (const stream of STREAMS) {
    const back = echoes.filter((m) => m.streamId === stream);
    const expected = sent[stream] ?? [];
    if (back.length !== expected.length)
      mismatches.push(`stream ${stream}: ${back.length} of ${expected.length}`);
    for (const [k, m] of back.entries()) {
      const want = expected[k];
      if (m.ppid !== 60 || want === undefined || !Buffer.from(m.payload).equals(want)) {
        mismatches.push(`stream ${stream} message ${k}: ${m.payload.length} B (PPID ${m.ppid}) differs`);
      }
    }
  }
  association.shutdown();
  const timeout = new Promise<'no end'>((resolve) => setTimeout(() => resolve('no end'), 30_000).unref());
  return { messages, bytes, mismatches, end: await Promise.race([end, timeout]) };
}
