import type {
  GnbUserPlane,
  SessionUserPlane,
  UeTunnel,
  UeTunOptions,
  UserPlaneError,
} from './gnb-user-plane.ts';

/**
 * Carries the PDU sessions a simulated gNB set up on N2 (its PDU Session Resource events) in its user
 * plane: a session's tunnels `up` bring a TUN device up in the UE's namespace, `down` (released by the
 * network, or the UE's connection released: idle or lost) remove it, and `modified` moves it when the
 * tunnel or the QoS flow changed. The gNB knows the tunnels but not the UE's address, which the UE
 * learnt from its PDU Session Establishment Accept: `addresses` supplies it.
 */

/** One end of a GTP-U tunnel (TS 38.413 9.3.2.2). */
interface TunnelEnd {
  readonly address: string;
  readonly teid: number;
}

/** What the gNB's session events carry (src/simulator/ue/gnb-sessions.ts). */
export interface TunnelledSession {
  readonly pduSessionId: number;
  /** The QoS flows set up, the default one first. */
  readonly qfis: readonly number[];
  /** The UPF's N3 address and TEID. */
  readonly uplink: TunnelEnd;
  /** This gNB's N3 address and TEID. */
  readonly downlink: TunnelEnd;
}

export type TunnelEvent<S extends TunnelledSession> =
  { type: 'up'; session: S } | { type: 'modified'; session: S } | { type: 'down'; session: S; why: string };

interface SessionTunnelsOptions<S extends TunnelledSession> {
  /** The gNB's session events (`GnbSessions.on`); returns the unsubscribe function. */
  events: { on(listener: (event: TunnelEvent<S>) => void): () => void };
  userPlane: GnbUserPlane;
  /** Which UE the session is (sessions of one UE share it); the key of the tunnels. */
  ueOf(session: S): unknown;
  /** The UE's address(es) in the session; undefined when the UE has none (yet): no TUN then. */
  addresses(session: S): { ueIpv4?: string; ueIpv6Prefix?: string } | undefined;
  /** Where the UE's TUN goes (its namespace; name, MTU, routes). */
  tun(session: S): UeTunOptions;
  /** A tunnel that could not be brought up (the session stays up on N2 without a user plane). */
  failed?(session: S, error: UserPlaneError | 'no-address', detail: string): void;
  /** A TUN device up, for the driver (e.g. the CLI's lines). */
  carried?(session: S, tunnel: UeTunnel): void;
}

export interface SessionTunnels {
  /** The tunnel of a UE's session now, once it is up. */
  tunnel(ue: unknown, pduSessionId: number): UeTunnel | undefined;
  /** Resolves when every bring-up started so far has settled. */
  settled(): Promise<void>;
  /** Stops listening and removes every tunnel. */
  stop(): void;
}

interface Entry {
  /** The session as the last event gave it. */
  key: string;
  /** Settles when its bring-up did; the tunnel if it came up. */
  pending: Promise<UeTunnel | undefined>;
  tunnel: UeTunnel | undefined;
  /** Released while it was coming up. */
  gone: boolean;
}

const signature = (s: TunnelledSession): string =>
  `${s.uplink.address}/${s.uplink.teid}/${s.downlink.teid}/${s.qfis[0] ?? 1}`;

export function carrySessions<S extends TunnelledSession>(options: SessionTunnelsOptions<S>): SessionTunnels {
  const byUe = new Map<unknown, Map<number, Entry>>();
  const pendings = new Set<Promise<unknown>>();

  const remove = (ue: unknown, pduSessionId: number): void => {
    const sessions = byUe.get(ue);
    const entry = sessions?.get(pduSessionId);
    if (sessions === undefined || entry === undefined) return;
    sessions.delete(pduSessionId);
    if (sessions.size === 0) byUe.delete(ue);
    entry.gone = true;
    entry.tunnel?.release();
  };

  const bringUp = (session: S): void => {
    const ue = options.ueOf(session);
    const addresses = options.addresses(session);
    if (addresses === undefined || (addresses.ueIpv4 === undefined && addresses.ueIpv6Prefix === undefined)) {
      options.failed?.(session, 'no-address', `the UE has no address in PDU session ${session.pduSessionId}`);
      return;
    }
    const parameters: SessionUserPlane = {
      pduSessionId: session.pduSessionId,
      ...addresses,
      qfi: session.qfis[0] ?? 1,
      upfAddress: session.uplink.address,
      uplinkTeid: session.uplink.teid,
      downlinkTeid: session.downlink.teid,
    };
    const entry: Entry = {
      key: signature(session),
      pending: Promise.resolve(undefined),
      tunnel: undefined,
      gone: false,
    };
    entry.pending = options.userPlane.bringUp(parameters, options.tun(session)).then((result) => {
      if (!result.ok) {
        if (!entry.gone) remove(ue, session.pduSessionId);
        options.failed?.(session, result.error, result.detail);
        return undefined;
      }
      // Released while it came up: it goes at once.
      if (entry.gone) {
        result.value.release();
        return undefined;
      }
      entry.tunnel = result.value;
      options.carried?.(session, result.value);
      return result.value;
    });
    pendings.add(entry.pending);
    void entry.pending.finally(() => pendings.delete(entry.pending));
    let sessions = byUe.get(ue);
    if (sessions === undefined) byUe.set(ue, (sessions = new Map<number, Entry>()));
    sessions.set(session.pduSessionId, entry);
  };

  const unsubscribe = options.events.on((event) => {
    const ue = options.ueOf(event.session);
    const id = event.session.pduSessionId;
    switch (event.type) {
      case 'up':
        remove(ue, id);
        bringUp(event.session);
        return;
      case 'modified':
        // The native tunnel cannot change in place: a new UPF end, TEID or QFI means a new tunnel.
        if (byUe.get(ue)?.get(id)?.key !== signature(event.session)) {
          remove(ue, id);
          bringUp(event.session);
        }
        return;
      case 'down':
        remove(ue, id);
        return;
    }
  });

  return {
    tunnel: (ue, pduSessionId) => byUe.get(ue)?.get(pduSessionId)?.tunnel,
    async settled() {
      while (pendings.size > 0) await Promise.all([...pendings]);
    },
    stop() {
      unsubscribe();
      for (const [ue, sessions] of [...byUe]) for (const id of [...sessions.keys()]) remove(ue, id);
    },
  };
}
