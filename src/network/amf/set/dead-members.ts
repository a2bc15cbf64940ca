import type { Logger } from 'pino';
import type { AmfSetMembership } from './amf-set-membership.ts';
import { backupOf } from './served-guamis.ts';

/**
 * Watches this member's view of its set for gone members (their lease ran out, or they left) whose
 * GUAMI the set still serves (`AmfSetMembership.gone`) and hands each whose backup AMF this member is
 * (`backupOf` among the live members, the rule the radios hear in ServedGUAMIItem) to `adopt`, one at a
 * time (TS 23.501 5.21.2.3: the backup takes over the failed GUAMI's devices). That covers a member that
 * dies while this one serves, one that died before this one joined (or while it was cut off) whose
 * records no live member adopted, and one whose backup died too: the next live member by AMF Pointer
 * is its backup then. Each gone member (by name and lease end) is handed over once; adopting a member
 * whose UEs another member already took finds no record of it. Every member computes the backup from
 * the same rows, so one member adopts a gone member's UEs; should two views briefly differ, each UE's
 * compare-and-set on its epoch still gives it to one. Nothing is adopted while this one is no member
 * itself (not started, lost, or cut off). Returns the function that stops watching and `settled`, which
 * resolves once the adoptions started so far have ended.
 */
export function watchDeadMembers(deps: {
  membership: Pick<AmfSetMembership, 'members' | 'gone' | 'subscribe'>;
  /** This member's AMF Name. */
  self: string;
  adopt: (owner: string) => Promise<unknown>;
  logger: Logger;
}): { stop: () => void; settled: () => Promise<void> } {
  /** The gone members handed to `adopt`, as name and lease end: a later death of the name is new. */
  const handed = new Set<string>();
  let running: Promise<void> = Promise.resolve();

  function look(): void {
    const live = deps.membership.members();
    if (!live.some((m) => m.name === deps.self)) return;
    for (const dead of deps.membership.gone()) {
      const key = `${dead.name}\n${dead.leaseExpiresAt}`;
      if (handed.has(key) || backupOf(dead, live)?.name !== deps.self) continue;
      handed.add(key);
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
  }

  const unsubscribe = deps.membership.subscribe(look);
  // The set as read when this member joined: members gone before it.
  look();
  return { stop: unsubscribe, settled: () => running };
}
