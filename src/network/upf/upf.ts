import { isIPv4, isIPv6 } from 'node:net';
import type { Logger } from 'pino';
import type { Clock, Timers } from '../../clock.ts';
import type { FlowReportInput, UsageInput } from '../../records/record-inputs.ts';
import { decodeFlowReports, decodeUsageCounts, FLOW_RECORD } from './flow-records.ts';
import {
  loadUpfAddon,
  upfBpfObject,
  type Forwarder,
  type ForwarderCounters,
  type NativeHostRoutes,
  type UpfAddon,
} from './upf-addon.ts';
import { createTeidAllocator, type TeidAllocator } from '../working-state/teid-allocator.ts';
import { DEFAULT_ROUTE_PROTOCOL, type UpfSettings } from './upf-settings.ts';
import type {
  Ambr,
  DownlinkTunnel,
  SessionRequest,
  UpfError,
  UpfResult,
  UpfSession,
  UserPlaneState,
} from './ports/session-control.ts';

/** What the UPF needs of the records pipeline (src/records/ingestion.ts). */
export interface UpfRecords {
  recordFlowReports(reports: FlowReportInput[]): boolean;
  recordUsage(usage: UsageInput): boolean;
  whenWritable(records?: number): Promise<void>;
}

/**
 * When a flow ends (network.md 7): after `idleMs` without packets, after `activeMs` of activity (the
 * next packets open a new flow), and at its session's release. The forwarder keeps the flows; the
 * core's ticks (every collection interval) give their times, so a flow's start and end are known to
 * within one interval: `startTime` is the tick before the one that first saw it.
 */
interface FlowTimeouts {
  idleMs: number;
  activeMs: number;
}

/** network.md 7: 30 s without packets, 30 min of activity. */
const FLOW_TIMEOUTS: FlowTimeouts = { idleMs: 30_000, activeMs: 30 * 60_000 };

/**
 * How long downlink packets of an inactive session are buffered (TS 23.501 5.8.3.2; docs/upf.md
 * "Downlink buffering"): long enough for paging and the Service Request (T3513 is 6 s: the first
 * paging and one repetition), not so long that the packets are stale for the sender (TCP retransmits
 * its SYN after 1, 3 and 7 s).
 */
export const DOWNLINK_BUFFER_MS = 10_000;

interface UpfDeps {
  settings: UpfSettings;
  records: UpfRecords;
  clock: Clock;
  timers: Timers;
  /** The loaded addon; by default `loadUpfAddon()`. */
  addon?: UpfAddon;
  /** How often the forwarder's flows are ticked and ended ones taken (1 s). */
  collectIntervalMs?: number;
  /** How often usage goes to the subscribers' daily counters (network.md 7: 30 s). */
  usageIntervalMs?: number;
  flowTimeouts?: FlowTimeouts;
  /**
   * The Downlink Data Notification role (TS 23.502 4.2.3.3): a downlink packet arrived for this
   * inactive session, the first since it became inactive; the SMF/AMF page the device. The packets are
   * buffered (bounded) until `updateDownlink` sends them down the new tunnel. Looked for every
   * `downlinkDataPollMs` (100 ms).
   */
  onDownlinkData?: (session: UpfSession) => void;
  downlinkDataPollMs?: number;
  /** How long downlink packets of an inactive session stay buffered (DOWNLINK_BUFFER_MS). */
  downlinkBufferMs?: number;
  /** Told of a host route the kernel refused (docs/upf.md "Routes to the devices"). */
  logger?: Pick<Logger, 'warn'>;
}

export interface UpfCounters extends ForwarderCounters {
  flowReports: number;
  /**
   * Ended flows not yet accepted by the records queue (back-pressure): in the forwarder's table or
   * decoded and waiting; not lost.
   */
  flowReportsPending: number;
  usageRecords: number;
  downlinkDataNotifications: number;
  /** Host routes the kernel refused to add or remove (docs/upf.md "Routes to the devices"). */
  hostRouteFailures: number;
}

export interface Upf {
  /** Opens N3 and the TUN and starts the forwarder's thread; throws when they cannot be opened. */
  start(): void;
  /** Releases every session (their last reports and usage), stops the forwarder, and resolves once
   * every report was accepted by the records pipeline. */
  stop(): Promise<void>;
  readonly n3Port: number;
  readonly tunName: string;
  /** Which datapath runs since `start` and why (docs/upf.md "The XDP datapath"). */
  readonly datapath: { kind: 'xdp' | 'tun'; reason: string };
  /**
   * The N3 TEID space of this UPF, its one owner: the SMF's uplink TEIDs (through its TunnelEndpointIds
   * port) and the forwarding TEIDs come from here, so neither can take a TEID the other holds.
   */
  readonly teids: TeidAllocator;
  establishSession(request: SessionRequest): UpfResult<UpfSession>;
  /**
   * Installs or moves the downlink tunnel (an End Marker goes down the old one when it moves); what was
   * buffered while inactive goes down the new one first.
   */
  updateDownlink(sessionId: number, tunnel: DownlinkTunnel): UpfResult;
  /** The device went idle (AN release): downlink packets are buffered until updateDownlink. */
  deactivate(sessionId: number): UpfResult;
  /**
   * Indirect data forwarding (TS 23.502 4.9.1.3.2 step 11, TS 29.244 5.2.1): a forwarding TEID of this
   * UPF whose G-PDUs and End Markers go on to `target` (the target gNB's DL forwarding tunnel), one per
   * session (a new one replaces it); it goes with removeForwarding or the session's release.
   */
  createForwarding(sessionId: number, target: DownlinkTunnel): UpfResult<number>;
  removeForwarding(sessionId: number): UpfResult;
  modifyAmbr(sessionId: number, ambr: Ambr): UpfResult;
  /** Removes the rules and writes the session's flow reports and usage. */
  release(sessionId: number): UpfResult;
  session(sessionId: number): UpfSession | undefined;
  counters(): UpfCounters;
}

/** A gNB tunnel with its defaults (QFI 1, port 2152), or undefined when a field is out of range. */
function completeTunnel(tunnel: DownlinkTunnel): Required<DownlinkTunnel> | undefined {
  const full = { qfi: 1, gnbPort: 2152, ...tunnel };
  const valid =
    Number.isInteger(full.remoteTeid) &&
    full.remoteTeid >= 0 &&
    full.remoteTeid <= 0xffff_ffff &&
    Number.isInteger(full.qfi) &&
    full.qfi >= 0 &&
    full.qfi <= 63 &&
    (isIPv4(full.gnbAddress) || isIPv6(full.gnbAddress));
  return valid ? full : undefined;
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
/** Ended flows taken from the forwarder at once: while a chunk waits for the records queue, no more are taken. */
const REPORT_CHUNK = 2000;

const validRate = (bps: number): boolean => Number.isSafeInteger(bps) && bps >= 0;

export function createUpf(deps: UpfDeps): Upf {
  const { settings, records, clock, timers } = deps;
  const collectIntervalMs = deps.collectIntervalMs ?? 1000;
  const usageIntervalMs = deps.usageIntervalMs ?? 30_000;
  const timeouts = deps.flowTimeouts ?? FLOW_TIMEOUTS;
  const downlinkDataPollMs = deps.downlinkDataPollMs ?? 100;
  const sessions = new Map<number, UpfSession & { userPlane: UserPlaneState; ambr: Ambr }>();
  /** Released sessions whose flows are not all taken yet, until the forwarder's ended count `through`. */
  const released = new Map<number, { imsi: string; through: number }>();
  /** Decoded reports the records queue has not accepted yet: one chunk while running. */
  const backlog: FlowReportInput[][] = [];
  /** While the pipeline's queue is full: resolves once the waiting chunk was offered again. */
  let queueWait: Promise<void> | undefined;
  let forwarder: Forwarder | undefined;
  let info: ReturnType<Forwarder['info']> = {
    n3Port: 0,
    tunName: settings.tunName,
    datapath: 'tun',
    datapathReason: 'not started',
  };
  let nextId = 1;
  // A session holds its uplink TEID and at most one forwarding TEID.
  const teids = createTeidAllocator({ limit: 2 * settings.maxSessions });
  /** Each session's forwarding TEID, held in `teids` as the uplink TEIDs are. */
  const forwardingTeids = new Map<number, number>();
  const dropForwarding = (sessionId: number): void => {
    const teid = forwardingTeids.get(sessionId);
    if (teid === undefined) return;
    forwardingTeids.delete(sessionId);
    teids.release(teid);
  };
  let lastTick = 0;
  let flowsTaken = 0;
  let flowReports = 0;
  let usageRecords = 0;
  let downlinkDataNotifications = 0;
  let hostRouteFailures = 0;
  /** Routes to the served addresses on the N6 TUN, when `hostRoutes` is on. */
  let routes: NativeHostRoutes | undefined;
  let cancelCollect: (() => void) | undefined;
  let cancelUsage: (() => void) | undefined;
  let cancelDownlinkData: (() => void) | undefined;

  const imsiOf = (sessionId: number): string | undefined =>
    sessions.get(sessionId)?.imsi ?? released.get(sessionId)?.imsi;

  /** Offers the backlog in order; what the pipeline cannot take waits for room (never dropped). */
  const flush = (): void => {
    while (backlog.length > 0 && queueWait === undefined) {
      const chunk = backlog[0] ?? [];
      if (!records.recordFlowReports(chunk)) {
        queueWait = records.whenWritable(chunk.length).then(() => {
          queueWait = undefined;
          flush();
          pullFlows();
        });
        return;
      }
      backlog.shift();
      flowReports += chunk.length;
    }
  };

  /** One chunk of ended flows from the forwarder into the backlog; false when none was waiting. */
  const take = (f: Forwarder): boolean => {
    const bytes = f.takeFlows(REPORT_CHUNK);
    if (bytes.length === 0) return false;
    const reports = decodeFlowReports(bytes, imsiOf);
    flowsTaken += bytes.length / FLOW_RECORD;
    // Entries are in release order, so `through` never decreases along the map.
    for (const [id, { through }] of released) {
      if (through > flowsTaken) break;
      released.delete(id);
    }
    if (reports.length > 0) backlog.push(reports);
    return true;
  };

  /**
   * Moves ended flows to the pipeline while it accepts them. Bounded: under back-pressure at most one
   * chunk waits here, the rest in the forwarder's fixed table (where new flows then find no room and
   * count as flowTableFull), and taking resumes once the pipeline has room.
   */
  const pullFlows = (): void => {
    while (forwarder !== undefined && backlog.length === 0 && queueWait === undefined && take(forwarder)) {
      flush();
    }
  };

  const collect = (): void => {
    if (forwarder === undefined) return;
    const now = clock.now();
    forwarder.tickFlows(now, lastTick, timeouts.idleMs, timeouts.activeMs);
    lastTick = now;
    pullFlows();
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

  const pollDownlinkData = (): void => {
    if (forwarder === undefined || deps.onDownlinkData === undefined) return;
    const ids = forwarder.takeDownlinkData();
    for (let at = 0; at + 4 <= ids.length; at += 4) {
      const session = sessions.get(ids.readUInt32LE(at));
      // Reactivated (or released) since the packet: nothing to page for.
      if (session?.userPlane.state !== 'inactive') continue;
      downlinkDataNotifications++;
      deps.onDownlinkData(session);
    }
  };
  const armDownlinkData = (): void => {
    cancelDownlinkData = timers.after(downlinkDataPollMs, () => {
      pollDownlinkData();
      armDownlinkData();
    });
  };

  const withSession = (
    sessionId: number,
    change: (f: Forwarder, s: UpfSession & { userPlane: UserPlaneState; ambr: Ambr }) => UpfResult,
  ): UpfResult => {
    if (forwarder === undefined) return { ok: false, error: 'not-started' };
    const session = sessions.get(sessionId);
    if (session === undefined) return { ok: false, error: 'unknown-session' };
    return change(forwarder, session);
  };

  /**
   * The session's host routes: its IPv4 address as a /32, its IPv6 prefix as the /64 it is
   * (TS 23.501 5.8.2.2.2). A refusal leaves the session as it is (its rules serve it; only the
   * routing daemon does not learn the address from this member): counted and logged.
   */
  const changeRoutes = (add: boolean, session: UpfSession): void => {
    if (routes === undefined) return;
    const prefixes: [string, number][] = [];
    if (session.ueIpv4 !== undefined) prefixes.push([session.ueIpv4, 32]);
    if (session.ueIpv6Prefix !== undefined) prefixes.push([session.ueIpv6Prefix, 64]);
    for (const [address, length] of prefixes) {
      const code = add ? routes.add(address, length) : routes.remove(address, length);
      if (code === undefined) continue;
      hostRouteFailures++;
      deps.logger?.warn(
        { address: `${address}/${length}`, tun: info.tunName, code },
        `host route ${add ? 'not added' : 'not removed'}: ${code}`,
      );
    }
  };

  const release = (sessionId: number): UpfResult =>
    withSession(sessionId, (f, session) => {
      // The rules go and the session's flows end in the same step, so no packet is left uncounted.
      const left = f.removeSession(sessionId, clock.now(), lastTick);
      if (typeof left === 'string') return { ok: false, error: errnoError(left) };
      sessions.delete(sessionId);
      dropForwarding(sessionId);
      changeRoutes(false, session);
      if (left.flowsEnded > flowsTaken)
        released.set(sessionId, { imsi: session.imsi, through: left.flowsEnded });
      pullFlows();
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
        downlinkBufferMs: deps.downlinkBufferMs ?? DOWNLINK_BUFFER_MS,
        datapath: settings.datapath ?? 'tun',
        bpfObject: upfBpfObject(),
        ...(settings.n6Interface !== undefined && { n6Interface: settings.n6Interface }),
      });
      info = forwarder.info();
      if (settings.hostRoutes === 'on') {
        if (addon.HostRoutes === undefined) {
          forwarder.close();
          forwarder = undefined;
          throw new Error('the UPF addon has no host routes (rebuild it with npm ci)');
        }
        try {
          routes = new addon.HostRoutes({
            device: info.tunName,
            table: settings.routeTable ?? 254,
            protocol: settings.routeProtocol ?? DEFAULT_ROUTE_PROTOCOL,
          });
        } catch (error) {
          forwarder.close();
          forwarder = undefined;
          throw error;
        }
      }
      lastTick = clock.now();
      armCollect();
      armUsage();
      if (deps.onDownlinkData !== undefined) armDownlinkData();
    },
    async stop() {
      if (forwarder === undefined) return;
      for (const id of [...sessions.keys()]) release(id);
      // Every flow belongs to a session, so all have ended: take them all before the table goes.
      while (take(forwarder)) continue;
      flush();
      cancelCollect?.();
      cancelUsage?.();
      cancelDownlinkData?.();
      routes?.close();
      routes = undefined;
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
    get datapath() {
      return { kind: info.datapath ?? 'tun', reason: info.datapathReason ?? 'the TUN datapath' };
    },
    teids,
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
        userPlane: { state: 'inactive' } as UserPlaneState,
      };
      sessions.set(id, session);
      // New, restored by a takeover or adopted: every session this UPF serves comes through here.
      changeRoutes(true, session);
      return { ok: true, value: session };
    },
    updateDownlink: (sessionId, tunnel) =>
      withSession(sessionId, (f, session) => {
        const full = completeTunnel(tunnel);
        if (full === undefined) return { ok: false, error: 'invalid' };
        const code = f.setDownlink(sessionId, full.gnbAddress, full.gnbPort, full.remoteTeid, full.qfi);
        if (code !== undefined) return { ok: false, error: errnoError(code) };
        session.userPlane = { state: 'active', tunnel: full };
        return OK;
      }),
    createForwarding(sessionId, target) {
      let teid: number | undefined;
      const result = withSession(sessionId, (f) => {
        const full = completeTunnel(target);
        if (full === undefined) return { ok: false, error: 'invalid' };
        const drawn = teids.allocate();
        if (drawn === undefined) return { ok: false, error: 'table-full' };
        const code = f.setForwarding(
          sessionId,
          drawn,
          full.gnbAddress,
          full.gnbPort,
          full.remoteTeid,
          full.qfi,
        );
        if (code !== undefined) {
          // EEXIST: an uplink rule holds a TEID that did not come from `teids` (the caller's bug).
          teids.release(drawn);
          return { ok: false, error: errnoError(code) };
        }
        dropForwarding(sessionId);
        forwardingTeids.set(sessionId, drawn);
        teid = drawn;
        return OK;
      });
      return result.ok && teid !== undefined ? { ok: true, value: teid } : (result as UpfResult<number>);
    },
    removeForwarding: (sessionId) =>
      withSession(sessionId, (f) => {
        f.clearForwarding(sessionId);
        dropForwarding(sessionId);
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
        flowReportsPending: (native?.endedFlows ?? 0) + backlog.reduce((sum, chunk) => sum + chunk.length, 0),
        usageRecords,
        downlinkDataNotifications,
        hostRouteFailures,
      };
    },
  };
}
