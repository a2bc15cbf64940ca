import { isIPv4, isIPv6 } from 'node:net';
import type { Clock, Timers } from '../../clock.ts';
import type { FlowReportInput, UsageInput } from '../../records/record-inputs.ts';
import { decodeFlowCounts, decodeUsageCounts } from './flow-records.ts';
import { createFlowTable, FLOW_TIMEOUTS, type EndedFlow, type FlowTimeouts } from './flow-table.ts';
import { loadUpfAddon, type Forwarder, type ForwarderCounters, type UpfAddon } from './upf-addon.ts';
import type { UpfSettings } from './upf-settings.ts';

/** What the UPF needs of the records pipeline (src/records/ingestion.ts). */
export interface UpfRecords {
  recordFlowReports(reports: FlowReportInput[]): boolean;
  recordUsage(usage: UsageInput): boolean;
  whenWritable(records?: number): Promise<void>;
}

export interface UpfDeps {
  settings: UpfSettings;
  records: UpfRecords;
  clock: Clock;
  timers: Timers;
  /** The loaded addon; by default `loadUpfAddon()`. */
  addon?: UpfAddon;
  /** How often flow counters are pulled from the forwarder (1 s). */
  collectIntervalMs?: number;
  /** How often usage goes to the subscribers' daily counters (network.md 7: 30 s). */
  usageIntervalMs?: number;
  flowTimeouts?: FlowTimeouts;
}

/** Session AMBR (TS 23.501 5.7.1.8), bits per second; 0 means not limited. */
export interface Ambr {
  uplinkBps: number;
  downlinkBps: number;
}

export interface SessionRequest {
  /** The subscriber's IMSI: flow reports and usage carry it. */
  imsi: string;
  ueIpv4?: string;
  /** The session's /64 (TS 23.501 5.8.2.2.2), any address inside it, e.g. `2001:db8:1:2::`. */
  ueIpv6Prefix?: string;
  /** The local TEID of the uplink rule (from a TeidAllocator). */
  uplinkTeid: number;
  ambr: Ambr;
}

export interface DownlinkTunnel {
  gnbAddress: string;
  remoteTeid: number;
  /** The QFI in the PDU Session Container (TS 38.415): the default QoS flow, 1. */
  qfi?: number;
  /** The gNB's GTP-U port: 2152 (TS 29.281 4.4.2.0); another one only for tests. */
  gnbPort?: number;
}

/**
 * The user plane of a session: `active` forwards downlink packets to the gNB; `inactive` (no gNB
 * tunnel yet, or the device is idle) drops them and counts them as `drop` flows. Nothing is buffered:
 * paging on downlink data is the SMF's and AMF's, not done yet (docs/upf.md).
 */
export type UserPlane = { state: 'inactive' } | { state: 'active'; tunnel: Required<DownlinkTunnel> };

export interface UpfSession {
  readonly id: number;
  readonly imsi: string;
  readonly ueIpv4?: string;
  readonly ueIpv6Prefix?: string;
  readonly uplinkTeid: number;
  readonly ambr: Ambr;
  readonly userPlane: UserPlane;
}

export type UpfError =
  | 'not-started'
  | 'unknown-session'
  /** The TEID or an address belongs to another session. */
  | 'in-use'
  | 'table-full'
  /** The gNB address is not of the N3 address's family. */
  | 'family-mismatch'
  | 'invalid';

export type UpfResult<T = undefined> = { ok: true; value: T } | { ok: false; error: UpfError };

export interface UpfCounters extends ForwarderCounters {
  flowReports: number;
  /** Flow reports waiting for the records queue (back-pressure), not lost. */
  flowReportsPending: number;
  usageRecords: number;
  openFlows: number;
}

export interface Upf {
  /** Opens N3 and the TUN and starts the forwarder's thread; throws when they cannot be opened. */
  start(): void;
  /** Releases every session (their last reports and usage), stops the forwarder, and resolves once
   * every report was accepted by the records pipeline. */
  stop(): Promise<void>;
  readonly n3Port: number;
  readonly tunName: string;
  establishSession(request: SessionRequest): UpfResult<UpfSession>;
  /** Installs or moves the downlink tunnel (an End Marker goes down the old one when it moves). */
  updateDownlink(sessionId: number, tunnel: DownlinkTunnel): UpfResult;
  /** The device went idle (AN release): downlink packets are dropped until updateDownlink. */
  deactivate(sessionId: number): UpfResult;
  modifyAmbr(sessionId: number, ambr: Ambr): UpfResult;
  /** Removes the rules and writes the session's flow reports and usage. */
  release(sessionId: number): UpfResult;
  session(sessionId: number): UpfSession | undefined;
  counters(): UpfCounters;
}

const errnoError = (code: string): UpfError =>
  code === 'EEXIST'
    ? 'in-use'
    : code === 'ENOSPC'
      ? 'table-full'
      : code === 'ENOENT'
        ? 'unknown-session'
        : code === 'EAFNOSUPPORT'
          ? 'family-mismatch'
          : 'invalid';

const OK: UpfResult = { ok: true, value: undefined };
const REPORT_CHUNK = 1000;

const validRate = (bps: number): boolean => Number.isSafeInteger(bps) && bps >= 0;

export function createUpf(deps: UpfDeps): Upf {
  const { settings, records, clock, timers } = deps;
  const collectIntervalMs = deps.collectIntervalMs ?? 1000;
  const usageIntervalMs = deps.usageIntervalMs ?? 30_000;
  const flows = createFlowTable(deps.flowTimeouts ?? FLOW_TIMEOUTS);
  const sessions = new Map<number, UpfSession & { userPlane: UserPlane; ambr: Ambr }>();
  const pendingReports: FlowReportInput[][] = [];
  /** While the pipeline's queue is full: resolves once the waiting chunk was offered again. */
  let queueWait: Promise<void> | undefined;
  let forwarder: Forwarder | undefined;
  let info = { n3Port: 0, tunName: settings.tunName };
  let nextId = 1;
  let lastDrain = 0;
  let flowReports = 0;
  let usageRecords = 0;
  let cancelCollect: (() => void) | undefined;
  let cancelUsage: (() => void) | undefined;

  const reportOf = (flow: EndedFlow, imsi: string): FlowReportInput => ({
    subscriberId: imsi,
    sourceIp: flow.sourceIp,
    destinationIp: flow.destinationIp,
    sourcePort: flow.sourcePort,
    destinationPort: flow.destinationPort,
    // ICMP and others without ports carry 0; protocol 0 (IPv6 hop-by-hop first) is reported as is by
    // the forwarder and cannot be stored, so it is the only one not reported.
    protocol: flow.protocol,
    packets: flow.packets,
    bytes: flow.bytes,
    startTime: flow.startTime,
    endTime: flow.endTime,
    direction: flow.direction,
    action: flow.action,
  });

  /** Hands reports to the pipeline in order; what it cannot take waits for room (never dropped). */
  const deliver = (reports: FlowReportInput[]): void => {
    for (let i = 0; i < reports.length; i += REPORT_CHUNK) {
      pendingReports.push(reports.slice(i, i + REPORT_CHUNK));
    }
    drainPending();
  };

  const drainPending = (): void => {
    while (pendingReports.length > 0 && queueWait === undefined) {
      const chunk = pendingReports[0] ?? [];
      if (!records.recordFlowReports(chunk)) {
        queueWait = records.whenWritable(chunk.length).then(() => {
          queueWait = undefined;
          drainPending();
        });
        return;
      }
      pendingReports.shift();
      flowReports += chunk.length;
    }
  };

  const imsiOf = (sessionId: number, released?: Map<number, string>): string | undefined =>
    sessions.get(sessionId)?.imsi ?? released?.get(sessionId);

  const report = (ended: EndedFlow[], released?: Map<number, string>): void => {
    const reports: FlowReportInput[] = [];
    for (const flow of ended) {
      const imsi = imsiOf(flow.sessionId, released);
      if (imsi !== undefined && flow.protocol > 0) reports.push(reportOf(flow, imsi));
    }
    if (reports.length > 0) deliver(reports);
  };

  const collect = (): void => {
    if (forwarder === undefined) return;
    const now = clock.now();
    flows.add(decodeFlowCounts(forwarder.drainFlows()), now, lastDrain);
    lastDrain = now;
    report(flows.expire(now));
  };

  const recordUsage = (imsi: string, uplinkBytes: number, downlinkBytes: number): void => {
    if (uplinkBytes === 0 && downlinkBytes === 0) return;
    // A full queue loses this increment; it is counted apart from the records written.
    if (records.recordUsage({ imsi, uplinkBytes, downlinkBytes, at: clock.now() })) usageRecords++;
  };

  const collectUsage = (): void => {
    if (forwarder === undefined) return;
    for (const usage of decodeUsageCounts(forwarder.drainUsage())) {
      const session = sessions.get(usage.sessionId);
      if (session !== undefined) recordUsage(session.imsi, usage.uplinkBytes, usage.downlinkBytes);
    }
  };

  const armCollect = (): void => {
    cancelCollect = timers.after(collectIntervalMs, () => {
      collect();
      armCollect();
    });
  };
  const armUsage = (): void => {
    cancelUsage = timers.after(usageIntervalMs, () => {
      collectUsage();
      armUsage();
    });
  };

  const withSession = (
    sessionId: number,
    change: (f: Forwarder, s: UpfSession & { userPlane: UserPlane; ambr: Ambr }) => UpfResult,
  ): UpfResult => {
    if (forwarder === undefined) return { ok: false, error: 'not-started' };
    const session = sessions.get(sessionId);
    if (session === undefined) return { ok: false, error: 'unknown-session' };
    return change(forwarder, session);
  };

  const release = (sessionId: number): UpfResult =>
    withSession(sessionId, (f, session) => {
      const left = f.removeSession(sessionId);
      if (typeof left === 'string') return { ok: false, error: errnoError(left) };
      sessions.delete(sessionId);
      // The rules are gone, so this drain holds the session's last packets.
      const now = clock.now();
      flows.add(decodeFlowCounts(f.drainFlows()), now, lastDrain);
      lastDrain = now;
      report(flows.takeSession(sessionId), new Map([[sessionId, session.imsi]]));
      recordUsage(session.imsi, left.uplinkBytes, left.downlinkBytes);
      return OK;
    });

  return {
    start() {
      if (forwarder !== undefined) return;
      let addon = deps.addon;
      if (addon === undefined) {
        const load = loadUpfAddon();
        if (!load.ok) throw load.error;
        addon = load.addon;
      }
      forwarder = new addon.Forwarder({
        n3Address: settings.n3Address,
        n3Port: settings.n3Port,
        tunName: settings.tunName,
        maxSessions: settings.maxSessions,
        maxFlows: settings.maxFlows,
        errorIndicationsPerSecond: settings.errorIndicationsPerSecond,
      });
      info = forwarder.info();
      lastDrain = clock.now();
      armCollect();
      armUsage();
    },
    async stop() {
      if (forwarder === undefined) return;
      for (const id of [...sessions.keys()]) release(id);
      collect();
      report(flows.expire(Number.MAX_SAFE_INTEGER));
      cancelCollect?.();
      cancelUsage?.();
      forwarder.close();
      forwarder = undefined;
      while (queueWait !== undefined) await queueWait;
    },
    get n3Port() {
      return info.n3Port;
    },
    get tunName() {
      return info.tunName;
    },
    establishSession(request) {
      if (forwarder === undefined) return { ok: false, error: 'not-started' };
      if (
        (request.ueIpv4 === undefined && request.ueIpv6Prefix === undefined) ||
        (request.ueIpv4 !== undefined && !isIPv4(request.ueIpv4)) ||
        (request.ueIpv6Prefix !== undefined && !isIPv6(request.ueIpv6Prefix)) ||
        !Number.isInteger(request.uplinkTeid) ||
        request.uplinkTeid < 1 ||
        request.uplinkTeid > 0xffff_ffff ||
        !validRate(request.ambr.uplinkBps) ||
        !validRate(request.ambr.downlinkBps)
      )
        return { ok: false, error: 'invalid' };
      const id = nextId;
      const code = forwarder.addSession(
        id,
        request.uplinkTeid,
        request.ueIpv4 ?? null,
        request.ueIpv6Prefix ?? null,
        request.ambr.uplinkBps,
        request.ambr.downlinkBps,
      );
      if (code !== undefined) return { ok: false, error: errnoError(code) };
      nextId = nextId === 0xffff_ffff ? 1 : nextId + 1;
      const session = {
        id,
        imsi: request.imsi,
        ...(request.ueIpv4 !== undefined && { ueIpv4: request.ueIpv4 }),
        ...(request.ueIpv6Prefix !== undefined && { ueIpv6Prefix: request.ueIpv6Prefix }),
        uplinkTeid: request.uplinkTeid,
        ambr: { ...request.ambr },
        userPlane: { state: 'inactive' } as UserPlane,
      };
      sessions.set(id, session);
      return { ok: true, value: session };
    },
    updateDownlink: (sessionId, tunnel) =>
      withSession(sessionId, (f, session) => {
        const full = { qfi: 1, gnbPort: 2152, ...tunnel };
        if (
          !Number.isInteger(full.remoteTeid) ||
          full.remoteTeid < 0 ||
          full.remoteTeid > 0xffff_ffff ||
          !Number.isInteger(full.qfi) ||
          full.qfi < 0 ||
          full.qfi > 63 ||
          (!isIPv4(full.gnbAddress) && !isIPv6(full.gnbAddress))
        )
          return { ok: false, error: 'invalid' };
        const code = f.setDownlink(sessionId, full.gnbAddress, full.gnbPort, full.remoteTeid, full.qfi);
        if (code !== undefined) return { ok: false, error: errnoError(code) };
        session.userPlane = { state: 'active', tunnel: full };
        return OK;
      }),
    deactivate: (sessionId) =>
      withSession(sessionId, (f, session) => {
        f.clearDownlink(sessionId);
        session.userPlane = { state: 'inactive' };
        return OK;
      }),
    modifyAmbr: (sessionId, ambr) =>
      withSession(sessionId, (f, session) => {
        if (!validRate(ambr.uplinkBps) || !validRate(ambr.downlinkBps))
          return { ok: false, error: 'invalid' };
        f.setAmbr(sessionId, ambr.uplinkBps, ambr.downlinkBps);
        session.ambr = { ...ambr };
        return OK;
      }),
    release,
    session: (sessionId) => sessions.get(sessionId),
    counters() {
      const native = forwarder?.counters();
      return {
        ...(native ?? ({} as ForwarderCounters)),
        flowReports,
        flowReportsPending: pendingReports.reduce((sum, chunk) => sum + chunk.length, 0),
        usageRecords,
        openFlows: flows.size,
      };
    },
  };
}
