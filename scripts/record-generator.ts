import type { RecordsIngestion } from '../src/records/ingestion.ts';
import type {
  FlowReportInput,
  RadioEventInput,
  RadioLogInput,
  SubscriberLogInput,
} from '../src/records/record-inputs.ts';
import { DAY_MS } from '../src/validation/calendar-date.ts';

/**
 * Plausible records for development and benchmarks: subscribers of the default network (MCC 001,
 * MNC 01) on UE addresses from the default pool 10.45.0.0/16, talking to well-known services over TCP,
 * UDP (DNS, QUIC, NTP) and ICMP; NGAP traffic of a few gNBs with the message mix of attaches, sessions
 * and releases; daily usage with downlink several times uplink. Deterministic for a given seed.
 *
 * The NGAP bytes are shaped like real messages (TS 38.413 APER): the NGAP-PDU choice, procedure code,
 * criticality and open-type length, then a protocol-IE container with the UE NGAP IDs and, for NAS
 * transports, a NAS-PDU of random bytes. They were not checked against a decoder and carry no real
 * radio configuration: good enough to fill lists and exercise storage, not captures.
 */

/** A small fast PRNG (mulberry32), so a seed reproduces the same data set. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number): number => min + Math.floor(next() * (max - min + 1)),
    pick<T>(items: readonly T[]): T {
      return items[Math.floor(next() * items.length)] as T;
    },
    /** Picks by weight: `[[value, weight], ...]`. */
    weighted<T>(items: readonly (readonly [T, number])[]): T {
      const total = items.reduce((sum, [, weight]) => sum + weight, 0);
      let roll = next() * total;
      for (const [value, weight] of items) {
        roll -= weight;
        if (roll < 0) return value;
      }
      return (items.at(-1) as readonly [T, number])[0];
    },
    /** Log-normal around `median`: most values near it, a long tail of large ones. */
    logNormal(median: number, spread: number): number {
      const u = Math.max(next(), 1e-12);
      const v = next();
      const gaussian = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
      return Math.max(1, Math.round(median * Math.exp(spread * gaussian)));
    },
  };
}

export type Random = ReturnType<typeof createRandom>;

export function imsiOf(index: number): string {
  return `00101${String(index + 1).padStart(10, '0')}`;
}

function ueAddress(index: number): string {
  const host = index + 2;
  return `10.45.${(host >> 8) & 255}.${host & 255}`;
}

/** Services a phone talks to: address, port, protocol, weight. */
const SERVICES: readonly (readonly [readonly [string, number, number], number])[] = [
  [['8.8.8.8', 53, 17], 10],
  [['1.1.1.1', 53, 17], 6],
  [['2001:4860:4860::8888', 53, 17], 2],
  [['142.250.185.78', 443, 6], 14],
  [['142.250.185.78', 443, 17], 10],
  [['157.240.20.35', 443, 6], 9],
  [['17.253.144.10', 443, 6], 7],
  [['151.101.1.140', 443, 6], 6],
  [['2606:4700::6810:84e5', 443, 6], 5],
  [['52.84.150.39', 443, 6], 6],
  [['13.107.42.14', 443, 6], 5],
  [['104.16.132.229', 80, 6], 3],
  [['162.159.200.1', 123, 17], 3],
  [['203.0.113.50', 5060, 17], 1],
  [['198.51.100.7', 4500, 17], 1],
  [['8.8.8.8', 0, 1], 2],
  [['2001:4860:4860::8888', 0, 58], 1],
];

/** One flow and its reply, both ending at `endTime`. */
export function flowPair(random: Random, subscribers: number, endTime: number): FlowReportInput[] {
  const subscriber = random.int(0, subscribers - 1);
  const [server, serverPort, protocol] = random.weighted(SERVICES);
  const ue = server.includes(':') ? `2001:db8:45:${subscriber.toString(16)}::1` : ueAddress(subscriber);
  const uePort = protocol === 1 || protocol === 58 ? 0 : random.int(32768, 60999);
  const duration = protocol === 17 && serverPort === 53 ? random.int(5, 200) : random.logNormal(8_000, 1.5);
  const startTime = endTime - duration;
  const action = random.next() < 0.02 ? 'drop' : 'allow';
  const upPackets = random.logNormal(12, 1.2);
  const downPackets = action === 'drop' ? 0 : Math.round(upPackets * (1 + random.next() * 6));
  const common = { subscriberId: imsiOf(subscriber), protocol, startTime, endTime, action } as const;
  return [
    {
      ...common,
      sourceIp: ue,
      sourcePort: uePort,
      destinationIp: server,
      destinationPort: serverPort,
      packets: upPackets,
      bytes: upPackets * random.int(60, 600),
      direction: 'uplink',
    },
    {
      ...common,
      sourceIp: server,
      sourcePort: serverPort,
      destinationIp: ue,
      destinationPort: uePort,
      packets: downPackets,
      bytes: downPackets * random.int(200, 1400),
      direction: 'downlink',
    },
  ];
}

/** NGAP procedures (TS 38.413 section 9.4.7): name, procedure code, sent by the radio?, weight. */
const NGAP_MESSAGES: readonly (readonly [
  readonly [string, number, 'initiating' | 'successful' | 'unsuccessful', boolean],
  number,
])[] = [
  [['InitialUEMessage', 15, 'initiating', true], 10],
  [['DownlinkNASTransport', 4, 'initiating', false], 18],
  [['UplinkNASTransport', 46, 'initiating', true], 18],
  [['InitialContextSetupRequest', 14, 'initiating', false], 8],
  [['InitialContextSetupResponse', 14, 'successful', true], 8],
  [['PDUSessionResourceSetupRequest', 29, 'initiating', false], 7],
  [['PDUSessionResourceSetupResponse', 29, 'successful', true], 7],
  [['UEContextReleaseRequest', 42, 'initiating', true], 4],
  [['UEContextReleaseCommand', 41, 'initiating', false], 6],
  [['UEContextReleaseComplete', 41, 'successful', true], 6],
  [['Paging', 24, 'initiating', false], 3],
  [['PathSwitchRequest', 25, 'initiating', true], 1],
  [['NGSetupRequest', 21, 'initiating', true], 0.2],
  [['NGSetupResponse', 21, 'successful', false], 0.2],
  [['ErrorIndication', 9, 'initiating', true], 0.3],
];

const GNBS = ['001:01:000001', '001:01:000002', '001:01:000003', '001:01:00000a'];

function ngapBytes(
  random: Random,
  code: number,
  kind: 'initiating' | 'successful' | 'unsuccessful',
  nasTransport: boolean,
): Buffer {
  const ies: number[][] = [];
  // AMF-UE-NGAP-ID (id 10, 0..2^40-1) and RAN-UE-NGAP-ID (id 85, 0..2^32-1): length octet, then value.
  const amfUeId = random.int(1, 0xffff);
  const ranUeId = random.int(1, 0xffff);
  ies.push([0x00, 10, 0x00, 3, 0x08, amfUeId >> 8, amfUeId & 255]);
  ies.push([0x00, 85, 0x00, 3, 0x40, ranUeId >> 8, ranUeId & 255]);
  if (nasTransport) {
    const nas = Array.from({ length: random.int(8, 60) }, () => random.int(0, 255));
    ies.push([0x00, 38, 0x00, nas.length + 1, nas.length, ...nas]);
  }
  const container = [0x00, 0x00, ies.length, ...ies.flat()];
  const choice = { initiating: 0x00, successful: 0x20, unsuccessful: 0x40 }[kind];
  const criticality = kind === 'initiating' && code !== 24 ? 0x40 : 0x00;
  return Buffer.from([choice, code, criticality, container.length, ...container]);
}

export function radioEvent(random: Random, timestamp: number): RadioEventInput {
  const [messageType, code, kind, fromRadio] = random.weighted(NGAP_MESSAGES);
  const ranId = random.pick(GNBS);
  return {
    protocol: 'NGAP',
    messageType,
    direction: fromRadio ? 'inbound' : 'outbound',
    raw: ngapBytes(
      random,
      code,
      kind,
      messageType.includes('NASTransport') || messageType === 'InitialUEMessage',
    ),
    details: { ran_id: ranId, procedure_code: code },
    timestamp,
  };
}

const SUBSCRIBER_EVENTS: readonly (readonly [readonly [string, 'inbound' | 'outbound'], number])[] = [
  [['Registration request', 'inbound'], 5],
  [['Authentication request', 'outbound'], 5],
  [['Authentication response', 'inbound'], 5],
  [['Security mode command', 'outbound'], 5],
  [['Registration accept', 'outbound'], 5],
  [['PDU session establishment request', 'inbound'], 4],
  [['PDU session establishment accept', 'outbound'], 4],
  [['Service request', 'inbound'], 6],
  [['Deregistration request', 'inbound'], 1],
  [['Registration reject', 'outbound'], 0.2],
];

export function subscriberLog(random: Random, subscribers: number, timestamp: number): SubscriberLogInput {
  const [event, direction] = random.weighted(SUBSCRIBER_EVENTS);
  const nas = Buffer.from(Array.from({ length: random.int(6, 40) }, () => random.int(0, 255)));
  nas[0] = 0x7e; // 5GMM extended protocol discriminator
  return {
    imsi: imsiOf(random.int(0, subscribers - 1)),
    event,
    direction,
    raw: nas,
    details: { ran_id: random.pick(GNBS) },
    timestamp,
  };
}

export function radioLog(random: Random, timestamp: number): RadioLogInput {
  const [event, code, level] = random.weighted([
    [['NG Setup', 21, 'info'], 3],
    [['RAN Configuration Update', 35, 'info'], 2],
    [['Error Indication', 9, 'warn'], 1],
    [['NG Reset', 20, 'warn'], 0.5],
    [['SCTP association lost', 0, 'error'], 0.2],
  ] as const);
  return {
    level,
    ranId: random.pick(GNBS),
    event,
    direction: 'inbound',
    raw: ngapBytes(random, code, 'initiating', false),
    details: { procedure_code: code },
    timestamp,
  };
}

export interface SeedCounts {
  radioEvents: number;
  flows: number;
  subscribers: number;
  days: number;
  subscriberLogs: number;
  radioLogs: number;
}

/** When records happen: `count` of them spread evenly (with jitter) from `start` to `end`, oldest first. */
export interface Span {
  start: number;
  end: number;
}

function timeOf(random: Random, span: Span, i: number, count: number): number {
  return Math.floor(span.start + ((i + random.next()) * (span.end - span.start)) / count);
}

/** Offers records, waiting whenever the pipeline pushes back. */
async function offer(ingestion: RecordsIngestion, records: number, accept: () => boolean): Promise<void> {
  while (!accept()) await ingestion.whenWritable(records);
}

export async function seedRadioEvents(
  ingestion: RecordsIngestion,
  random: Random,
  count: number,
  span: Span,
) {
  for (let i = 0; i < count; i += 1) {
    const event = radioEvent(random, timeOf(random, span, i, count));
    await offer(ingestion, 1, () => ingestion.recordRadioEvent(event));
  }
}

/** Flows come in pairs (a request and its reply), handed over in batches as a user plane would. */
export async function seedFlows(
  ingestion: RecordsIngestion,
  random: Random,
  count: number,
  subscribers: number,
  span: Span,
) {
  let pending: FlowReportInput[] = [];
  const handOver = async () => {
    const reports = pending;
    pending = [];
    await offer(ingestion, reports.length, () => ingestion.recordFlowReports(reports));
  };
  for (let i = 0; i < count; i += 2) {
    const pair = flowPair(random, subscribers, timeOf(random, span, i, count));
    pending.push(...pair.slice(0, count - i));
    if (pending.length >= 1000) await handOver();
  }
  if (pending.length > 0) await handOver();
}

export async function seedLogs(
  ingestion: RecordsIngestion,
  random: Random,
  counts: { subscriberLogs: number; radioLogs: number; subscribers: number },
  span: Span,
) {
  for (let i = 0; i < counts.subscriberLogs; i += 1) {
    const log = subscriberLog(random, counts.subscribers, timeOf(random, span, i, counts.subscriberLogs));
    await offer(ingestion, 1, () => ingestion.recordSubscriberLog(log));
  }
  for (let i = 0; i < counts.radioLogs; i += 1) {
    const log = radioLog(random, timeOf(random, span, i, counts.radioLogs));
    await offer(ingestion, 1, () => ingestion.recordRadioLog(log));
  }
}

/** Usage of each subscriber on each of the `days` days up to `now`: a typical volume, varying daily. */
export async function seedUsage(
  ingestion: RecordsIngestion,
  random: Random,
  subscribers: number,
  days: number,
  now: number,
) {
  const typical = Array.from({ length: subscribers }, () => random.logNormal(200_000_000, 1));
  for (let day = days - 1; day >= 0; day -= 1) {
    const at = now - day * DAY_MS;
    for (let s = 0; s < subscribers; s += 1) {
      const downlinkBytes = random.logNormal(typical[s] ?? 1, 0.6);
      const usage = {
        imsi: imsiOf(s),
        uplinkBytes: Math.round(downlinkBytes / random.int(4, 12)),
        downlinkBytes,
        at,
      };
      await offer(ingestion, 1, () => ingestion.recordUsage(usage));
    }
  }
}

/**
 * Fills `counts.days` days up to `now` with records through the ingestion interface, oldest first (as a
 * live network would), and waits until everything is written.
 */
export async function seedRecords(
  ingestion: RecordsIngestion,
  counts: SeedCounts,
  options: { now: number; seed?: number; onProgress?: (done: string) => void },
): Promise<void> {
  const random = createRandom(options.seed ?? 1);
  const span = { start: options.now - counts.days * DAY_MS, end: options.now };
  await seedRadioEvents(ingestion, random, counts.radioEvents, span);
  options.onProgress?.(`${counts.radioEvents} radio events`);
  await seedFlows(ingestion, random, counts.flows, counts.subscribers, span);
  options.onProgress?.(`${counts.flows} flow reports`);
  await seedLogs(ingestion, random, counts, span);
  options.onProgress?.(`${counts.subscriberLogs} subscriber logs, ${counts.radioLogs} radio logs`);
  await seedUsage(ingestion, random, counts.subscribers, counts.days, options.now);
  options.onProgress?.(`${counts.days} days of usage for ${counts.subscribers} subscribers`);
  await ingestion.flush();
}
