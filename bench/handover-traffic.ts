// Steady user-plane traffic for bench/handover.ts's rate rounds: every device's PDU session carries
// `rate` downlink and `rate` uplink UDP packets per second through the UPF while it is handed over. The
// simulated gNBs' N3 ends are this process's UDP sockets (one per gNB, at its N3 address): a downlink
// G-PDU is delivered when its TEID is a session the gNB holds and the UE is there; uplink goes from the
// gNB where the UE is, with that gNB's session's uplink tunnel (after a handover, the target's, as set up
// from the Handover Request), to a local address behind the UPF's N6 TUN. Each packet carries its
// device and the round that sent it, so a round's losses are counted even when packets land in the next.
// The gNBs forward as TS 23.502 4.9.1.3.2 step 11 and 4.9.1.3.3 step 3 say: the source, once commanded,
// sends the downlink it still gets for the UE, and then the End Marker of the path switch, to the
// forwarding tunnel the Handover Command names (the UPF's, indirect forwarding: the targets offer DL
// forwarding tunnels and the sources name no direct path); the target delivers what comes through its
// DL forwarding tunnel. Without a tunnel named, what reaches the source after the UE left is lost and
// counted so. The sockets are the native addon's (sendmmsg batches, one callback scope per readable
// event): the traffic's sends and receives are most of the bench's CPU.
import { readFileSync } from 'node:fs';

import { loadNativeAddon, type UdpSocket } from '../src/network/transport/native/native-addon.ts';
import { decodeGtpu, encodeUplinkGPdu, GtpuMessageType } from '../test/helpers/gtpu-codec.ts';
import { udpPacket } from '../test/network/upf/ip-packets.ts';
import type { GnbEvent, SimulatedGnb } from '../src/simulator/gnb.ts';
import { readN2HandoverAnswer } from '../src/simulator/gnb-handover-n2-messages.ts';
import type { GnbSession, TunnelEnd } from '../src/simulator/ue/gnb-sessions.ts';
import type { GnbUes } from '../src/simulator/ue/gnb-ues.ts';
import type { RadioUe } from '../src/simulator/ue/ue-radio.ts';

export type SideName = 'a' | 'b';
const SIDES: readonly SideName[] = ['a', 'b'];
const GTPU_PORT = 2152;
/** Bench payload: device index (u32), round (u16), the gNB of an uplink packet (u8: 0 a, 1 b). */
const PAYLOAD = 8;
const IPV4_HEADER = 20;
const UDP_HEADER = 8;

export interface TrafficDevice {
  index: number;
  ue: RadioUe;
  pair: number;
  /** The UE's IPv4 address in its session. */
  address: string;
}

export interface TrafficGnb {
  gnb: SimulatedGnb;
  ues: GnbUes;
  /** Its N3 address (where the UPF sends its downlink). */
  n3: string;
}

/** One round's packets, by the round that sent them. */
export interface RoundTraffic {
  downlinkSent: number;
  /** Delivered: at a gNB holding the session with the UE there, by gNB. */
  downlinkAt: Record<SideName, number>;
  /** Of those delivered, at the target through its DL forwarding tunnel (the source forwarded them). */
  downlinkForwarded: number;
  /** Reached the source after the UE left: sent on to the forwarding tunnel the Command named. */
  forwardedBySource: number;
  /** At a gNB the UE had left with no forwarding tunnel named (or the tunnel gone): dropped. */
  downlinkAfterLeaving: number;
  uplinkSent: number;
  /** Reached the data network, by the gNB that sent it. */
  uplinkFrom: Record<SideName, number>;
  /**
   * UDP datagrams dropped for a full receive buffer while the round's packets were sent: at the bench's
   * own sockets (the gNBs' N3 ends and the data network's: a loss of the bench's making), and elsewhere
   * in the network namespace (/proc/net/snmp RcvbufErrors less those: the UPF's N3 socket, or another
   * program's).
   */
  drops: { bench: number; elsewhere: number };
  /**
   * Packets the kernel dropped on the way into the UPF's N6 TUN (its tx_dropped: the queue full while the
   * UPF's thread did not read): downlink lost before the UPF.
   */
  tunDrops: number;
  /** Devices handed over in this round whose downlink had reached them at the gNB of their previous move. */
  followed: number;
  /** Devices handed over in this round after an earlier move (those `followed` is out of). */
  moves: number;
}

const emptyRound = (): RoundTraffic => ({
  downlinkSent: 0,
  downlinkAt: { a: 0, b: 0 },
  downlinkForwarded: 0,
  forwardedBySource: 0,
  downlinkAfterLeaving: 0,
  uplinkSent: 0,
  uplinkFrom: { a: 0, b: 0 },
  drops: { bench: 0, elsewhere: 0 },
  tunDrops: 0,
  followed: 0,
  moves: 0,
});

const delivered = (r: RoundTraffic): number => r.downlinkAt.a + r.downlinkAt.b;

/** A round's traffic in words, for the bench's lines. */
export function describeRound(r: RoundTraffic): string {
  const uplink = r.uplinkFrom.a + r.uplinkFrom.b;
  return (
    `downlink ${r.downlinkSent} sent, ${delivered(r)} received (gNB a ${r.downlinkAt.a}, b ${r.downlinkAt.b}), ` +
    `${r.downlinkSent - delivered(r)} lost (${r.downlinkAfterLeaving} of them reached a gNB the UE had left ` +
    `with no forwarding tunnel); ${r.forwardedBySource} forwarded by the source, ${r.downlinkForwarded} ` +
    `delivered through the target's forwarding tunnel; uplink ${r.uplinkSent} sent, ${uplink} received (via a ${r.uplinkFrom.a}, b ` +
    `${r.uplinkFrom.b}), ${r.uplinkSent - uplink} lost; UDP receive buffers full: ${r.drops.bench} at the bench's sockets, ${r.drops.elsewhere} elsewhere; ` +
    `dropped entering the UPF's TUN ${r.tunDrops}` +
    (r.moves === 0 ? '' : `; downlink followed ${r.followed} of ${r.moves} devices to their last target`)
  );
}

/**
 * Where a gNB's sessions are: by downlink TEID (what arrives) and by UE (what the UE sends); and, as
 * source, where the downlink of a session whose UE left goes (by that session's downlink TEID), until
 * the End Marker went on.
 */
interface GnbTunnels {
  byTeid: Map<number, GnbSession>;
  byUe: Map<RadioUe, GnbSession>;
  forwardByTeid: Map<number, { device: TrafficDevice; tunnel: TunnelEnd }>;
}

/** A native UDP socket, its local end, and the datagrams to send at the end of the sender's turn. */
interface BenchSocket {
  udp: UdpSocket;
  address: string;
  port: number;
  out: { packets: Uint8Array[]; addresses: string[]; ports: number[] };
}

export class SessionTraffic {
  readonly #devices: readonly TrafficDevice[];
  readonly #pairs: readonly Record<SideName, TrafficGnb>[];
  readonly #rate: number;
  readonly #sink: { address: string; port: number };
  readonly #byUe: Map<RadioUe, TrafficDevice>;
  /** Per pair and side. */
  readonly #tunnels: Record<SideName, GnbTunnels>[];
  readonly #sockets: Record<SideName, BenchSocket>[] = [];
  /** The gNB each device is at (all start at `a`); the target from its Handover Command on. */
  readonly #at: SideName[];
  /** Downlink delivered to each device at its gNB since it got there. */
  readonly #sinceMove: number[];
  /** Whether the device has moved before (its `sinceMove` then counts a stay after a handover). */
  readonly #moved: boolean[];
  readonly #rounds: RoundTraffic[] = [];
  readonly #unwatch: (() => void)[] = [];
  #downlink: BenchSocket | undefined;
  #uplinkSink: BenchSocket | undefined;
  #timer: NodeJS.Timeout | undefined;
  #round = 0;
  #dropped = { bench: 0, all: 0, tun: 0 };
  readonly #tun: string;

  /**
   * `pairs[i]` are the gNBs of pair i (devices of pair i start at `a`); `sink` a local address routed
   * through the UPF's N6 (where uplink goes, and the downlink's source); `rate` packets/s per device and
   * direction.
   */
  constructor(options: {
    devices: readonly TrafficDevice[];
    pairs: readonly Record<SideName, TrafficGnb>[];
    rate: number;
    sink: { address: string; port: number };
    /** The UPF's N6 TUN device. */
    tun: string;
  }) {
    this.#tun = options.tun;
    this.#devices = options.devices;
    this.#pairs = options.pairs;
    this.#rate = options.rate;
    this.#sink = options.sink;
    this.#byUe = new Map(options.devices.map((d) => [d.ue, d]));
    this.#at = options.devices.map((): SideName => 'a');
    this.#sinceMove = options.devices.map(() => 0);
    this.#moved = options.devices.map(() => false);
    this.#tunnels = options.pairs.map((pair) => ({
      a: this.#watchSessions(pair.a),
      b: this.#watchSessions(pair.b),
    }));
    for (const [index, pair] of options.pairs.entries())
      for (const side of SIDES) this.#unwatch.push(pair[side].gnb.on((e) => this.#commanded(index, side, e)));
  }

  /** Opens the gNBs' N3 ends and the data network's, and starts sending, counted as round `round`. */
  async start(round: number): Promise<void> {
    this.nextRound(round);
    for (const [pair, gnbs] of this.#pairs.entries()) {
      const sockets = {} as Record<SideName, BenchSocket>;
      for (const side of SIDES)
        sockets[side] = bind(gnbs[side].n3, GTPU_PORT, (m) => this.#n3(pair, side, m));
      this.#sockets.push(sockets);
    }
    this.#uplinkSink = bind(this.#sink.address, this.#sink.port, (m) => this.#arrived(m));
    this.#downlink = bind(this.#sink.address, 0, () => undefined);
    // Packets are owed by the time passed, so that a late timer (a loaded machine) sends its backlog,
    // up to 20 ms of it: a longer backlog at once would overflow the receivers' buffers (the UPF's N3
    // socket gets every device's uplink), a loss of the bench's making.
    let last = performance.now();
    let owed = 0;
    let next = 0;
    const perMs = (this.#rate * this.#devices.length) / 1000;
    this.#timer = setInterval(() => {
      const now = performance.now();
      owed = Math.min(owed + (now - last) * perMs, Math.max(1, 20 * perMs));
      last = now;
      for (; owed >= 1; owed--) {
        this.#send(this.#devices[next]!);
        next = (next + 1) % this.#devices.length;
      }
      flush(this.#downlink!);
      for (const sockets of this.#sockets) for (const side of SIDES) flush(sockets[side]);
    }, 5);
  }

  /** Packets sent from now on count as round `round`. */
  nextRound(round: number): void {
    const dropped = { bench: this.#benchDrops(), all: rcvbufErrors(), tun: this.#tunDrops() };
    const ending = this.#rounds[this.#round];
    if (ending !== undefined) {
      const bench = dropped.bench - this.#dropped.bench;
      ending.drops.bench += bench;
      ending.drops.elsewhere += dropped.all - this.#dropped.all - bench;
      ending.tunDrops += dropped.tun - this.#dropped.tun;
    }
    this.#dropped = dropped;
    this.#round = round;
    this.#rounds[round] ??= emptyRound();
  }

  /** The traffic by the round that sent it (index 0: before the first handover round). */
  get rounds(): readonly RoundTraffic[] {
    return this.#rounds;
  }

  /** Devices whose downlink reached them at the gNB of their last handover. */
  followedNow(): { followed: number; of: number } {
    const moved = this.#devices.filter((d) => this.#moved[d.index]);
    return { followed: moved.filter((d) => this.#sinceMove[d.index]! > 0).length, of: moved.length };
  }

  /** Stops sending (what is in flight still counts until `close`). */
  stopSending(): void {
    clearInterval(this.#timer);
    this.nextRound(this.#round);
  }

  close(): void {
    this.stopSending();
    for (const unwatch of this.#unwatch) unwatch();
    for (const sockets of this.#sockets) for (const side of SIDES) sockets[side].udp.close();
    this.#uplinkSink?.udp.close();
    this.#downlink?.udp.close();
  }

  #watchSessions(gnb: TrafficGnb): GnbTunnels {
    const tunnels: GnbTunnels = { byTeid: new Map(), byUe: new Map(), forwardByTeid: new Map() };
    const add = (session: GnbSession) => {
      tunnels.byTeid.set(session.downlink.teid, session);
      // The TEID serves a new session now: what the old one still forwarded is over.
      tunnels.forwardByTeid.delete(session.downlink.teid);
      tunnels.byUe.set(session.ue, session);
    };
    // The sessions set up before the bench's traffic (at registration), then those to come.
    for (const device of this.#devices) for (const session of gnb.ues.sessions.of(device.ue)) add(session);
    this.#unwatch.push(
      gnb.ues.sessions.on((event) => {
        if (event.type !== 'down') return add(event.session);
        tunnels.byTeid.delete(event.session.downlink.teid);
        if (tunnels.byUe.get(event.session.ue) === event.session) tunnels.byUe.delete(event.session.ue);
      }),
    );
    return tunnels;
  }

  /** The source got the Handover Command: the UE leaves for the target (TS 38.300 9.2.3.3.1 step 7). */
  #commanded(pair: number, side: SideName, event: GnbEvent): void {
    if (event.type !== 'received' || event.exchange.messageType !== 'HandoverCommand') return;
    const answer = event.exchange.pdu === undefined ? undefined : readN2HandoverAnswer(event.exchange.pdu);
    if (answer?.kind !== 'command') return;
    const ue = this.#pairs[pair]![side].ues.link(answer.ranUeNgapId)?.ue;
    const device = ue === undefined ? undefined : this.#byUe.get(ue);
    if (device === undefined) return;
    const tunnels = this.#tunnels[pair]![side];
    const session = tunnels.byUe.get(device.ue);
    const tunnel = answer.forwarding.find((f) => f.pduSessionId === session?.pduSessionId)?.tunnel;
    if (session !== undefined && tunnel !== undefined)
      tunnels.forwardByTeid.set(session.downlink.teid, { device, tunnel });
    const round = this.#rounds[this.#round]!;
    if (this.#moved[device.index]) {
      round.moves += 1;
      if (this.#sinceMove[device.index]! > 0) round.followed += 1;
    }
    this.#moved[device.index] = true;
    this.#sinceMove[device.index] = 0;
    this.#at[device.index] = side === 'a' ? 'b' : 'a';
  }

  #send(device: TrafficDevice): void {
    const round = this.#rounds[this.#round]!;
    const payload = Buffer.alloc(PAYLOAD);
    payload.writeUInt32BE(device.index, 0);
    payload.writeUInt16BE(this.#round, 4);
    queue(this.#downlink!, Buffer.from(payload), device.address, 9);
    round.downlinkSent += 1;
    const side = this.#at[device.index]!;
    const session = this.#tunnels[device.pair]![side].byUe.get(device.ue);
    if (session === undefined) return;
    payload.writeUInt8(side === 'a' ? 0 : 1, 6);
    const gpdu = encodeUplinkGPdu(
      session.uplink.teid,
      udpPacket(device.address, this.#sink.address, 40000, this.#sink.port, payload),
      session.qfis[0] ?? 1,
    );
    queue(this.#sockets[device.pair]![side], gpdu, session.uplink.address, GTPU_PORT);
    round.uplinkSent += 1;
  }

  /** A datagram at a gNB's N3 end. */
  #n3(pair: number, side: SideName, datagram: Buffer): void {
    const read = decodeGtpu(datagram);
    if (!read.ok) return;
    const { teid, type } = read.message;
    const tunnels = this.#tunnels[pair]![side];
    const forward = tunnels.forwardByTeid.get(teid);
    if (type === GtpuMessageType.endMarker) {
      // The path switch's End Marker on the old path: on to the forwarding tunnel, after the data.
      if (forward === undefined) return;
      this.#forward(pair, side, datagram, forward.tunnel);
      tunnels.forwardByTeid.delete(teid);
      return;
    }
    if (type !== GtpuMessageType.gPdu) return;
    const packet = read.message.payload;
    if (packet.length < IPV4_HEADER + UDP_HEADER + PAYLOAD) return;
    const payload = Buffer.from(packet.buffer, packet.byteOffset + (packet[0]! & 0x0f) * 4 + UDP_HEADER);
    const device = this.#devices[payload.readUInt32BE(0)];
    const round = this.#rounds[payload.readUInt16BE(4)];
    if (device === undefined || round === undefined) return;
    if (forward?.device === device) {
      this.#forward(pair, side, datagram, forward.tunnel);
      round.forwardedBySource += 1;
      return;
    }
    const here = this.#at[device.index] === side;
    const session = tunnels.byTeid.get(teid);
    // A TEID of no session of this gNB, for a UE that is here: its DL forwarding tunnel (the UPF
    // sends nothing else to a TEID the gNB did not give it).
    const forwarded = here && session === undefined;
    if (!here || (session !== undefined && session.ue !== device.ue)) {
      round.downlinkAfterLeaving += 1;
      return;
    }
    round.downlinkAt[side] += 1;
    if (forwarded) round.downlinkForwarded += 1;
    this.#sinceMove[device.index]! += 1;
  }

  /** A G-PDU or End Marker on to `tunnel`, with its TEID (TS 29.281 5.1: octets 5-8). */
  #forward(pair: number, side: SideName, datagram: Buffer, tunnel: TunnelEnd): void {
    const copy = Buffer.from(datagram);
    copy.writeUInt32BE(tunnel.teid, 4);
    const socket = this.#sockets[pair]![side];
    queue(socket, copy, tunnel.address, GTPU_PORT);
    flush(socket);
  }

  /** An uplink packet out of the UPF's N6. */
  #arrived(payload: Buffer): void {
    if (payload.length < PAYLOAD) return;
    const round = this.#rounds[payload.readUInt16BE(4)];
    if (round === undefined || this.#devices[payload.readUInt32BE(0)] === undefined) return;
    round.uplinkFrom[payload.readUInt8(6) === 0 ? 'a' : 'b'] += 1;
  }

  #tunDrops(): number {
    return Number(readFileSync(`/sys/class/net/${this.#tun}/statistics/tx_dropped`, 'utf8'));
  }

  /** Datagrams dropped at the bench's sockets so far (/proc/net/udp, each socket's `drops`). */
  #benchDrops(): number {
    const ours = new Set<string>();
    for (const sockets of this.#sockets) for (const side of SIDES) ours.add(procUdpAddress(sockets[side]));
    for (const socket of [this.#uplinkSink, this.#downlink])
      if (socket !== undefined) ours.add(procUdpAddress(socket));
    let drops = 0;
    for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (ours.has(fields[1] ?? '')) drops += Number(fields.at(-1));
    }
    return drops;
  }
}

/** The network namespace's count of UDP datagrams dropped for a full receive buffer (RFC 4113 terms). */
function rcvbufErrors(): number {
  const lines = readFileSync('/proc/net/snmp', 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('Udp:'));
  const names = lines[0]?.split(' ') ?? [];
  return Number(lines[1]?.split(' ')[names.indexOf('RcvbufErrors')] ?? 0);
}

/** The traffic's receive buffers: the bench's event loop also drives the handovers. */
const SOCKET_BUFFER_BYTES = 4 << 20;

/** A native UDP socket bound to `address`:`port` (0: any), `received` called with each datagram. */
function bind(address: string, port: number, received: (datagram: Buffer) => void): BenchSocket {
  const load = loadNativeAddon();
  if (!load.ok) throw load.error;
  const udp = new load.addon.UdpSocket(
    4,
    { onPacket: (datagram) => received(datagram), onError: () => undefined },
    { receiveBufferSize: SOCKET_BUFFER_BYTES, sendBufferSize: SOCKET_BUFFER_BYTES },
  );
  const bound = udp.bind(address, port);
  return { udp, address, port: bound, out: { packets: [], addresses: [], ports: [] } };
}

function queue(socket: BenchSocket, datagram: Uint8Array, address: string, port: number): void {
  socket.out.packets.push(datagram);
  socket.out.addresses.push(address);
  socket.out.ports.push(port);
}

/** What the turn queued, in sendmmsg batches (a datagram the kernel refused counts as lost). */
function flush(socket: BenchSocket): void {
  const { out } = socket;
  if (out.packets.length === 0) return;
  socket.udp.send(out.packets, out.addresses, out.ports);
  socket.out = { packets: [], addresses: [], ports: [] };
}

/** A bound socket's local end as /proc/net/udp writes it: the IPv4 address in host order, hex. */
function procUdpAddress({ address, port }: BenchSocket): string {
  const ip = address
    .split('.')
    .reverse()
    .map((octet) => Number(octet).toString(16).padStart(2, '0'))
    .join('');
  return `${ip}:${port.toString(16).padStart(4, '0')}`.toUpperCase();
}
