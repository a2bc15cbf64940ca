// The SMF's sessions (docs/sessions.md): each session's state as a discriminated union with one checked
// transition function, and the table that finds a session by UE and PDU session id or by UPF session id.
import type { RetransmissionTimer } from '../common/nas-timer.ts';
import type { SNssai } from '../nas/index.ts';
import type { AuthorisedSession } from '../ports/subscription-data.ts';
import type { DownlinkTunnel } from '../upf/ports/session-control.ts';
import type { DefaultQosFlow, SessionAmbrBps } from './n2-transfers.ts';
import type { IpType } from './session-authorisation.ts';
import type { SessionResources } from './session-resources.ts';

/**
 * A PDU session's state in the SMF (TS 24.501 6.1.3.3 on the network side, with the user plane's):
 * - `setting-up`: Accept sent in PDU Session Resource Setup Request, or the user plane asked back in
 *   Initial Context Setup Request; the gNB's tunnel not known yet;
 * - `active`: user plane up, downlink through the gNB's tunnel;
 * - `inactive`: the UE is CM-IDLE: the UPF buffers a few downlink packets (docs/upf.md "Downlink
 *   buffering"). `downlinkData`: the UPF saw downlink packets and the UE is being paged (TS 23.502
 *   4.2.3.3);
 * - `releasing`: Release Command sent, every resource already freed; T3592 runs until Release
 *   Complete (TS 24.501 6.3.3.2).
 * A modification in progress (T3591) is not a state of its own: it runs beside any state but
 * `releasing`, the user plane being up or not (6.3.2, 6.4.2).
 */
export type SessionState =
  | { kind: 'setting-up' }
  | { kind: 'active'; downlink: DownlinkTunnel }
  | { kind: 'inactive'; downlinkData: boolean }
  | { kind: 'releasing'; t3592: RetransmissionTimer | undefined };

export type SessionStateKind = SessionState['kind'];

/**
 * The states each state may go to. `inactive` -> `active`: a setup response for a session whose user
 * plane was not asked back is taken (the gNB holds the tunnel). `releasing` is the last: the session
 * leaves the table from there.
 */
const ALLOWED: { readonly [from in SessionStateKind]: readonly SessionStateKind[] } = {
  'setting-up': ['active', 'inactive', 'releasing'],
  active: ['active', 'inactive', 'releasing'],
  inactive: ['inactive', 'setting-up', 'active', 'releasing'],
  releasing: [],
};

export function canTransition(from: SessionStateKind, to: SessionStateKind): boolean {
  return ALLOWED[from].includes(to);
}

/** Moves `session` to `to`; an illegal transition is the SMF's bug and throws. */
export function transition(session: { state: SessionState }, to: SessionState): void {
  if (!canTransition(session.state.kind, to.kind))
    throw new Error(`SMF: illegal session transition ${session.state.kind} -> ${to.kind}`);
  session.state = to;
}

/** True while the radio holds (or is setting up) the session's user plane. */
export const userPlaneUp = (
  state: SessionState,
): state is Extract<SessionState, { kind: 'active' | 'setting-up' }> =>
  state.kind === 'active' || state.kind === 'setting-up';

export interface SmSession {
  readonly supi: string;
  readonly pduSessionId: number;
  /** Changed through `transition` only. */
  state: SessionState;
  readonly dnn: string;
  readonly sNssai: SNssai;
  readonly ipType: IpType;
  /** The pools the addresses came from: a change of either releases the session (network.md 6). */
  readonly pools: { ipv4: string | undefined; ipv6: string | undefined };
  /** Addresses, uplink TEID and the UPF's session: released once, whatever ends the session. */
  readonly resources: SessionResources;
  policy: AuthorisedSession;
  ambr: SessionAmbrBps;
  flow: DefaultQosFlow;
  /** A Modification Command waiting for its Complete (TS 24.501 6.3.2.2, 6.4.2.3): T3591 runs. */
  t3591: RetransmissionTimer | undefined;
}

const key = (supi: string, pduSessionId: number): string => `${supi}/${pduSessionId}`;

/** The sessions by (SUPI, PDU session id), by UE, and by UPF session id (Downlink Data Notification). */
export class SessionTable {
  readonly #sessions = new Map<string, SmSession>();
  readonly #byUe = new Map<string, Set<SmSession>>();
  readonly #byUpfSession = new Map<number, SmSession>();

  get size(): number {
    return this.#sessions.size;
  }

  get(supi: string, pduSessionId: number): SmSession | undefined {
    return this.#sessions.get(key(supi, pduSessionId));
  }

  has(supi: string, pduSessionId: number): boolean {
    return this.#sessions.has(key(supi, pduSessionId));
  }

  byUpfSession(upfSessionId: number): SmSession | undefined {
    return this.#byUpfSession.get(upfSessionId);
  }

  /** The UE's sessions, as a copy: callers release while they iterate. */
  ofUe(supi: string): SmSession[] {
    return [...(this.#byUe.get(supi) ?? [])];
  }

  hasUe(supi: string): boolean {
    return this.#byUe.has(supi);
  }

  ues(): string[] {
    return [...this.#byUe.keys()];
  }

  all(): SmSession[] {
    return [...this.#sessions.values()];
  }

  add(s: SmSession): void {
    this.#sessions.set(key(s.supi, s.pduSessionId), s);
    this.#byUpfSession.set(s.resources.upfSessionId, s);
    let set = this.#byUe.get(s.supi);
    if (set === undefined) this.#byUe.set(s.supi, (set = new Set()));
    set.add(s);
  }

  /** Removes `s`, leaving alone a newer session under the same ids. */
  remove(s: SmSession): void {
    if (this.#sessions.get(key(s.supi, s.pduSessionId)) === s)
      this.#sessions.delete(key(s.supi, s.pduSessionId));
    const upfSessionId = s.resources.upfSessionId;
    if (this.#byUpfSession.get(upfSessionId) === s) this.#byUpfSession.delete(upfSessionId);
    const set = this.#byUe.get(s.supi);
    set?.delete(s);
    if (set?.size === 0) this.#byUe.delete(s.supi);
  }
}
