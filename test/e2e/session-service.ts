import assert from 'node:assert/strict';
import type { Logger } from 'pino';
import type { Clock, Timers } from '../../src/clock.ts';
import type { AmfSettings } from '../../src/network/amf/amf-settings.ts';
import { createN2, DEFAULT_N2_SETTINGS } from '../../src/core/n2.wiring.ts';
import { SimulatedGnb, type GnbOptions, type NgapExchange } from '../../src/simulator/gnb.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { GnbConfig } from '../../src/simulator/gnb-config.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { UeSessions } from '../../src/simulator/ue/ue-sessions.ts';
import { FLOW_RECORD } from '../../src/network/upf/flow-records.ts';
import type { Forwarder, ForwarderOptions, UpfAddon } from '../../src/network/upf/upf-addon.ts';
import { DEFAULT_UPF_SETTINGS } from '../../src/network/upf/upf-settings.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';
import { MANUAL_TIME_AMF_SET } from '../helpers/manual-time.ts';
import { until } from '../helpers/until.ts';
import { gnbConfig, OPERATOR_PLMN } from './n2-service.ts';
import { imsiOf, K, OPC, testUeConfig } from './registration-service.ts';

/**
 * The real service for the PDU session end-to-end tests: core and HTTP app, N2 as main.ts wires it
 * (`createN2` on udp) with its UPF (`options.upf`) whose forwarder is an in-memory stand-in recording
 * the rules it is given (the forwarder itself is tested with real packets in test/system/), a simulated
 * gNB and UEs with their session side.
 */

/** The rules the UPF installed in its forwarder, by forwarder session id. */
export interface ForwarderRules {
  sessions: Map<
    number,
    { teid: number; ipv4: string | null; ipv6: string | null; ambr: [number, number]; downlink?: string }
  >;
  calls: string[];
  /**
   * Forwarder session ids whose downlink packets found no tunnel (the UE idle), waiting for the UPF's
   * next poll (`takeDownlinkData`): a test pushes one to play a packet arriving on N6.
   */
  downlinkData: number[];
  /**
   * Bytes a session carried that the forwarder has not reported yet, by forwarder session id: its
   * removal hands them over as the last usage, with one ended flow (UDP to 10.99.0.1:53) of that size.
   */
  traffic: Map<number, { uplinkBytes: number; downlinkBytes: number }>;
  /** Indirect forwarding tunnels by forwarder session id: `teid <ours> to <address>:<port> teid <theirs>`. */
  forwarding: Map<number, string>;
}

/** An ended UDP flow from the session's address to 10.99.0.1:53 (native/upf/flows.h layout). */
function endedFlow(session: number, ipv4: string, bytes: number, now: number): Buffer {
  const record = Buffer.alloc(FLOW_RECORD);
  record.writeUInt32LE(session, 0);
  record[4] = 4;
  record[5] = 17;
  record.writeUInt16LE(40000, 8);
  record.writeUInt16LE(53, 10);
  record.set(ipv4.split('.').map(Number), 12);
  record.set([10, 99, 0, 1], 28);
  record.writeBigUInt64LE(1n, 48);
  record.writeBigUInt64LE(BigInt(bytes), 56);
  record.writeDoubleLE(now - 1000, 64);
  record.writeDoubleLE(now, 72);
  return record;
}

export function recordingAddon(rules: ForwarderRules): UpfAddon {
  const ended: Buffer[] = [];
  let endedCount = 0;
  class RecordingForwarder implements Forwarder {
    constructor(readonly options: ForwarderOptions) {}
    info = () => ({ n3Port: 2152, tunName: this.options.tunName });
    addSession(id: number, teid: number, ipv4: string | null, ipv6: string | null, up: number, down: number) {
      rules.sessions.set(id, { teid, ipv4, ipv6, ambr: [up, down] });
      rules.calls.push(`add ${id}`);
      return undefined;
    }
    setDownlink(id: number, address: string, port: number, teid: number, qfi: number) {
      const session = rules.sessions.get(id);
      if (session === undefined) return 'ENOENT';
      session.downlink = `${address}:${port} teid ${teid} qfi ${qfi}`;
      rules.calls.push(`downlink ${id}`);
      return undefined;
    }
    setForwarding(id: number, teid: number, address: string, port: number, remoteTeid: number) {
      if (!rules.sessions.has(id)) return 'ENOENT';
      rules.forwarding.set(id, `teid ${teid} to ${address}:${port} teid ${remoteTeid}`);
      return undefined;
    }
    clearForwarding(id: number) {
      return rules.forwarding.delete(id) || rules.sessions.has(id) ? undefined : 'ENOENT';
    }
    clearDownlink(id: number) {
      const session = rules.sessions.get(id);
      if (session !== undefined) delete session.downlink;
      rules.calls.push(`clear ${id}`);
      return undefined;
    }
    setAmbr(id: number, up: number, down: number) {
      const session = rules.sessions.get(id);
      if (session !== undefined) session.ambr = [up, down];
      rules.calls.push(`ambr ${id}`);
      return undefined;
    }
    removeSession(id: number, now: number) {
      const session = rules.sessions.get(id);
      if (session === undefined) return 'ENOENT';
      rules.sessions.delete(id);
      rules.forwarding.delete(id);
      rules.calls.push(`remove ${id}`);
      const traffic = rules.traffic.get(id) ?? { uplinkBytes: 0, downlinkBytes: 0 };
      rules.traffic.delete(id);
      const bytes = traffic.uplinkBytes + traffic.downlinkBytes;
      if (bytes > 0 && session.ipv4 !== null) {
        ended.push(endedFlow(id, session.ipv4, bytes, now));
        endedCount++;
      }
      return { ...traffic, flowsEnded: endedCount };
    }
    tickFlows = () => undefined;
    takeFlows = () => Buffer.concat(ended.splice(0));
    takeDownlinkData = () => {
      const ids = Buffer.alloc(4 * rules.downlinkData.length);
      rules.downlinkData.splice(0).forEach((id, i) => ids.writeUInt32LE(id, 4 * i));
      return ids;
    };
    drainUsage = () => Buffer.alloc(0);
    counters = () => ({}) as ReturnType<Forwarder['counters']>;
    close = () => undefined;
  }
  return { Forwarder: RecordingForwarder };
}

/** The `default` profile as the service starts with it (the management API's defaults). */
export const DEFAULT_PROFILE = {
  'ue-ip-pool': '10.45.0.0/16',
  dns: '8.8.8.8',
  mtu: 1400,
  'bitrate-uplink': '1 Gbps',
  'bitrate-downlink': '1 Gbps',
  var5qi: 9,
  'priority-level': 90,
};

/** A PDU session in the subscriber read (network.md 6). */
export interface ApiSession {
  id: number;
  status: string;
  ip_type: string;
  ipv4_address: string;
  ipv6_prefix: string;
  data_network: string;
  slice: { sst: number; sd: string };
  ambr_uplink: string;
  ambr_downlink: string;
  radio_access_type: string;
}

export interface SessionService {
  t: TestApp;
  token: string;
  gnb: SimulatedGnb;
  ues: GnbUes;
  rules: ForwarderRules;
  received: NgapExchange[];
  /** The subscriber's sessions as the API shows them. */
  sessionsOf(imsi: string): Promise<ApiSession[]>;
  /** PUT /api/v1/profiles/default: `DEFAULT_PROFILE` with `changes` (a new pool releases its sessions). */
  putDefaultProfile(changes: Record<string, unknown>): Promise<void>;
  /** PUT /api/v1/policies/default (internet, default profile and slice) with these QoS values. */
  putDefaultPolicy(qos: {
    bitrate_uplink: string;
    bitrate_downlink: string;
    var5qi: number;
    arp: number;
  }): Promise<void>;
  get<T>(url: string): Promise<T>;
  request(method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown): Promise<number>;
  until<T>(check: () => Promise<T | undefined>, what: string): Promise<T>;
  /**
   * Another simulated gNB on the same AMF and UPF (NG Setup done), serving `cell`, its N3 at `n3Address`;
   * it broadcasts TAC 1 unless `config` says otherwise.
   */
  anotherGnb(
    n: number,
    cell: ServingCell,
    n3Address: string,
    config?: Partial<GnbConfig>,
  ): Promise<{ gnb: SimulatedGnb; ues: GnbUes }>;
  /** Provisions subscriber `n` (default profile), registers it, and gives it its session side. */
  registered(n: number): Promise<{ imsi: string; ue: SimulatedUe; sessions: UeSessions }>;
  /**
   * The RAN side stops taking packets (a radio that lost power): the AMF hears nothing more from it.
   * `arrived` sees each SCTP packet that reaches it from then on, unanswered.
   */
  silenceRan(arrived?: (packet: Uint8Array) => void): void;
  /** Stops N2 (and its UPF) as the service's stop does; the HTTP app stays up to read the records. */
  stopN2(): Promise<void>;
  /** What the AMF and the SMF hold: connections and handovers in progress (leak checks). */
  held(): { connections: number; handovers: number; smfHandovers: number };
  /** The AMF's connections and the UPF's session and forwarding rules now, for `nothingLeft`. */
  holding(): Holding;
  /**
   * After a failure path: waits until the AMF holds `before`'s connections again, then checks that no
   * handover is in progress in the AMF or the SMF and that the UPF's rules are `before`'s.
   */
  nothingLeft(before: Holding): Promise<void>;
  close(): Promise<void>;
}

export interface Holding {
  connections: number;
  /** The UPF's session and forwarding rules, serialised. */
  rules: string;
}

export interface SessionServiceOptions {
  /**
   * One time source for the core and N2 (the AMF's NAS timers, the SMF's T3591/T3592, the UPF's
   * polls), e.g. `ManualTime`: the test moves it instead of waiting. The system's unless given.
   */
  time?: Clock & Timers;
  /** The service's logger (silent unless given), e.g. one at level `trace` whose lines a test reads. */
  logger?: Logger;
  /** The first gNB's streams and strictness (docs/interop.md); 2 streams each way, lenient, unless given. */
  gnb?: Pick<GnbOptions, 'streams' | 'strict'>;
  /** The service's database (an SQLite file or a PostgreSQL URL); the test run's unless given. */
  database?: string;
  /** The AMF's timers and limits (config `amf_*`), e.g. a small `maxUeContexts`; the defaults unless given. */
  amf?: Partial<AmfSettings>;
}

export async function startSessionService(options: SessionServiceOptions = {}): Promise<SessionService> {
  const { time, logger, database } = options;
  const t = await createTestApp({
    ...(database === undefined ? {} : { database }),
    ...(time === undefined ? {} : { clock: time, timers: time }),
    ...(logger === undefined ? {} : { logger }),
  });
  const token = await initialize(t);
  const rules: ForwarderRules = {
    sessions: new Map(),
    calls: [],
    downlinkData: [],
    traffic: new Map(),
    forwarding: new Map(),
  };
  const n2 = createN2(
    t.core,
    {
      ...DEFAULT_N2_SETTINGS,
      transport: 'udp',
      addresses: ['127.0.0.1'],
      port: 0,
      udpPort: 0,
      ...(time === undefined ? {} : { amfSet: MANUAL_TIME_AMF_SET }),
    },
    {
      upf: { settings: { ...DEFAULT_UPF_SETTINGS, n3Address: '127.0.0.1' }, addon: recordingAddon(rules) },
      ...(time === undefined ? {} : { timers: time, clock: time }),
      ...(options.amf === undefined ? {} : { amf: options.amf }),
    },
  );
  await n2.start();
  const endpoint = n2.endpoint();
  assert.ok(endpoint?.local[0] !== undefined);
  const amfAddress = endpoint.local[0];
  const ranSide = await createUdpTransport({
    addresses: ['127.0.0.1'],
    udpPort: 0,
    peerUdpPort: endpoint.udpPort ?? 0,
  });
  const received: NgapExchange[] = [];
  const gnb = new SimulatedGnb({
    config: gnbConfig(1),
    transport: ranSide.transport,
    amf: [amfAddress],
    ...options.gnb,
  });
  gnb.on((event) => {
    if (event.type === 'received') received.push(event.exchange);
  });
  const ues = new GnbUes(
    gnb,
    { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4001, tac: 1 },
    { n3Address: '127.0.0.2' },
  );
  await gnb.connect();
  assert.equal((await gnb.ngSetup()).outcome, 'accepted');

  const get = async <T>(url: string): Promise<T> => {
    const response = await t.request({ method: 'GET', url, token });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return response.json<{ result: T }>().result;
  };
  const request: SessionService['request'] = async (method, url, payload) => {
    const response = await t.request({
      method,
      url,
      token,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return response.statusCode;
  };
  const held = () => {
    const functions = n2.networkFunctions();
    assert.ok(functions !== undefined);
    return {
      connections: functions.amf.counts().connections,
      handovers: functions.amf.handoversInProgress(),
      smfHandovers: functions.smf?.handoversInProgress() ?? 0,
    };
  };
  const holding = (): Holding => ({
    connections: held().connections,
    rules: JSON.stringify([[...rules.sessions.entries()], [...rules.forwarding.entries()]]),
  });
  return {
    t,
    token,
    gnb,
    ues,
    rules,
    received,
    get,
    sessionsOf: async (imsi) =>
      (await get<{ sessions: ApiSession[] }>(`/api/v1/subscribers/${imsi}`)).sessions,
    async putDefaultProfile(changes) {
      assert.equal(await request('PUT', '/api/v1/profiles/default', { ...DEFAULT_PROFILE, ...changes }), 200);
    },
    async putDefaultPolicy(qos) {
      const policy = {
        ...qos,
        data_network_name: 'internet',
        profile_name: 'default',
        slice_name: 'default',
      };
      assert.equal(await request('PUT', '/api/v1/policies/default', policy), 200);
    },
    request,
    until: (check, what) => until(what, check, () => '', { everyMs: 20 }),
    async anotherGnb(n, cell, n3Address, config = {}) {
      const other = new SimulatedGnb({
        config: gnbConfig(n, { name: `gnb-${n}`, ...config }),
        transport: ranSide.transport,
        amf: [amfAddress],
      });
      other.on((event) => {
        if (event.type === 'received') received.push(event.exchange);
      });
      const otherUes = new GnbUes(other, cell, { n3Address });
      await other.connect();
      assert.equal((await other.ngSetup()).outcome, 'accepted');
      return { gnb: other, ues: otherUes };
    },
    async registered(n) {
      const imsi = imsiOf(n);
      assert.equal(
        await request('POST', '/api/v1/subscribers', {
          imsi,
          key: K,
          opc: OPC,
          sequenceNumber: '000000000000',
          profile_name: 'default',
        }),
        201,
      );
      const ue = new SimulatedUe({ config: testUeConfig(imsi), radio: ues });
      const sessions = new UeSessions(ue);
      assert.equal((await ue.register()).outcome, 'accepted');
      return { imsi, ue, sessions };
    },
    silenceRan(arrived = () => undefined) {
      ranSide.link.onPacket((packet) => arrived(packet));
    },
    stopN2: () => n2.stop(),
    held,
    holding,
    async nothingLeft(before) {
      await until('connections back', async () =>
        held().connections === before.connections ? true : undefined,
      );
      assert.deepEqual(held(), { connections: before.connections, handovers: 0, smfHandovers: 0 });
      assert.equal(holding().rules, before.rules);
    },
    async close() {
      await n2.stop();
      await ranSide.transport.close();
      await t.close();
    },
  };
}
