// N2 handovers per second (issue 34's goals) against the service as operators run it (spawnService:
// dist/main.js, a fresh database, N2 on udp, the UPF on a TUN of its own), the simulated gNBs and UEs in
// this process. Devices register (the baseline: the service's CPU per registration in this run) and each
// establishes a PDU session; then every device is handed over by N2 (TS 23.502 4.9.1.3) from gnb-a<i> to
// gnb-b<i>, and back, `--rounds` times: handovers per second and the service's CPU per handover, from its
// /proc stat, per round (the first runs code V8 has not optimised yet; the last is the steady state).
// While the rounds run, every device's session carries `--traffic` downlink and as many uplink UDP
// packets per second through the UPF (bench/handover-traffic.ts): per round, packets sent, received at
// each gNB and lost (without forwarding, the downlink the UPF sends to the source between the UE leaving
// at the Handover Command and the path switch at Handover Notify is lost: counted), and how many devices
// got downlink at the gNB they were handed to. The traffic runs alone first, so that the service's CPU
// for it is measured and set apart from the handovers'.
// Pairs of gNBs work in parallel, each handing over one device at a time: a simulated target pairs a
// Handover Request with the device whose Handover Required went out first (src/simulator/gnb-handover-n2.ts).
// The bench's own CPU (the simulated gNBs and UEs, which keep no logs) is printed beside the service's:
// when it nears a core, the driver and not the service bounds the rate. `--cpu-prof DIR`: the service
// runs under `node --cpu-prof`, and DIR/phases.json gives each phase's interval on the profile's clock
// (the monotonic clock, µs) and its count of operations, for bench/handover-profile.ts.
// Needs root: the UPF opens its TUN, and the bench routes the UE pool into it. Then the user plane:
// downlink UDP packets with sequence numbers to `--stream` devices through the UPF, while each is handed
// back with direct data forwarding; the gNBs' N3 ends are this process's UDP sockets, which timestamp
// every G-PDU. Per handover: the gap from the last downlink packet at the source to the first at the
// target, the UE's own interruption (from the Handover Command, when it leaves the source, to its first
// packet at the target), packets the source got after the UE left (forwarded to the target's DL
// forwarding tunnel of the Handover Command, TS 23.502 4.9.1.3.2, as a gNB forwards them), and packets
// lost (sent, never received).
// Run: npx tsx bench/handover.ts [--ues N (1000)] [--pairs N (8)] [--rounds N (5)]
// [--traffic packets/s per device and direction in the rounds (10; 0: none)] [--stream N (5)]
// [--rate packets/s per streamed device (1000)] [--cpu-prof DIR]
import { execFileSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { createUdpTransport } from '../src/network/transport/udp/udp-transport.ts';
import { decodeGtpu } from '../test/helpers/gtpu-codec.ts';
import { SimulatedGnb } from '../src/simulator/gnb.ts';
import type { GnbConfig } from '../src/simulator/gnb-config.ts';
import { N2Handover } from '../src/simulator/gnb-handover-n2.ts';
import { readN2HandoverAnswer } from '../src/simulator/gnb-handover-n2-messages.ts';
import type { TunnelEnd } from '../src/simulator/ue/gnb-sessions.ts';
import { GnbUes } from '../src/simulator/ue/gnb-ues.ts';
import { SimulatedUe } from '../src/simulator/ue/simulated-ue.ts';
import { ALL_ALGORITHMS } from '../src/simulator/ue/ue-config.ts';
import { UeSessions } from '../src/simulator/ue/ue-sessions.ts';
import { spawnService } from '../test/helpers/service-process.ts';
import { initialisedApi, type ServiceCall } from './service-api.ts';
import { describeRound, SessionTraffic } from './handover-traffic.ts';
import { whereItListens } from './service-log.ts';

const { values } = parseArgs({
  options: {
    ues: { type: 'string', default: '1000' },
    pairs: { type: 'string', default: '8' },
    stream: { type: 'string', default: '5' },
    rate: { type: 'string', default: '1000' },
    traffic: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    'cpu-prof': { type: 'string' },
  },
});
const PROFILES = values['cpu-prof'];
const UES = Number(values.ues);
const PAIRS = Number(values.pairs);
const STREAM = Math.min(Number(values.stream), UES);
const RATE = Number(values.rate);
const TRAFFIC = Number(values.traffic);
const ROUNDS = Math.max(1, Number(values.rounds));
const K = '465b5ce8b199b49faa5f0a2ee238a6bc';
const OPC = 'e8ed289deba952e4283b54e88e6183ca';
const PLMN = { mcc: '001', mnc: '01' };
const POOL = '10.211.0.0/16';
/** Loopback addresses of their own, so that no other GTP-U user on the host is in the way. */
const UPF_N3 = '127.0.77.1';
const n3Of = (side: 'a' | 'b', pair: number): string => `127.0.${side === 'a' ? 78 : 79}.${pair + 1}`;
const GTPU_PORT = 2152;
/** The data network's end of the rounds' traffic: an address of the host's on the UPF's N6 TUN. */
const SINK = { address: '10.212.0.1', port: 9999 };
/** How long the traffic runs alone before the rounds, and after them so that the last stay counts. */
const TRAFFIC_ALONE_MS = 2000;
const TUN = `pmnho${process.pid % 100_000}`;
const print = (line: string): void => void process.stdout.write(`${line}\n`);
const imsiOf = (n: number): string => `00101${String(n).padStart(10, '0')}`;

/** utime + stime in seconds (/proc/<pid>/stat, or a thread's /proc/<pid>/task/<tid>/stat). */
async function cpuSeconds(statPath: string): Promise<number> {
  const stat = (await readFile(statPath, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) / 100;
}

/** The service's CPU in seconds: all threads, and its main thread (the event loop). */
async function serviceCpu(pid: number): Promise<{ all: number; main: number }> {
  return {
    all: await cpuSeconds(`/proc/${pid}/stat`),
    main: await cpuSeconds(`/proc/${pid}/task/${pid}/stat`),
  };
}

/**
 * A phase's wall time, the service's CPU (all threads, and its main thread's) and this process's (the
 * driver's), and its interval in µs.
 */
interface Measured {
  wallMs: number;
  cpuMs: number;
  mainMs: number;
  driverMs: number;
  /** On the clock of V8's CPU profiles (the monotonic clock, µs). */
  window: [number, number];
}

const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

async function measured(pid: number, work: () => Promise<unknown>): Promise<Measured> {
  const cpu = await serviceCpu(pid);
  const driver = process.cpuUsage();
  const window0 = monotonicUs();
  const start = performance.now();
  await work();
  const wallMs = performance.now() - start;
  const window1 = monotonicUs();
  const { user, system } = process.cpuUsage(driver);
  const after = await serviceCpu(pid);
  return {
    wallMs,
    cpuMs: (after.all - cpu.all) * 1000,
    mainMs: (after.main - cpu.main) * 1000,
    driverMs: (user + system) / 1000,
    window: [window0, window1],
  };
}

interface Service {
  pid: number;
  udpPort: number;
  call: ServiceCall;
  stop(): Promise<void>;
}

async function startService(): Promise<Service> {
  const dir = await mkdtemp(join(tmpdir(), 'pmn-handover-bench-'));
  const child = spawnService(
    [
      ...['--listen', '127.0.0.1:0', '--db', join(dir, 'pmn.db')],
      ...['--n2-transport', 'udp', '--n2-addresses', '127.0.0.1', '--n2-port', '38412', '--n2-udp-port', '0'],
      ...['--n3-address', UPF_N3, '--n6-tun', TUN],
    ],
    { nodeFlags: PROFILES === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', PROFILES] },
  );
  process.once('exit', () => child.kill('SIGKILL'));
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const { url, udpPort } = await whereItListens(child);
  return {
    pid: child.pid!,
    udpPort,
    call: await initialisedApi(url),
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `work` for each item, `lanes` at a time, each lane taking the next item when it is done. */
async function inLanes<T>(
  items: readonly T[],
  lanes: number,
  work: (item: T, lane: number) => Promise<void>,
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (next < items.length) await work(items[next++]!, lane);
    }),
  );
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};

async function main(): Promise<void> {
  const service = await startService();
  try {
    await run(service);
  } finally {
    await service.stop();
  }
}

interface Device {
  index: number;
  ue: SimulatedUe;
  sessions: UeSessions;
  pair: number;
  address: string;
}

async function run(service: Service): Promise<void> {
  await service.call('PUT', '/api/v1/profiles/default', {
    'ue-ip-pool': POOL,
    dns: '8.8.8.8',
    mtu: 1400,
    'bitrate-uplink': '1 Gbps',
    'bitrate-downlink': '1 Gbps',
    var5qi: 9,
    'priority-level': 90,
  });
  const rows = Array.from({ length: UES }, (_, i) => ({
    imsi: imsiOf(i + 1),
    key: K,
    opc: OPC,
    sequenceNumber: '000000000000',
    profile_name: 'default',
  }));
  await service.call('POST', '/api/v1/subscribers/import', rows);

  const { transport } = await createUdpTransport({
    addresses: ['127.0.0.1'],
    udpPort: 0,
    peerUdpPort: service.udpPort,
  });
  const config = (name: string, node: number): GnbConfig => ({
    plmn: PLMN,
    node: { kind: 'gNB', value: node, bitLength: 22 },
    name,
    supportedTas: [{ tac: 1, plmns: [{ plmn: PLMN, slices: [{ sst: 1 }] }] }],
  });
  const side = async (name: 'a' | 'b', pair: number) => {
    const node = (name === 'a' ? 1 : 1001) + pair;
    const gnb = new SimulatedGnb({
      config: config(`gnb-${name}${pair}`, node),
      transport,
      amf: [{ address: '127.0.0.1', port: 38412 }],
      // Every PDU kept would grow the bench's heap by rounds, and its collector's work with it.
      keepLog: false,
    });
    const ues = new GnbUes(
      gnb,
      { plmn: PLMN, nrCellIdentity: node * 16, tac: 1 },
      { n3Address: n3Of(name, pair) },
    );
    await gnb.connect();
    if ((await gnb.ngSetup()).outcome !== 'accepted') throw new Error(`${name}${pair}: NG Setup refused`);
    return { gnb, ues, n2: new N2Handover(gnb, ues, { pci: node % 1008, arfcnDl: 632628 }) };
  };
  const pairs = await Promise.all(
    Array.from({ length: PAIRS }, async (_, pair) => ({
      a: await side('a', pair),
      b: await side('b', pair),
    })),
  );

  const devices: Device[] = Array.from({ length: UES }, (_, index) => {
    const pair = index % PAIRS;
    const ue = new SimulatedUe({
      config: {
        imsi: imsiOf(index + 1),
        plmn: PLMN,
        key: Buffer.from(K, 'hex'),
        opc: Buffer.from(OPC, 'hex'),
        suci: { scheme: 'null' },
        imeisv: '3569380356438091',
        securityCapability: ALL_ALGORITHMS,
        requestedNssai: [{ sst: 1 }],
      },
      radio: pairs[pair]!.a.ues,
      keepLog: false,
    });
    return { index, ue, sessions: new UeSessions(ue), pair, address: '' };
  });

  // Baseline: registrations, the same pairs of lanes.
  const registration = await measured(service.pid, () =>
    inLanes(devices, PAIRS, async (device) => {
      const outcome = await device.ue.register();
      if (outcome.outcome !== 'accepted') throw new Error(`${device.ue.imsi}: ${JSON.stringify(outcome)}`);
    }),
  );
  await inLanes(devices, PAIRS, async (device) => {
    const outcome = await device.sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    // #26 when the UPF could not start (its TUN needs root or CAP_NET_ADMIN).
    if (outcome.outcome !== 'accepted')
      throw new Error(`${device.ue.imsi}: no PDU session (${JSON.stringify(outcome)}); run as root`);
    device.address = outcome.session.ipv4 ?? '';
  });

  // The sessions' traffic: alone first (the service's CPU for it), then through the rounds.
  const routed = TRAFFIC > 0 || STREAM > 0 ? routeThroughUpf() : false;
  if (!routed && TRAFFIC > 0) print(`traffic: none (the TUN ${TUN} and its routes need root)`);
  const traffic =
    routed && TRAFFIC > 0
      ? new SessionTraffic({
          devices,
          pairs: pairs.map(({ a, b }, pair) => ({
            a: { ...a, n3: n3Of('a', pair) },
            b: { ...b, n3: n3Of('b', pair) },
          })),
          rate: TRAFFIC,
          sink: SINK,
          tun: TUN,
        })
      : undefined;
  const alone =
    traffic === undefined
      ? undefined
      : await measured(service.pid, async () => {
          await traffic.start(0);
          await sleep(TRAFFIC_ALONE_MS);
        });

  // Handovers, `--rounds` times: each pair hands its devices over one at a time, a to b, then back. Code
  // not yet optimised by V8 runs the first round: the last is the steady state.
  const rounds: Measured[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    traffic?.nextRound(round + 1);
    rounds.push(
      await measured(service.pid, () =>
        Promise.all(
          pairs.map(async (sides, pair) => {
            const [from, to] = round % 2 === 0 ? [sides.a, sides.b] : [sides.b, sides.a];
            for (const device of devices.filter((d) => d.pair === pair)) {
              const outcome = await from.n2.handOver(device.ue, to.n2);
              if (outcome.outcome !== 'handed-over')
                throw new Error(`${device.ue.imsi}: ${JSON.stringify(outcome)}`);
            }
          }),
        ),
      ),
    );
  }
  // The last stay: traffic a while longer, then what is in flight lands before it is counted.
  traffic?.nextRound(ROUNDS + 1);
  await sleep(TRAFFIC_ALONE_MS);
  traffic?.stopSending();
  await sleep(500);
  const lastStay = traffic?.followedNow();
  traffic?.close();

  const per = (run: Measured) =>
    `${Math.round((UES * 1000) / run.wallMs)}/s, service CPU ${((run.cpuMs * 1000) / UES).toFixed(0)} µs ` +
    `each (main thread ${((run.mainMs * 1000) / UES).toFixed(0)}), the bench's ` +
    `${((run.driverMs * 1000) / UES).toFixed(0)} µs`;
  print(`registrations: ${UES} in ${(registration.wallMs / 1000).toFixed(1)} s, ${per(registration)}`);
  /** The service's CPU for the traffic alone, ms per s: a round's share of it is not the handovers'. */
  const trafficCpu = alone === undefined ? 0 : alone.cpuMs / alone.wallMs;
  if (alone !== undefined)
    print(
      `traffic alone (${UES} devices, ${TRAFFIC} packets/s each way each): service CPU ${(trafficCpu * 100).toFixed(1)}% ` +
        `of a core, the bench's ${((100 * alone.driverMs) / alone.wallMs).toFixed(1)}%; ${describeRound(traffic!.rounds[0]!)}`,
    );
  const handoverCpuMs = (run: Measured) => run.cpuMs - trafficCpu * run.wallMs;
  /** The bench's CPU for the traffic, ms per s: the rest of a round's is the driver's (gNBs and UEs). */
  const benchTrafficCpu = alone === undefined ? 0 : alone.driverMs / alone.wallMs;
  for (const [round, run] of rounds.entries()) {
    print(`N2 handovers, round ${round + 1}: ${UES} in ${(run.wallMs / 1000).toFixed(1)} s, ${per(run)}`);
    if (traffic !== undefined)
      print(
        `  traffic: ${describeRound(traffic.rounds[round + 1]!)}; service CPU per handover without the ` +
          `traffic's share ${((handoverCpuMs(run) * 1000) / UES).toFixed(0)} µs, the bench's ` +
          `${(((run.driverMs - benchTrafficCpu * run.wallMs) * 1000) / UES).toFixed(0)} µs`,
      );
  }
  if (traffic !== undefined && lastStay !== undefined)
    print(
      `traffic after the rounds: ${describeRound(traffic.rounds[ROUNDS + 1]!)}; downlink reached ` +
        `${lastStay.followed} of ${lastStay.of} devices at the gNB of their last handover`,
    );
  const last = rounds.at(-1)!;
  print(
    `service CPU per handover (last round) / per registration: ${(last.cpuMs / registration.cpuMs).toFixed(2)} ` +
      (traffic === undefined
        ? ''
        : `(${(handoverCpuMs(last) / registration.cpuMs).toFixed(2)} without the traffic's share) `) +
      `(${PAIRS} gNB pairs, one handover at a time per pair); load average ` +
      loadavg()
        .map((l) => l.toFixed(1))
        .join(' '),
  );
  if (PROFILES !== undefined) {
    await mkdir(PROFILES, { recursive: true });
    await writeFile(
      join(PROFILES, 'phases.json'),
      JSON.stringify({
        registration: { window: registration.window, count: UES },
        ...Object.fromEntries(
          rounds.map((run, i) => [`handover${i + 1}`, { window: run.window, count: UES }]),
        ),
      }),
    );
  }

  // The devices are at b after an odd number of rounds, else at a: the user plane hands them back.
  const streamed = devices.filter((d) => d.pair === 0).slice(0, STREAM);
  const interruption =
    STREAM > 0 && routed ? await userPlane(pairs[0]!, streamed, ROUNDS % 2 === 1 ? 'b' : 'a') : undefined;
  if (STREAM > 0 && !routed) print(`user plane: skipped (the TUN ${TUN} and its routes need root)`);
  // Issue 34's goals in one line, for a run on a quiet machine.
  const best = Math.max(...rounds.map((run) => (UES * 1000) / run.wallMs));
  const lastTraffic = traffic?.rounds[ROUNDS];
  print(
    `goals: ${Math.round((UES * 1000) / last.wallMs)} N2 handovers/s in the last round (best ${Math.round(best)}) ` +
      `against 1,000, ${traffic === undefined ? 'without traffic' : `with ${TRAFFIC} packets/s each way per device`}` +
      (lastTraffic === undefined
        ? ''
        : ` (${lastTraffic.downlinkAfterLeaving} downlink packets lost to the handover in it, ` +
          `${lastTraffic.forwardedBySource} forwarded)`) +
      `; service CPU per handover ${(last.cpuMs / registration.cpuMs).toFixed(2)} of a registration's; ` +
      (interruption === undefined
        ? 'interruption not measured'
        : `interruption median ${interruption.toFixed(1)} ms against 50`) +
      `; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  for (const { a, b } of pairs) {
    await a.gnb.shutdown();
    await b.gnb.shutdown();
  }
  await transport.close();
}

/**
 * The UE pool routed into the UPF's N6 TUN, and the data network's address (SINK) on it: the host
 * sends the downlink and gets the uplink. False without root.
 */
function routeThroughUpf(): boolean {
  try {
    execFileSync('ip', ['link', 'set', 'dev', TUN, 'up'], { stdio: 'ignore' });
    execFileSync('ip', ['address', 'replace', `${SINK.address}/32`, 'dev', TUN], { stdio: 'ignore' });
    execFileSync('ip', ['route', 'replace', POOL, 'dev', TUN], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Side = { gnb: SimulatedGnb; ues: GnbUes; n2: N2Handover };

/**
 * Downlink streams through the UPF while `devices` (at `source`) go to the other side, one at a time;
 * answers the median gap from the source's last packet to the target's first (ms).
 */
async function userPlane(pair: { a: Side; b: Side }, devices: Device[], source: 'a' | 'b'): Promise<number> {
  const target = source === 'a' ? 'b' : 'a';
  const [from, to] = [pair[source], pair[target]];
  const byAddress = new Map(devices.map((device, slot) => [device.address, slot]));
  /** Per streamed device: arrival times by side, sequence numbers received, the Command's time and tunnel. */
  const seen = devices.map(() => ({
    at: { a: [] as number[], b: [] as number[] },
    received: new Set<number>(),
    leftSource: Infinity,
    forwardTo: undefined as TunnelEnd | undefined,
    forwarded: 0,
    afterLeaving: 0,
  }));
  const forwarder = createSocket('udp4');
  const receive = async (name: 'a' | 'b'): Promise<Socket> => {
    const socket = createSocket('udp4');
    socket.on('message', (gpdu) => {
      const now = performance.now();
      const read = decodeGtpu(gpdu);
      if (!read.ok) return;
      const packet = read.message.payload;
      // The inner IPv4 header (its IHL) and UDP header before the bench's payload.
      const payload = Buffer.from(packet.subarray((packet[0]! & 0x0f) * 4 + 8));
      if (payload.length < 8) return;
      const slot = payload.readUInt32BE(0);
      const entry = seen[slot];
      if (entry === undefined) return;
      // The source, where the device was, after the device left: a gNB forwards, or drops.
      if (name === source && now >= entry.leftSource) {
        entry.afterLeaving += 1;
        const tunnel = entry.forwardTo;
        if (tunnel !== undefined) {
          const copy = Buffer.from(gpdu);
          copy.writeUInt32BE(tunnel.teid, 4);
          forwarder.send(copy, GTPU_PORT, tunnel.address);
          entry.forwarded += 1;
        }
        return;
      }
      entry.at[name].push(now);
      entry.received.add(payload.readUInt32BE(4));
    });
    socket.bind(GTPU_PORT, n3Of(name, 0));
    await once(socket, 'listening');
    return socket;
  };
  const sockets = [await receive('a'), await receive('b')];
  // The source learns from the Handover Command that the UE leaves, and where to forward (direct path).
  const unwatch = from.gnb.on((event) => {
    if (event.type !== 'received' || event.exchange.messageType !== 'HandoverCommand') return;
    const answer = event.exchange.pdu === undefined ? undefined : readN2HandoverAnswer(event.exchange.pdu);
    if (answer?.kind !== 'command') return;
    const device = from.ues.link(answer.ranUeNgapId)?.ue;
    const slot = devices.findIndex((d) => d.ue === device);
    const entry = seen[slot];
    if (entry === undefined) return;
    entry.leftSource = performance.now();
    entry.forwardTo = answer.forwarding[0]?.tunnel;
  });

  const sender = createSocket('udp4');
  const sent = devices.map(() => 0);
  const perTick = Math.max(1, Math.round(RATE / 1000));
  const tick = setInterval(() => {
    for (const [address, slot] of byAddress)
      for (let i = 0; i < perTick; i++) {
        const packet = Buffer.alloc(64);
        packet.writeUInt32BE(slot, 0);
        packet.writeUInt32BE(sent[slot]!++, 4);
        sender.send(packet, 9, address);
      }
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const gaps: number[] = [];
  const interruptions: number[] = [];
  for (const [slot, device] of devices.entries()) {
    const outcome = await from.n2.handOver(device.ue, to.n2, { directForwarding: true });
    if (outcome.outcome !== 'handed-over') throw new Error(`${device.ue.imsi}: ${JSON.stringify(outcome)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const entry = seen[slot]!;
    const lastAtSource = Math.max(...entry.at[source].filter((t) => t < entry.leftSource));
    const firstAtTarget = Math.min(...entry.at[target].filter((t) => t > entry.leftSource));
    gaps.push(firstAtTarget - lastAtSource);
    interruptions.push(firstAtTarget - entry.leftSource);
  }
  clearInterval(tick);
  await new Promise((resolve) => setTimeout(resolve, 300));
  unwatch();
  const lost = devices.map((_, slot) => sent[slot]! - seen[slot]!.received.size);
  const total = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0);
  print(
    `user plane (${devices.length} handovers, ${RATE} downlink packets/s each, direct forwarding): ` +
      `source's last -> target's first median ${median(gaps).toFixed(1)} ms (max ${Math.max(...gaps).toFixed(1)}); ` +
      `Handover Command -> target's first median ${median(interruptions).toFixed(1)} ms ` +
      `(max ${Math.max(...interruptions).toFixed(1)}); ` +
      `${total(seen.map((e) => e.afterLeaving))} packets reached the source after the UE left, ` +
      `${total(seen.map((e) => e.forwarded))} forwarded; ` +
      `${total(lost)} of ${total(sent)} lost`,
  );
  for (const socket of [...sockets, sender, forwarder]) socket.close();
  return median(gaps);
}

await main();
