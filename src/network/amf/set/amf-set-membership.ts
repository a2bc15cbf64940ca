import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock, Timers } from '../../../clock.ts';
import type { AmfSetMember, AmfSetMembersStore, AmfSetMemberState } from '../../ports/amf-set-members.ts';
import type { Plmn } from '../../radio-id.ts';
import type { Radio } from '../../radio-registry.ts';
import type { AmfIdentity } from '../context/amf-identity.ts';
import { transition, type MembershipState, type MembershipStatus } from './membership-state.ts';

/** How often a member writes its row, and how long a row keeps it a member without another write. */
export interface AmfSetTiming {
  heartbeatMs: number;
  /** Longer than a heartbeat: a member is gone for its peers after missing several in a row. */
  leaseMs: number;
}

/** Three heartbeats per lease: a member survives two lost writes and is gone within 15 s of its death. */
export const DEFAULT_AMF_SET_TIMING: AmfSetTiming = { heartbeatMs: 5_000, leaseMs: 15_000 };

/** The state a row stands for at `now`: gone once its lease has expired, whatever it says. */
export function memberState(member: AmfSetMember, now: number): AmfSetMemberState {
  return member.leaseExpiresAt > now ? member.state : 'gone';
}

const sameSet = (a: AmfSetMember, b: AmfSetMember): boolean =>
  a.regionId === b.regionId && a.setId === b.setId;

/**
 * The live member of `self`'s set that holds its AMF Pointer under another name, if any: two members
 * with one pointer would hand out one GUAMI, and a 5G-GUTI names its AMF by it (TS 23.003 2.10.1).
 */
function pointerHolder(
  self: AmfSetMember,
  rows: readonly AmfSetMember[],
  now: number,
): AmfSetMember | undefined {
  return rows.find(
    (row) =>
      row.name !== self.name &&
      sameSet(row, self) &&
      row.pointer === self.pointer &&
      memberState(row, now) !== 'gone',
  );
}

/**
 * Of `rows` (one set's, `self` excluded), the gone members whose AMF Pointer none of `live` holds, one per
 * pointer (the row whose lease ended last), by pointer. A member that died or left keeps its GUAMI in
 * the set: its UEs still hold 5G-GUTIs naming it (TS 23.003 2.10.1), and the radios must route them to
 * the member that took them over (TS 23.501 5.21.2.3) until a member holds that pointer again.
 */
function goneGuamis(
  rows: readonly AmfSetMember[],
  live: readonly AmfSetMember[],
  now: number,
): AmfSetMember[] {
  const byPointer = new Map<number, AmfSetMember>();
  for (const row of rows) {
    if (memberState(row, now) !== 'gone' || live.some((m) => m.pointer === row.pointer)) continue;
    const seen = byPointer.get(row.pointer);
    if (seen === undefined || row.leaseExpiresAt > seen.leaseExpiresAt)
      byPointer.set(row.pointer, { ...row, state: 'gone' });
  }
  return [...byPointer.values()].sort((a, b) => a.pointer - b.pointer);
}

/** A later start under `self`'s name: it owns the row now, and this process is no member any more. */
function replacedBy(self: AmfSetMember, rows: readonly AmfSetMember[]): AmfSetMember | undefined {
  return rows.find((row) => row.name === self.name && row.instance !== self.instance);
}

/**
 * The live row of `self`'s AMF Name that another run of it wrote: that run may still serve under the
 * name, its UEs' records and its sessions' address leases named by it (docs/amf-set.md, "One AMF Name,
 * one process").
 */
function nameHolder(
  self: AmfSetMember,
  rows: readonly AmfSetMember[],
  now: number,
): AmfSetMember | undefined {
  return rows.find(
    (row) => row.name === self.name && row.instance !== self.instance && memberState(row, now) !== 'gone',
  );
}

/** Refused start: another process under this AMF Name wrote its heartbeat while this one waited. */
export class AmfNameTaken extends Error {
  constructor(readonly holder: AmfSetMember) {
    super(
      `AMF name ${holder.name} is in use: another process wrote its AMF set heartbeat at ` +
        `${new Date(holder.heartbeatAt).toISOString()} (lease until ${new Date(holder.leaseExpiresAt).toISOString()}): ` +
        `stop that process first, or give this one another amf_name and amf_pointer`,
    );
    this.name = 'AmfNameTaken';
  }
}

/** Refused start: another live member holds this member's AMF Pointer in its set. */
export class AmfPointerTaken extends Error {
  constructor(readonly holder: AmfSetMember) {
    super(
      `AMF pointer ${holder.pointer} of AMF set ${holder.regionId}/${holder.setId} is held by the live member ` +
        `${holder.name} (lease until ${new Date(holder.leaseExpiresAt).toISOString()}): give this member another amf_pointer`,
    );
    this.name = 'AmfPointerTaken';
  }
}

interface AmfSetMembershipDeps {
  store: AmfSetMembersStore;
  identity: AmfIdentity;
  n2Addresses: readonly string[];
  /** The operator's PLMN as it is now (the MCC and MNC of the GUAMI). */
  plmn: () => Promise<Plmn>;
  /** The radios connected to this member now, written with each heartbeat for the set's API; none without. */
  radios?: () => readonly Radio[];
  clock: Clock;
  timers: Timers;
  logger: Logger;
  timing: AmfSetTiming;
}

/**
 * This process's membership of its AMF set (TS 23.501 5.21.2; docs/decisions.md, 15): joins at start
 * (refused while another live member holds its AMF Pointer), writes its row with a new lease every
 * heartbeat and reads its peers' as it does, and leaves (`gone`) at stop. Listeners hear when the live
 * members change (a peer came, went, or changed state or capacity). A heartbeat the database refuses
 * or misses is logged. Once its own lease has run out without a write it is `cut-off`: it serves nothing
 * (its peers consider it gone) and joins again at the first heartbeat written with its pointer free
 * (membership-state.ts). Once another start took its row, or another member its pointer, it is no
 * longer a member (`lost`).
 */
export function createAmfSetMembership(deps: AmfSetMembershipDeps) {
  const { store, identity, clock, timers, logger, timing } = deps;
  const instance = randomUUID();
  let state: MembershipState = { kind: 'stopped' };
  /** Cuts the member off when its lease runs out with no heartbeat written (the database lost). */
  let cancelLease: (() => void) | undefined;
  let live: AmfSetMember[] = [];
  /** Its set's members gone from it whose AMF Pointer no live member holds (`gone`). */
  let gone: AmfSetMember[] = [];
  let shape = '';
  let cancelHeartbeat: (() => void) | undefined;
  let beating: Promise<void> = Promise.resolve();
  /** A heartbeat asked for by `radiosChanged` and not yet begun. */
  let radiosPending = false;
  /** A start under way, and `stop` asked of it: its wait for another run's lease ends at once. */
  let starting: Promise<void> | undefined;
  let stopAsked = false;
  let endWait: (() => void) | undefined;
  /** What its row says while it is a member: `draining` from `drain` on (TS 23.501 5.21.2.2). */
  let serving: 'serving' | 'draining' = 'serving';
  const listeners = new Set<() => void>();

  async function row(state: AmfSetMemberState): Promise<AmfSetMember> {
    const plmn = await deps.plmn();
    const now = clock.now();
    return {
      name: identity.name,
      instance,
      mcc: plmn.mcc,
      mnc: plmn.mnc,
      regionId: identity.regionId,
      setId: identity.setId,
      pointer: identity.pointer,
      relativeCapacity: identity.relativeCapacity,
      n2Addresses: [...deps.n2Addresses],
      state,
      radios: state === 'gone' ? [] : [...(deps.radios?.() ?? [])],
      heartbeatAt: now,
      leaseExpiresAt: state === 'gone' ? now : now + timing.leaseMs,
    };
  }

  /**
   * Reads the set's rows; listeners hear of it when its live members, or the gone members whose GUAMIs
   * the set still serves, differ from the last read.
   */
  async function read(self: AmfSetMember): Promise<void> {
    const now = clock.now();
    const rows = (await store.list()).filter((r) => sameSet(r, self) && r.name !== self.name);
    const peers = rows.filter((r) => memberState(r, now) !== 'gone');
    see(peers, self, goneGuamis(rows, [self, ...peers], now));
  }

  function see(peers: AmfSetMember[], self: AmfSetMember | undefined, left: AmfSetMember[] = []): void {
    live = self === undefined ? [] : [self, ...peers].sort((a, b) => a.pointer - b.pointer);
    gone = self === undefined ? [] : left;
    const next = JSON.stringify([
      live.map((m) => [m.name, m.pointer, m.state, m.relativeCapacity]),
      gone.map((m) => [m.name, m.pointer, m.leaseExpiresAt]),
    ]);
    if (next === shape) return;
    shape = next;
    for (const listener of listeners) listener();
  }

  const move = (to: MembershipState): void => {
    state = transition(state, to);
  };
  const running = (): boolean => state.kind === 'member' || state.kind === 'cut-off';

  /**
   * Its own lease ran out without a heartbeat written (the database did not answer in time): its peers
   * now count it gone and adopt its UEs, so it stops serving (listeners hear its members go empty) rather
   * than diverge from them (docs/decisions.md, 15). Its heartbeats go on: the first written with its
   * pointer still free makes it a member again.
   */
  function cutOff(): void {
    if (state.kind !== 'member') return;
    move({ kind: 'cut-off', since: clock.now() });
    logger.error(
      { amf: identity.name },
      `AMF set: ${identity.name} wrote no heartbeat before its lease ran out: it stops serving until the database answers`,
    );
    see([], undefined);
  }

  /** A heartbeat written with a lease until `until`: a member until then, unless the next one is written. */
  function leased(until: number): void {
    cancelLease?.();
    move({ kind: 'member', leaseExpiresAt: until });
    cancelLease = timers.after(Math.max(0, until - clock.now()), cutOff);
  }

  function lose(why: string, holder?: AmfSetMember): void {
    cancelLease?.();
    cancelLease = undefined;
    move({ kind: 'lost', why });
    logger.error(
      { amf: identity.name, holder: holder?.name },
      `AMF set: ${identity.name} is no longer a member of its set: ${why}`,
    );
    see([], undefined);
  }

  async function heartbeat(): Promise<void> {
    if (!running()) return;
    try {
      const self = await row(serving);
      const blocking = await store.write(
        self,
        (rows) => replacedBy(self, rows) ?? pointerHolder(self, rows, self.heartbeatAt),
      );
      if (!running()) return;
      if (blocking !== undefined) {
        const why =
          blocking.name === self.name
            ? 'another process started under its AMF name'
            : `its lease expired and ${blocking.name} took its AMF pointer`;
        return lose(why, blocking);
      }
      // Written after the lease it carries ran out (the database answered late): the next one counts.
      if (self.leaseExpiresAt <= clock.now()) return;
      // Begun before its lease ran out, and answered only once the path came back: its lease ends before
      // the next heartbeat can renew it, so serving on it would stop again within a heartbeat (a second
      // Status Indication to its radios). A heartbeat begun since it stopped serving makes it a member.
      if (state.kind === 'cut-off' && self.heartbeatAt < state.since) return;
      const rejoined = state.kind === 'cut-off';
      leased(self.leaseExpiresAt);
      if (rejoined)
        logger.warn(
          { amf: identity.name },
          `AMF set: ${identity.name} wrote its heartbeat again with its pointer free: it serves again`,
        );
      await read(self);
    } catch (error) {
      if (!running()) return;
      logger.warn({ err: error }, 'AMF set: heartbeat not written; trying again at the next');
    }
  }

  /** Resolves after `ms`, or at once when `stop` is asked meanwhile. */
  function waitUnlessStopped(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const end = () => {
        endWait = undefined;
        cancel();
        resolve();
      };
      const cancel = timers.after(ms, end);
      endWait = end;
    });
  }

  async function join(): Promise<void> {
    let self = await row('serving');
    let waited: AmfSetMember | undefined;
    for (;;) {
      if (stopAsked) return;
      const now = self.heartbeatAt;
      const blocking = await store.write(
        self,
        (rows) => pointerHolder(self, rows, now) ?? nameHolder(self, rows, now),
      );
      if (blocking === undefined) break;
      if (blocking.name !== self.name) throw new AmfPointerTaken(blocking);
      if (waited !== undefined && blocking.heartbeatAt !== waited.heartbeatAt)
        throw new AmfNameTaken(blocking);
      if (stopAsked) return;
      if (waited === undefined)
        logger.warn(
          { amf: identity.name, leaseExpiresAt: new Date(blocking.leaseExpiresAt).toISOString() },
          `AMF set: the row of ${identity.name} is live under another run: waiting for its lease to run out ` +
            '(a run that crashed), or refusing to start if that run writes its heartbeat (one still running)',
        );
      waited = blocking;
      await waitUnlessStopped(Math.max(1, Math.min(timing.heartbeatMs, blocking.leaseExpiresAt - now)));
      if (stopAsked) return;
      self = await row('serving');
    }
    // Written: it holds the row, so a `stop` asked meanwhile leaves it (`gone`) once this returns.
    leased(self.leaseExpiresAt);
    await read(self);
    logger.info(
      { amf: identity.name, members: live.map((m) => m.name) },
      `AMF set ${identity.regionId}/${identity.setId}: ${identity.name} joined with pointer ${identity.pointer} (${live.length} live members)`,
    );
    schedule();
  }

  function schedule(): void {
    cancelHeartbeat = timers.after(timing.heartbeatMs, () => {
      // After any heartbeat under way (one `radiosChanged` asked for): one write of its row at a time.
      beating = beating.then(heartbeat).finally(() => {
        if (running()) schedule();
      });
    });
  }

  return {
    /**
     * Joins the set: throws `AmfPointerTaken` when a live member holds this member's pointer. While its
     * name's row is live under another run (a crashed run's lease, or a second process started by
     * mistake), it waits for that lease to run out, reading the row every heartbeat: a heartbeat written
     * meanwhile means that run is alive, and the start is refused (`AmfNameTaken`) before it took anything.
     * A `stop` during that wait ends it: the start resolves with the membership `stopped`, having taken
     * nothing (a SIGTERM does not wait up to a lease, nor the start go on against a closing database).
     */
    async start(): Promise<void> {
      stopAsked = false;
      const run = join();
      starting = run.catch(() => undefined);
      try {
        await run;
      } finally {
        starting = undefined;
      }
    },

    /** Leaves the set: its row says `gone` with its lease ended, so peers drop it at their next read. */
    async stop(): Promise<void> {
      stopAsked = true;
      endWait?.();
      await starting;
      cancelHeartbeat?.();
      cancelHeartbeat = undefined;
      await beating;
      cancelLease?.();
      cancelLease = undefined;
      const was = state.kind;
      if (was !== 'stopped') move({ kind: 'stopped' });
      live = [];
      gone = [];
      shape = '';
      if (was !== 'member') return;
      try {
        const self = await row('gone');
        await store.write(self, (rows) => replacedBy(self, rows));
      } catch (error) {
        logger.warn(
          { err: error },
          'AMF set: leaving not written; peers see this member gone at its lease end',
        );
      }
    },

    /**
     * From now on its row says `draining` (written at once, then at every heartbeat): its peers stop
     * naming it as a backup. False when it is no member (stopped or lost).
     */
    async drain(): Promise<boolean> {
      if (state.kind !== 'member') return false;
      serving = 'draining';
      await beating;
      beating = heartbeat();
      await beating;
      return state.kind === 'member';
    },

    /**
     * Its radios changed (one connected or disconnected): its row is written now rather than at the next
     * heartbeat, so every member's API lists them at once; the changes of one moment share one write.
     */
    radiosChanged(): void {
      if (state.kind !== 'member' || radiosPending) return;
      radiosPending = true;
      beating = beating.then(() => {
        radiosPending = false;
        return heartbeat();
      });
    },

    /** `draining` once `drain` was called; `serving` before. */
    state: (): 'serving' | 'draining' => serving,

    /** Where it stands: a `member` serves; `cut-off` (no heartbeat written in its lease) serves nothing. */
    status: (): MembershipStatus => state.kind,

    /** The live members as last read, this one included, by AMF Pointer; empty when not a member. */
    members: (): readonly AmfSetMember[] => live,

    /**
     * The members of its set that are gone (lease ended, or left) and whose AMF Pointer no live member
     * holds, by pointer, as last read; one per pointer (the latest to hold it); empty when not a member.
     * Their GUAMIs stay the set's: the backup that adopted their UEs serves them (served-guamis.ts).
     */
    gone: (): readonly AmfSetMember[] => gone,

    /** Runs `listener` when the live or gone members change; returns the function that stops it. */
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** Resolves once the heartbeat under way, if any, has been written and its peers read. */
    settled: (): Promise<void> => beating,
  };
}

export type AmfSetMembership = ReturnType<typeof createAmfSetMembership>;
