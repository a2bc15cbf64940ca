import type { Logger } from 'pino';
import type { AmfSetMember } from '../../ports/amf-set-members.ts';
import type { AmfSetMembership } from './amf-set-membership.ts';
import { backupOf } from './served-guamis.ts';

/**
 * Watches this member's view of its set for members whose lease ran out (or that left) and hands each
 * whose backup AMF this member is (`backupOf`, the rule the radios hear in ServedGUAMIItem) to `adopt`,
 * one member at a time (TS 23.501 5.21.2.3: the backup takes over the failed GUAMI's devices). Every
 * member computes the backup from the same rows, so one member adopts a dead member's UEs; should two
 * views briefly differ, each UE's compare-and-set on its epoch still gives it to one. A member seen
 * gone while this one is not a member itself (not started, lost, or cut from the database) is passed
 * over: its UEs wait in the store for their own takeover. Returns the function that stops watching and
 * `settled`, which resolves once the adoptions started so far have ended.
 */
export function watchDeadMembers(deps: {
  membership: Pick<AmfSetMembership, 'members' | 'subscribe'>;
  /** This member's AMF Name. */
  self: string;
  adopt: (owner: string) => Promise<unknown>;
  logger: Logger;
}): { stop: () => void; settled: () => Promise<void> } {
  let previous: readonly AmfSetMember[] = deps.membership.members();
  let running: Promise<void> = Promise.resolve();

  const unsubscribe = deps.membership.subscribe(() => {
    const current = deps.membership.members();
    const was = previous;
    previous = current;
    if (!current.some((m) => m.name === deps.self)) return;
    for (const dead of was) {
      if (dead.name === deps.self || current.some((m) => m.name === dead.name)) continue;
      if (backupOf(dead, current)?.name !== deps.self) continue;
      deps.logger.warn(
        { amf: dead.name, backup: deps.self },
        `AMF set: ${dead.name} is gone; ${deps.self}, the backup AMF of its GUAMI, adopts its UEs`,
      );
      running = running.then(() =>
        deps.adopt(dead.name).then(
          () => undefined,
          (error: unknown) =>
            deps.logger.error({ err: error, amf: dead.name }, 'AMF set: adopting a member’s UEs failed'),
        ),
      );
    }
  });

  return { stop: unsubscribe, settled: () => running };
}
