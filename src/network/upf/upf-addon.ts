import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.ts';

/**
 * The typed face of `pmn_upf` (`native/upf/`, built by `npm ci` into `build/Release/pmn_upf.node`):
 * the UPF's forwarder, which moves packets between GTP-U on N3 and a TUN device on N6 on a thread of
 * its own (docs/decisions.md 18). Argument mistakes throw TypeErrors; setting it up throws Node-style
 * errors (`code`, `syscall`); rule conflicts come back as errno codes.
 */

/** 'EEXIST' (id, TEID or address in use), 'ENOSPC' (table full), 'ENOENT' (no such session), ... */
type ErrnoCode = string;

export interface ForwarderOptions {
  n3Address: string;
  /** 2152 (TS 29.281 4.4.2.0); 0 for a free port (tests). */
  n3Port?: number;
  /** The TUN device to open or create (IFF_TUN, no packet information header). */
  tunName: string;
  maxSessions?: number;
  maxFlows?: number;
  errorIndicationsPerSecond?: number;
  /**
   * How long downlink packets of an inactive session stay buffered, on the clock of `tickFlows`
   * (default 10,000 ms; docs/upf.md "Downlink buffering").
   */
  downlinkBufferMs?: number;
  /**
   * The XDP datapath in front of the TUN (docs/upf.md "The XDP datapath"): `auto` runs it where it
   * loads, `xdp` requires it (the constructor throws why not), `tun` (the default) never.
   */
  datapath?: UpfDatapathChoice;
  /** The compiled XDP program (`upfBpfObject()`); needed unless `datapath` is `tun`. */
  bpfObject?: string;
  /** The interface towards the data network, where the downlink fast path runs. */
  n6Interface?: string;
  /**
   * XDP in native mode on veth interfaces too (generic by default): only where every veth peer the
   * program redirects into runs XDP or GRO, else those frames are dropped (bench/upf-xdp.ts's sinks).
   */
  xdpNativeOnVeth?: boolean;
}

export type UpfDatapathChoice = 'auto' | 'xdp' | 'tun';

/**
 * The forwarder's counters since it started (docs/upf.md), plus `sessions` (rules installed),
 * `openFlows`, `endedFlows` (ended, waiting for `takeFlows`) and `bufferedPackets` (downlink packets
 * of inactive sessions held now).
 */
export type ForwarderCounters = Record<
  | 'n3Received'
  | 'uplinkPackets'
  | 'uplinkBytes'
  | 'uplinkJoined'
  | 'downlinkPackets'
  | 'downlinkBytes'
  | 'downlinkSegmented'
  | 'echoRequests'
  | 'echoResponses'
  | 'endMarkersReceived'
  | 'endMarkersSent'
  | 'errorIndicationsReceived'
  | 'errorIndicationsSent'
  | 'errorIndicationsSuppressed'
  | 'dropMalformed'
  | 'dropOversized'
  | 'dropUnsupportedExtension'
  | 'dropUnexpectedType'
  | 'dropUnknownTeid'
  | 'dropSpoofed'
  | 'dropUplinkAmbr'
  | 'dropDownlinkAmbr'
  | 'dropUnknownDestination'
  | 'downlinkBuffered'
  | 'downlinkBufferFlushed'
  | 'dropBufferFull'
  | 'dropBufferExpired'
  | 'dropBufferReleased'
  | 'dropN6Write'
  | 'dropN3Send'
  | 'flowTableFull'
  | 'xdpToStack'
  | 'xdpToStackLimited'
  | 'xdpFlowsInserted'
  | 'forwardedPackets'
  | 'forwardedEndMarkers'
  | 'sessions'
  | 'openFlows'
  | 'endedFlows'
  | 'bufferedPackets'
  | 'forwardingTunnels',
  number
>;

export interface Forwarder {
  /** `datapath`: which runs; `datapathReason`: why, in words (for the start's log line). */
  info(): { n3Port: number; tunName: string; datapath?: 'xdp' | 'tun'; datapathReason?: string };
  /** Rates in bits per second, 0 for no limit. */
  addSession(
    id: number,
    uplinkTeid: number,
    ipv4: string | null,
    ipv6Prefix: string | null,
    uplinkBps: number,
    downlinkBps: number,
  ): ErrnoCode | undefined;
  setDownlink(
    id: number,
    gnbAddress: string,
    gnbPort: number,
    remoteTeid: number,
    qfi: number,
  ): ErrnoCode | undefined;
  /** Inactive: downlink packets are buffered (bounded) until `setDownlink`, which sends them first. */
  clearDownlink(id: number): ErrnoCode | undefined;
  /**
   * Indirect data forwarding: G-PDUs and End Markers arriving on `forwardTeid` go on to the target
   * gNB's DL forwarding tunnel; one per session, replaced by the next. 'EEXIST' when `forwardTeid` is
   * any session's uplink or forwarding TEID.
   */
  setForwarding(
    id: number,
    forwardTeid: number,
    gnbAddress: string,
    gnbPort: number,
    remoteTeid: number,
    qfi: number,
  ): ErrnoCode | undefined;
  clearForwarding(id: number): ErrnoCode | undefined;
  setAmbr(id: number, uplinkBps: number, downlinkBps: number): ErrnoCode | undefined;
  /**
   * Removes the rules, drops the session's buffered packets (as drop flows) and ends its flows as a
   * tick at `nowMs` would; returns its usage not drained yet and the number of flows ever ended, this
   * session's included, or 'ENOENT'.
   */
  removeSession(
    id: number,
    nowMs: number,
    previousTickMs: number,
  ): { uplinkBytes: number; downlinkBytes: number; flowsEnded: number } | ErrnoCode;
  /**
   * Drops the buffered downlink packets held `downlinkBufferMs` since the tick before they came (drop
   * flows of this tick); stamps the flows that had packets since the previous tick with `nowMs` (new
   * ones start at `previousTickMs`) and ends those idle for `idleMs` or active for `activeMs`
   * (network.md 7).
   */
  tickFlows(nowMs: number, previousTickMs: number, idleMs: number, activeMs: number): void;
  /** Up to `max` ended flows, oldest first, 80-octet records (flow-records.ts); frees their slots. */
  takeFlows(max: number): Buffer;
  /**
   * Ids (u32 LE) of sessions that had downlink data while inactive since the last call, each once until
   * its downlink changes (the Downlink Data Notification role).
   */
  takeDownlinkData(): Buffer;
  /** Usage since the last drain of each session that has some, 24-octet records. */
  drainUsage(): Buffer;
  counters(): ForwarderCounters;
  /** Stops the thread, closes the socket and the TUN file descriptor (idempotent). */
  close(): void;
}

/** Routes on the N6 device to the served UE addresses (native/upf/host-routes.c; docs/upf.md "Routes to the devices"). */
export interface HostRoutesOptions {
  device: string;
  /** The kernel routing table (254: main). */
  table?: number;
  /** The routes' protocol number (`ip route ... proto <n>`), 1..255. */
  protocol?: number;
}

export interface NativeHostRoutes {
  /** Adds the route (replacing one already there); an errno code when the kernel refuses. */
  add(address: string, prefixLength: number): ErrnoCode | undefined;
  /** Removes it; a route already gone is no error. */
  remove(address: string, prefixLength: number): ErrnoCode | undefined;
  close(): void;
}

export interface UpfAddon {
  Forwarder: new (options: ForwarderOptions) => Forwarder;
  /** Opens rtnetlink, brings the device up and removes the routes of that protocol left on it. */
  HostRoutes?: new (options: HostRoutesOptions) => NativeHostRoutes;
}

type UpfAddonLoad = { ok: true; addon: UpfAddon } | { ok: false; error: Error };

const defaultUpfAddonPath = (): string => join(packageRoot(), 'build', 'Release', 'pmn_upf.node');

/** The XDP program built beside the addon (binding.gyp; absent when clang or libbpf-dev were missing). */
export const upfBpfObject = (): string => join(packageRoot(), 'build', 'Release', 'upf.bpf.o');

const loaded = new Map<string, UpfAddonLoad>();

/** Loads the addon once per path; a missing build is an error value. */
export function loadUpfAddon(path: string = defaultUpfAddonPath()): UpfAddonLoad {
  let result = loaded.get(path);
  if (result === undefined) {
    try {
      result = { ok: true, addon: createRequire(import.meta.url)(path) as UpfAddon };
    } catch (cause) {
      result = {
        ok: false,
        error: new Error(`cannot load the UPF addon ${path} (run npm ci to build it)`, { cause }),
      };
    }
    loaded.set(path, result);
  }
  return result;
}
