import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.ts';

/**
 * The typed face of `pmn_gnb_user_plane` (`native/gnb-user-plane/`, built by `npm ci` into
 * `build/Release/pmn_gnb_user_plane.node`): the simulated gNB's user plane, which carries the packets
 * of each UE's TUN device as GTP-U to the UPF and back, on a thread of its own (docs/simulator.md,
 * "User plane"). Argument mistakes throw TypeErrors; opening the N3 socket throws Node-style errors
 * (`code`, `syscall`); session conflicts come back as errno codes.
 */

/** 'EEXIST' (id or downlink TEID in use), 'ENOSPC' (table full), 'ENOENT' (no such session), ... */
type ErrnoCode = string;

interface GnbUserPlaneOptions {
  /** The gNB's N3 address (where the UPF sends the downlink). */
  n3Address: string;
  /** 2152 (TS 29.281 4.4.2.0); 0 for a free port (tests). */
  n3Port?: number;
  maxSessions?: number;
  errorIndicationsPerSecond?: number;
  /** A network namespace (`ip netns` name) to open the N3 socket in; by default this process's. */
  n3Namespace?: string;
}

export type GnbUserPlaneCounters = Record<
  | 'n3Received'
  | 'uplinkPackets'
  | 'uplinkBytes'
  | 'uplinkSegmented'
  | 'downlinkPackets'
  | 'downlinkBytes'
  | 'downlinkJoined'
  | 'echoRequests'
  | 'echoResponses'
  | 'endMarkersReceived'
  | 'errorIndicationsReceived'
  | 'errorIndicationsSent'
  | 'errorIndicationsSuppressed'
  | 'dropMalformed'
  | 'dropOversized'
  | 'dropUnsupportedExtension'
  | 'dropUnexpectedType'
  | 'dropUnknownTeid'
  | 'downlinkHeld'
  | 'downlinkForwarded'
  | 'dropNotReady'
  | 'dropTunWrite'
  | 'dropN3Send',
  number
>;

export type SessionCounters = Record<
  'uplinkPackets' | 'uplinkBytes' | 'downlinkPackets' | 'downlinkBytes' | 'endMarkersReceived',
  number
>;

export interface NativeGnbUserPlane {
  n3Port(): number;
  /**
   * Creates the session's TUN device in this process's namespace and starts carrying it; its downlink
   * is held (bounded) until `setReady`.
   */
  addSession(
    id: number,
    tunName: string,
    downlinkTeid: number,
    upfAddress: string,
    upfPort: number,
    uplinkTeid: number,
    qfi: number,
  ): { tunName: string } | { error: ErrnoCode };
  /** The UE's TUN is configured: the downlink held so far goes into it, in order, and the rest follows. */
  setReady(id: number): ErrnoCode | undefined;
  /**
   * Handover source with data forwarding: the session's downlink (what is held first, then End
   * Markers) goes on as GTP-U to `address`:`port`, TEID `teid`, instead of the TUN.
   */
  forward(id: number, address: string, port: number, teid: number): ErrnoCode | undefined;
  /**
   * Handover target: G-PDUs on `teid` (its DL forwarding TEID) are the session's and reach the UE
   * before the new path's, which wait for an End Marker on `teid` or `endForwarded`.
   */
  expectForwarded(id: number, teid: number): ErrnoCode | undefined;
  /** Stops waiting for the forwarded End Marker: the new path's downlink follows. */
  endForwarded(id: number): ErrnoCode | undefined;
  /** Stops carrying the session and closes its TUN (the device disappears). */
  removeSession(id: number): ErrnoCode | undefined;
  sessionCounters(id: number): SessionCounters | undefined;
  counters(): GnbUserPlaneCounters;
  /** Stops the thread and closes the socket and every TUN (idempotent). */
  close(): void;
}

export interface GnbUserPlaneAddon {
  GnbUserPlane: new (options: GnbUserPlaneOptions) => NativeGnbUserPlane;
}

type GnbUserPlaneAddonLoad = { ok: true; addon: GnbUserPlaneAddon } | { ok: false; error: Error };

const defaultGnbUserPlaneAddonPath = (): string =>
  join(packageRoot(), 'build', 'Release', 'pmn_gnb_user_plane.node');

const loaded = new Map<string, GnbUserPlaneAddonLoad>();

/** Loads the addon once per path; a missing build is an error value. */
export function loadGnbUserPlaneAddon(path: string = defaultGnbUserPlaneAddonPath()): GnbUserPlaneAddonLoad {
  let result = loaded.get(path);
  if (result === undefined) {
    try {
      result = { ok: true, addon: createRequire(import.meta.url)(path) as GnbUserPlaneAddon };
    } catch (cause) {
      result = {
        ok: false,
        error: new Error(`cannot load the gNB user plane addon ${path} (run npm ci to build it)`, { cause }),
      };
    }
    loaded.set(path, result);
  }
  return result;
}
