/**
 * The radio side of the AMF-set system tests and bench: one simulated gNB with an association to every
 * member of an AMF set (MultiAmfGnb, SCTP over UDP with heartbeats fast enough to notice a dead member
 * within about a second), simulated UEs behind it, each with a PDU session whose user plane is a TUN
 * device in a namespace of its own (the simulator's gNB user plane), so that a ping from the UE's
 * namespace crosses GTP-U, the serving member's UPF and its data network's namespace.
 */
import assert from 'node:assert/strict';
import type { SctpParameters } from '../../src/network/transport/sctp/sctp-config.ts';
import { openClientTransport } from '../../src/simulator/client-transport.ts';
import type { MultiAmfGnbEvent } from '../../src/simulator/gnb-amfs.ts';
import { MultiAmfGnb } from '../../src/simulator/gnb-amfs.ts';
import { NasTally } from '../../src/simulator/ue/set-failover.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { ALL_ALGORITHMS } from '../../src/simulator/ue/ue-config.ts';
import { createUes, withConcurrency } from '../../src/simulator/ue/ue-fleet.ts';
import { UeSessions } from '../../src/simulator/ue/ue-sessions.ts';
import { createGnbUserPlane } from '../../src/simulator/user-plane/gnb-user-plane.ts';
import { carrySessions } from '../../src/simulator/user-plane/session-tunnels.ts';
import { K, OPC } from '../e2e/registration-service.ts';
import { DN, GNB_ADDRESS, type AmfSet } from './amf-set-harness.ts';
import { inNamespace } from './session-traffic-harness.ts';

const PLMN = { mcc: '001', mnc: '01' };

/**
 * The gNB's SCTP towards each member: a heartbeat every 200 ms plus the RTO (200 to 400 ms), and the
 * association given up after 2 unanswered retransmissions (RFC 9260 8.1, 8.3): a dead member is noticed
 * within about 1.5 s. A field gNB uses seconds; docs/amf-set.md, "Failover, measured".
 */
export const FAST_LOSS_DETECTION: Partial<SctpParameters> = {
  heartbeatInterval: 200,
  rtoInitial: 200,
  rtoMin: 200,
  rtoMax: 400,
  pathMaxRetrans: 2,
  associationMaxRetrans: 2,
  maxInitRetransmits: 2,
};

export interface SetRan {
  gnb: MultiAmfGnb;
  ues: SimulatedUe[];
  sessions: Map<SimulatedUe, UeSessions>;
  tally: NasTally;
  events: MultiAmfGnbEvent[];
  /** The UE's namespace, where its session's TUN device is. */
  namespaceOf(ue: SimulatedUe): string;
  /** Registers every UE and sets up PDU session 1 (IPv4), its TUN device up; asserts each step. */
  attach(): Promise<void>;
  /** Whether one ping from the UE's namespace to the data network is answered (2 s). */
  ping(ue: SimulatedUe): Promise<boolean>;
  /** Resolves when every TUN device being brought up is up (after a re-activation). */
  settled(): Promise<void>;
  /** Waits for the gNB to find its association to member `index` lost after `since` (ms since the epoch); its time. */
  lost(index: number, since: number): Promise<number>;
  close(): Promise<void>;
}

/** The IMSI of UE `i` of a run whose first UE is `first`. */
export const imsiOf = (first: number, i: number): string => `0010100000${String(first + i).padStart(5, '0')}`;

/** Subscribers for `count` UEs from `first` (K and OPc of test/e2e), created through the set's first member. */
export async function subscribe(set: AmfSet, first: number, count: number): Promise<void> {
  const member = set.members[0];
  assert.ok(member !== undefined);
  for (let i = 0; i < count; i++) {
    const answer = await set.api(member, 'POST', '/api/v1/subscribers', {
      imsi: imsiOf(first, i),
      key: K,
      opc: OPC,
      sequenceNumber: '000000000000',
      profile_name: 'default',
    });
    assert.equal(answer.status, 201, answer.text);
  }
}

/**
 * The gNB (associations to every member, NG Setup with each done) and `count` UEs from IMSI
 * 0010100000<first>; `pick` in [0, 1) is the draw that chooses each new UE's AMF by relative capacity.
 */
export async function startSetRan(
  set: AmfSet,
  options: {
    count: number;
    first: number;
    pick?: (index: number) => number;
    /** False: no TUN devices nor gNB user plane (a caller carrying GTP-U itself, on GNB_ADDRESS:2152). */
    tuns?: boolean;
  },
): Promise<SetRan> {
  const transport = await openClientTransport('udp', {
    localAddress: GNB_ADDRESS,
    peerUdpPort: set.udpPort,
    params: FAST_LOSS_DETECTION,
  });
  let drawn = 0;
  const gnb = new MultiAmfGnb({
    config: {
      plmn: PLMN,
      node: { kind: 'gNB', value: 1, bitLength: 22 },
      name: 'gnb-1',
      supportedTas: [{ tac: 1, plmns: [{ plmn: PLMN, slices: [{ sst: 1 }] }] }],
    },
    transport,
    amfs: set.members.map((member) => [{ address: member.n2Address, port: set.n2Port }]),
    cell: { plmn: PLMN, nrCellIdentity: 2 ** 14 + 1, tac: 1 },
    local: { addresses: [GNB_ADDRESS] },
    n3Address: GNB_ADDRESS,
    backoff: { initialMs: 200, maxMs: 1000 },
    keepLog: false,
    random: () => options.pick?.(drawn++) ?? Math.random(),
  });
  const events: MultiAmfGnbEvent[] = [];
  const eventTimes: number[] = [];
  gnb.on((event) => {
    events.push(event);
    eventTimes.push(Date.now());
  });
  const tuns = options.tuns ?? true;
  const userPlane = tuns ? createGnbUserPlane({ n3Address: GNB_ADDRESS }) : undefined;
  const ues = createUes({
    template: {
      imsi: imsiOf(options.first, 0),
      plmn: PLMN,
      key: Buffer.from(K, 'hex'),
      opc: Buffer.from(OPC, 'hex'),
      sqn: Buffer.alloc(6),
      suci: { scheme: 'null' },
      imeisv: '3569380356438091',
      securityCapability: ALL_ALGORITHMS,
      requestedNssai: [{ sst: 1 }],
      sms: false,
      misbehaviour: { failInitialContextSetup: false },
    },
    count: options.count,
    radios: [gnb],
    keepLog: false,
  });
  const tally = new NasTally(ues);
  const sessions = new Map(ues.map((ue) => [ue, new UeSessions(ue)]));
  const namespaces = new Map<unknown, string>();
  if (tuns) for (const ue of ues) namespaces.set(ue, await set.namespace());
  const failures: string[] = [];
  const carried =
    userPlane &&
    carrySessions({
      events: gnb.sessions,
      userPlane,
      ueOf: (s) => s.ue,
      addresses: (s) => {
        const ipv4 = [...sessions].find(([ue]) => ue === s.ue)?.[1].get(s.pduSessionId)?.ipv4;
        return ipv4 === undefined ? undefined : { ueIpv4: ipv4 };
      },
      tun: (s) => ({ namespace: namespaces.get(s.ue) ?? '', mtu: 1400 }),
      failed: (s, error, detail) => failures.push(`PDU session ${s.pduSessionId}: ${error}: ${detail}`),
    });
  await gnb.start();
  await until(() => set.members.every((_, i) => events.some((e) => e.type === 'amf-up' && e.index === i)));

  return {
    gnb,
    ues,
    sessions,
    tally,
    events,
    namespaceOf: (ue) => namespaces.get(ue) ?? '',
    async attach() {
      const registered = await withConcurrency(ues, 20, (ue) => ue.register('suci'));
      assert.deepEqual(
        registered.map((r) => r.outcome),
        ues.map(() => 'accepted'),
        JSON.stringify(registered),
      );
      const established = await withConcurrency(ues, 20, (ue) =>
        sessions.get(ue)!.establish({ pduSessionId: 1, type: 'IPv4', dnn: 'internet' }),
      );
      assert.deepEqual(
        established.map((r) => r.outcome),
        ues.map(() => 'accepted'),
        JSON.stringify(established),
      );
      await carried?.settled();
      assert.deepEqual(failures, []);
    },
    async ping(ue) {
      try {
        const out = await inNamespace(namespaces.get(ue) ?? '', 'busybox', 'ping', '-c', '1', '-W', '2', DN);
        return /1 packets received/.test(out);
      } catch {
        return false;
      }
    },
    async settled() {
      await carried?.settled();
      assert.deepEqual(failures, []);
    },
    async lost(index, since) {
      const at = () =>
        events.findIndex(
          (e, i) => e.type === 'amf-down' && e.index === index && (eventTimes[i] ?? 0) >= since,
        );
      await until(() => at() >= 0);
      return eventTimes[at()] ?? 0;
    },
    async close() {
      await gnb.stop('abort');
      carried?.stop();
      userPlane?.close();
      await transport.close();
    },
  };
}

/** Polls every 20 ms, for at most 30 s. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    assert.ok(Date.now() < deadline, 'timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
