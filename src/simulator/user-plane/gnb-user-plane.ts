import { isIPv4, isIPv6 } from 'node:net';
import type { GnbUserPlaneCounters, NativeGnbUserPlane, SessionCounters } from './gnb-user-plane-addon.ts';
import { loadGnbUserPlaneAddon, type GnbUserPlaneAddon } from './gnb-user-plane-addon.ts';
import { configureUeTun, type UeTunConfiguration } from './ue-tun.ts';

/**
 * The user plane of a simulated gNB: for each UE PDU session set up on N2, a TUN device inside a network
 * namespace the caller names (the UE's side: its address, routes through it), and the gNB side that
 * carries the device's packets to the UPF as GTP-U and the UPF's downlink back into it. The forwarding
 * itself runs in `native/gnb-user-plane/` on a thread of its own (docs/simulator.md, "User plane").
 */

/** What PDU Session Resource Setup (TS 38.413 8.2.1) gave the gNB for one session. */
export interface SessionUserPlane {
  /** PDU session id (TS 24.501 9.4: 1..15). */
  pduSessionId: number;
  ueIpv4?: string;
  /** The session's /64 (any address inside it); the UE takes `<prefix>::1` unless `ueIpv6` says. */
  ueIpv6Prefix?: string;
  ueIpv6?: string;
  /** The QoS flow of the default rule (TS 23.501 5.7.1), carried in the PDU Session Container. */
  qfi: number;
  /** UL NG-U UP TNL Information: the UPF's N3 address and the TEID it expects. */
  upfAddress: string;
  uplinkTeid: number;
  /** DL NG-U UP TNL Information: the TEID this gNB gave the UPF (at this gNB's N3 address). */
  downlinkTeid: number;
}

export interface UeTunOptions {
  namespace: string;
  /**
   * The device's name (IFNAMSIZ - 1 = 15 octets at most); by default `ue<pid>x<n>` (base 36), unique
   * on the host, since the kernel's `tunN` would be the same name in every namespace it moves to.
   */
  tunName?: string;
  mtu?: number;
  routes?: readonly string[];
}

export type UserPlaneError =
  /** The downlink TEID (or the session) is another's here. */
  | 'in-use'
  | 'table-full'
  /** The UPF's address is not of this gNB's N3 family. */
  | 'family-mismatch'
  /** The parameters cannot be carried (no address, QFI out of range, ...). */
  | 'invalid'
  /** The TUN device could not be created. */
  | 'tun'
  /** It could not be moved into the namespace or configured there. */
  | 'namespace'
  /** The user plane was closed. */
  | 'closed';

export type UserPlaneResult<T> =
  { ok: true; value: T } | { ok: false; error: UserPlaneError; detail: string };

/** A session's TUN device and tunnel while they exist. */
export interface UeTunnel {
  readonly session: SessionUserPlane;
  readonly namespace: string;
  readonly tunName: string;
  /** The UE's IPv6 address on the device, when the session has a /64. */
  readonly ueIpv6: string | undefined;
  /** Packets and bytes carried each way and End Markers received; undefined once released. */
  counters(): SessionCounters | undefined;
  /**
   * Handover source with data forwarding (TS 23.502 4.9.1.3.2 step 11): from now on its downlink,
   * End Marker included, goes to `to` (the Handover Command's forwarding tunnel), not to the UE. Its
   * `release` then waits for that End Marker, at most `FORWARDING_HOLD_MS` (TS 38.300 9.2.3.2.1 step
   * 10: on UE context release, ongoing data forwarding may continue).
   */
  forwardTo(to: { address: string; teid: number }): UserPlaneError | undefined;
  /**
   * Handover target: downlink on `teid` (the DL forwarding tunnel it offered) reaches the UE before the
   * new path's, which waits for the forwarded End Marker (TS 38.300 9.2.3.3.1, in-order delivery), at
   * most `FORWARDING_HOLD_MS`.
   */
  expectForwarded(teid: number): UserPlaneError | undefined;
  /** Removes the tunnel and the TUN device (idempotent). */
  release(): void;
  readonly released: boolean;
}

export interface GnbUserPlane {
  readonly n3Address: string;
  readonly n3Port: number;
  /** Creates, moves and configures the TUN, then carries its packets. */
  bringUp(session: SessionUserPlane, tun: UeTunOptions): Promise<UserPlaneResult<UeTunnel>>;
  /** Tunnels up now. */
  readonly tunnels: number;
  /** Since it started; after `close`, the last ones. */
  counters(): GnbUserPlaneCounters;
  /** Releases every tunnel and closes the N3 socket. */
  close(): void;
}

interface GnbUserPlaneDeps {
  /** The gNB's N3 address (and port, 2152 by default; 0 for a free one). */
  n3Address: string;
  n3Port?: number;
  /** Tunnels at most (default 4096). */
  maxSessions?: number;
  /** Error Indications for unknown TEIDs per second at most (default 100). */
  errorIndicationsPerSecond?: number;
  /**
   * The network namespace (`ip netns` name) whose interfaces carry N3: the gNB on a link of its own,
   * as a real one is, rather than on this host's loopback (the UPF's XDP datapath runs on a real
   * link, never on loopback). By default this process's. The UEs' TUN devices are made here as before.
   */
  n3Namespace?: string;
  addon?: GnbUserPlaneAddon;
}

const errorOf = (code: string): UserPlaneError =>
  code === 'EEXIST'
    ? 'in-use'
    : code === 'ENOSPC'
      ? 'table-full'
      : code === 'EAFNOSUPPORT'
        ? 'family-mismatch'
        : 'tun';

const failure = <T>(error: UserPlaneError, detail: string): UserPlaneResult<T> => ({
  ok: false,
  error,
  detail,
});

/** `<prefix>::1` of a /64: the UE's address when the SMF gave no interface identifier. */
export function firstAddressOf(prefix: string): string | undefined {
  if (!isIPv6(prefix)) return undefined;
  const groups = expandIpv6(prefix);
  return `${groups.slice(0, 4).join(':')}::1`;
}

function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? 0 : 8 - h.length - t.length;
  return [...h, ...Array<string>(zeros).fill('0'), ...t].map((g) => Number.parseInt(g, 16).toString(16));
}

/**
 * How long a handover's forwarding may last at most: as long as the SMF keeps the UPF's indirect
 * forwarding tunnel after Handover Notify (src/network/smf/handover.ts), whose End Marker ends it.
 */
const FORWARDING_HOLD_MS = 3_000;
/** How often a forwarding source looks whether its End Marker went on. */
const FORWARDING_POLL_MS = 10;

/** Device names made by this process (default names). */
let tunNames = 0;
const defaultTunName = (): string => {
  tunNames = (tunNames + 1) % 36 ** 7;
  return `ue${process.pid.toString(36)}x${tunNames.toString(36)}`;
};

/** Throws what opening the N3 socket threw (EADDRINUSE, EADDRNOTAVAIL, ...) or the addon's load error. */
export function createGnbUserPlane(deps: GnbUserPlaneDeps): GnbUserPlane {
  const addon =
    deps.addon ??
    (() => {
      const load = loadGnbUserPlaneAddon();
      if (!load.ok) throw load.error;
      return load.addon;
    })();
  const native: NativeGnbUserPlane = new addon.GnbUserPlane({
    n3Address: deps.n3Address,
    n3Port: deps.n3Port ?? 2152,
    maxSessions: deps.maxSessions ?? 4096,
    errorIndicationsPerSecond: deps.errorIndicationsPerSecond ?? 100,
    ...(deps.n3Namespace === undefined ? {} : { n3Namespace: deps.n3Namespace }),
  });
  const n3Port = native.n3Port();
  const live = new Set<number>();
  /** Timers of sessions still forwarding or waiting for forwarded packets, cleared on close. */
  const holds = new Map<number, NodeJS.Timeout>();
  let nextId = 1;
  let closed = false;
  let last: GnbUserPlaneCounters | undefined;

  const remove = (id: number): void => {
    clearTimeout(holds.get(id));
    holds.delete(id);
    if (!live.delete(id) || closed) return;
    native.removeSession(id);
  };
  /** A forwarding source's release: once its End Marker went on (counted), or at the hold's end. */
  const removeAfterEndMarker = (id: number, markersBefore: number, deadline: number): void => {
    const markers = closed ? undefined : native.sessionCounters(id)?.endMarkersReceived;
    if (markers === undefined || markers > markersBefore || Date.now() >= deadline) return remove(id);
    holds.set(
      id,
      setTimeout(() => removeAfterEndMarker(id, markersBefore, deadline), FORWARDING_POLL_MS),
    );
  };

  return {
    n3Address: deps.n3Address,
    n3Port,
    get tunnels() {
      return live.size;
    },
    async bringUp(session, tun) {
      if (closed) return failure('closed', 'the user plane is closed');
      const ueIpv6 =
        session.ueIpv6 ??
        (session.ueIpv6Prefix === undefined ? undefined : firstAddressOf(session.ueIpv6Prefix));
      if (session.ueIpv4 === undefined && ueIpv6 === undefined)
        return failure('invalid', 'a session needs an IPv4 address or an IPv6 prefix');
      if (
        (session.ueIpv4 !== undefined && !isIPv4(session.ueIpv4)) ||
        (session.ueIpv6Prefix !== undefined && ueIpv6 === undefined) ||
        !Number.isInteger(session.qfi) ||
        session.qfi < 0 ||
        session.qfi > 63
      )
        return failure('invalid', `cannot carry ${JSON.stringify(session)}`);
      const id = nextId;
      nextId = nextId === 0xffff_ffff ? 1 : nextId + 1;
      let added: { tunName: string } | { error: string };
      try {
        added = native.addSession(
          id,
          tun.tunName ?? defaultTunName(),
          session.downlinkTeid,
          session.upfAddress,
          2152,
          session.uplinkTeid,
          session.qfi,
        );
      } catch (error) {
        return failure('invalid', (error as Error).message);
      }
      if ('error' in added) return failure(errorOf(added.error), `${added.error} adding the session`);
      live.add(id);
      const configuration: UeTunConfiguration = {
        namespace: tun.namespace,
        ...(session.ueIpv4 === undefined ? {} : { ueIpv4: session.ueIpv4 }),
        ...(ueIpv6 === undefined ? {} : { ueIpv6 }),
        ...(tun.mtu === undefined ? {} : { mtu: tun.mtu }),
        ...(tun.routes === undefined ? {} : { routes: tun.routes }),
      };
      const problem = await configureUeTun(added.tunName, configuration);
      if (problem !== undefined) {
        remove(id);
        return failure('namespace', problem);
      }
      if (!live.has(id)) return failure('closed', 'the user plane was closed while the TUN was configured');
      // The downlink that came while the TUN was configured (a UPF flushing what it buffered while the
      // device was idle, TS 23.501 5.8.3.2) goes in now.
      native.setReady(id);
      /** End Markers counted when forwarding began; undefined while not forwarding. */
      let forwardingFrom: number | undefined;
      const tunnel: UeTunnel = {
        session,
        namespace: tun.namespace,
        tunName: added.tunName,
        ueIpv6,
        counters: () => (live.has(id) && !closed ? native.sessionCounters(id) : undefined),
        forwardTo(to) {
          if (!live.has(id) || closed) return 'closed';
          if (!Number.isInteger(to.teid) || to.teid < 1 || to.teid > 0xffff_ffff) return 'invalid';
          const markers = native.sessionCounters(id)?.endMarkersReceived ?? 0;
          let code: string | undefined;
          try {
            code = native.forward(id, to.address, 2152, to.teid);
          } catch {
            return 'invalid';
          }
          if (code !== undefined) return code === 'EAFNOSUPPORT' ? 'family-mismatch' : 'closed';
          forwardingFrom = markers;
          return undefined;
        },
        expectForwarded(teid) {
          if (!live.has(id) || closed) return 'closed';
          if (!Number.isInteger(teid) || teid < 1 || teid > 0xffff_ffff) return 'invalid';
          const code = native.expectForwarded(id, teid);
          if (code !== undefined) return code === 'EEXIST' ? 'in-use' : 'closed';
          const timer = setTimeout(() => {
            holds.delete(id);
            if (live.has(id) && !closed) native.endForwarded(id);
          }, FORWARDING_HOLD_MS);
          // The wait must not keep a process alive that has nothing else to do.
          timer.unref();
          holds.set(id, timer);
          return undefined;
        },
        release: () =>
          forwardingFrom === undefined || !live.has(id) || closed
            ? remove(id)
            : removeAfterEndMarker(id, forwardingFrom, Date.now() + FORWARDING_HOLD_MS),
        get released() {
          return !live.has(id);
        },
      };
      return { ok: true, value: tunnel };
    },
    counters: () => last ?? native.counters(),
    close() {
      if (closed) return;
      closed = true;
      for (const timer of holds.values()) clearTimeout(timer);
      holds.clear();
      live.clear();
      last = native.counters();
      native.close();
    },
  };
}
