import type { Logger } from 'pino';
import type { Timers } from '../../../clock.ts';
import type { UnavailableGUAMIList } from '../../ngap/generated/types.ts';
import type { Plmn } from '../../radio-id.ts';
import type { AmfIdentity } from '../context/amf-identity.ts';
import type { AmfSetMembership } from './amf-set-membership.ts';
import { backupOf, unavailableGuamiList } from './served-guamis.ts';

/** How often the drain looks for connected UEs between procedures, and whether any is left. */
export const DRAIN_SWEEP_MS = 200;

/** How long a drain waits for its last connected UE before the member leaves anyway (`amf_drain_timeout_seconds`). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 60_000;

/** Why a drain did not start. */
export type DrainRefusal =
  /** The process is no member of a set (stopped, or its lease was lost). */
  | 'not-a-member'
  | 'already-draining'
  /** No other member serves (on SQLite a process is a set of one): nobody would take its UEs over. */
  | 'no-backup';

/** How a drain ended: every UE-associated connection gone, or the timeout with `connected` left. */
export interface DrainOutcome {
  reason: 'empty' | 'timeout';
  connected: number;
}

interface MemberDrainDeps {
  membership: Pick<AmfSetMembership, 'drain' | 'members' | 'state'>;
  identity: AmfIdentity;
  plmn: () => Promise<Plmn>;
  /** AMF Status Indication to every connected radio; how many it went to. */
  radios: { statusIndication(unavailable: UnavailableGUAMIList): number };
  /** The AMF's UE side: the release sweep, the pending context writes. */
  ues: { drain(): number; written(): Promise<void> };
  timers: Timers;
  logger: Logger;
  timeoutMs: number;
}

/**
 * A member's planned removal from its AMF set (TS 23.501 5.21.2.2; docs/amf-set.md, "Draining"): its
 * row says `draining` (peers stop naming it as a backup and announce so by AMF Configuration Update), its
 * radios hear AMF Status Indication with its GUAMI and the backup, no new UE is taken, each connected UE
 * is released once between procedures, and once no UE-associated connection is left (or the timeout
 * passed) and every UE context write has ended, `done` resolves: the caller stops the process, whose
 * row then says `gone`.
 */
export function createMemberDrain(deps: MemberDrainDeps) {
  const { membership, identity, logger, timers } = deps;
  let finished: ((outcome: DrainOutcome) => void) | undefined;
  const done = new Promise<DrainOutcome>((resolve) => (finished = resolve));
  let told: (() => void) | undefined;
  const announced = new Promise<void>((resolve) => (told = resolve));
  let started = false;
  let cancelSweep: (() => void) | undefined;
  let cancelTimeout: (() => void) | undefined;
  let timedOut = false;

  function refusal(): DrainRefusal | undefined {
    if (started || membership.state() === 'draining') return 'already-draining';
    const members = membership.members();
    const self = members.find((m) => m.name === identity.name);
    if (self === undefined) return 'not-a-member';
    if (backupOf(self, members) === undefined) return 'no-backup';
    return undefined;
  }

  async function run(): Promise<void> {
    // No new UE from here on, before the radios could still send one.
    let connected = deps.ues.drain();
    await membership.drain();
    const unavailable = unavailableGuamiList(identity, membership.members(), await deps.plmn(), 'planned');
    const radios = deps.radios.statusIndication(unavailable);
    told?.();
    logger.info(
      { amf: identity.name, backup: unavailable[0]?.backupAMFName, radios, connected },
      `AMF set: ${identity.name} draining: AMF Status Indication sent to ${radios} radios, ${connected} UE connections left`,
    );
    const sweep = (): void => {
      connected = deps.ues.drain();
      if (connected > 0 && !timedOut) {
        cancelSweep = timers.after(DRAIN_SWEEP_MS, sweep);
        return;
      }
      cancelSweep = undefined;
      void finish(connected === 0 ? 'empty' : 'timeout', connected);
    };
    sweep();
  }

  async function finish(reason: DrainOutcome['reason'], connected: number): Promise<void> {
    cancelTimeout?.();
    // Idle UEs' contexts are taken over from the store: every write asked for must have ended.
    await deps.ues.written();
    if (reason === 'timeout')
      logger.warn(
        { amf: identity.name, connected },
        `AMF set: ${identity.name} drain timed out with ${connected} UE connections left; leaving`,
      );
    else logger.info({ amf: identity.name }, `AMF set: ${identity.name} drained: no UE connected`);
    finished?.({ reason, connected });
  }

  return {
    /** Starts the drain; the reason it cannot otherwise (nothing changes then). */
    start(): DrainRefusal | undefined {
      const refused = refusal();
      if (refused !== undefined) return refused;
      started = true;
      cancelTimeout = timers.after(deps.timeoutMs, () => (timedOut = true));
      run().catch((error: unknown) => {
        logger.error({ err: error }, 'AMF set: the drain failed; leaving');
        told?.();
        void finish('timeout', deps.ues.drain());
      });
      return undefined;
    },
    /** Whether `start` was called and succeeded. */
    started: (): boolean => started,
    /** Resolves once the set's row says `draining` and the radios were sent AMF Status Indication. */
    announced,
    /** Resolves once the drain has ended (after `start`). */
    done,
    /** Stops the sweep (the process stops for another reason). */
    stop(): void {
      cancelSweep?.();
      cancelSweep = undefined;
      cancelTimeout?.();
    },
  };
}

export type MemberDrain = ReturnType<typeof createMemberDrain>;
