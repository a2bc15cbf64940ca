import type { Clock } from '../clock.ts';
import { memberState } from '../network/amf/set/amf-set-membership.ts';
import type { DrainRefusal, MemberDrain } from '../network/amf/set/member-drain.ts';
import type { AmfSetMember, AmfSetMemberState } from '../network/ports/amf-set-members.ts';
import type { Radio } from '../network/radio-registry.ts';
import type { Db } from '../storage/database.ts';
import { createAmfSetMembersStore } from '../storage/network-ports/amf-set-members.ts';
import type { CoreWiring } from './wiring.ts';

const STATES: readonly AmfSetMemberState[] = ['serving', 'draining', 'gone'];

/** How old the member rows the API's views of the set read may be (`recentMembers`). */
const RECENT_MS = 1_000;

/**
 * The AMF set as the core holds it (docs/decisions.md, 15): the membership rows' store the AMF's
 * membership writes through (n2.wiring.ts), the members and their radios as every process reads them
 * (the API), which member this process runs, and the `pmn_amf_set_members{state}` gauge.
 */
export function wireAmfSet(wiring: CoreWiring, deps: { db: Db; clock: Clock }) {
  const store = createAmfSetMembersStore({ db: deps.db });
  let self: string | undefined;
  let drain: MemberDrain | undefined;
  const runningListeners: ((name: string) => void)[] = [];

  /** Every member row with the state it stands for now (gone once its lease has expired). */
  async function members(): Promise<AmfSetMember[]> {
    const now = deps.clock.now();
    return (await store.list()).map((member) => ({ ...member, state: memberState(member, now) }));
  }

  /**
   * The members as read at most RECENT_MS ago, for what every page of subscribers asks first (which
   * members are live peers, whose views it reads): a page then costs no read of the member rows, and a
   * member alone in its set reads no peer's rows at all. A second is far inside a lease.
   */
  let recent: { at: number; members: Promise<AmfSetMember[]> } | undefined;
  function recentMembers(): Promise<AmfSetMember[]> {
    const now = deps.clock.now();
    if (recent === undefined || now - recent.at >= RECENT_MS) {
      const read = members();
      recent = { at: now, members: read };
      // A failed read is not kept: the next caller reads again.
      read.catch(() => {
        if (recent?.members === read) recent = undefined;
      });
    }
    return recent.members;
  }

  /** Of `listed`, the live members other than this process: the ones whose rows and radios the API reads. */
  const livePeersOf = (listed: readonly AmfSetMember[]): AmfSetMember[] =>
    listed.filter((member) => member.state !== 'gone' && member.name !== self);

  wiring.metrics.gauge<'state'>({
    name: 'pmn_amf_set_members',
    help: 'Members of the AMF set by state, as the database holds them (gone: lease expired or left)',
    labelNames: ['state'],
    async collect() {
      const listed = await members();
      return STATES.map((state) => ({
        labels: { state },
        value: listed.filter((member) => member.state === state).length,
      }));
    },
  });

  const cutOffs = wiring.metrics.counter({
    name: 'pmn_amf_set_cut_offs_total',
    help: 'Times this member stopped serving: no heartbeat written within its lease (the database lost), or its row or pointer taken',
  });

  return {
    store,
    members,
    /** Counts a stop of this member for want of the database (set/database-cut.ts). */
    cutOff: (): void => cutOffs.inc({}),
    recentMembers,
    /** The other live members as read at most RECENT_MS ago (`recentMembers`). */
    recentPeers: async (): Promise<AmfSetMember[]> => livePeersOf(await recentMembers()),
    /** The radios of the other live members, as each wrote them at its last heartbeat. */
    async peerRadios(): Promise<{ amf: string; radios: Radio[] }[]> {
      return livePeersOf(await members()).map((member) => ({ amf: member.name, radios: member.radios }));
    },
    /** The AMF Name of the member this process runs; undefined while N2 does not run. */
    self: (): string | undefined => self,
    /** Said by the N2 side as its membership starts (the name) and stops (undefined). */
    running(name: string | undefined): void {
      self = name;
      if (name !== undefined) for (const listener of runningListeners) listener(name);
    },
    /** Said by the N2 side as its membership starts (its drain) and stops (undefined). */
    drainable(next: MemberDrain | undefined): void {
      drain = next;
    },
    /**
     * Starts this member's planned removal (POST /api/v1/amf-set/drain, SIGUSR2), resolving once its row
     * says `draining` and its radios were told; why not otherwise (`not-a-member` while N2 does not run).
     */
    async startDrain(): Promise<DrainRefusal | undefined> {
      const running = drain;
      if (running === undefined) return 'not-a-member';
      const refused = running.start();
      if (refused === undefined) await running.announced;
      return refused;
    },
    /** Told the member's name each time this process starts as one. */
    onRunning(listener: (name: string) => void): void {
      runningListeners.push(listener);
    },
  };
}
