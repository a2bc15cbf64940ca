import type { ServedGUAMIItem, ServedGUAMIList, UnavailableGUAMIList } from '../../ngap/generated/types.ts';
import type { AmfSetMember } from '../../ports/amf-set-members.ts';
import type { Plmn } from '../../radio-id.ts';
import { guami, type AmfIdentity } from '../context/amf-identity.ts';

/**
 * The member that takes over `member`'s GUAMI when it fails (TS 23.501 5.21.2.3): the next serving
 * member after it by AMF Pointer, wrapping round; none when no other member serves. A draining member
 * takes nothing over. Every member computes the same answer from the same rows, so the radios hear one
 * backup per GUAMI whichever member they are connected to.
 */
export function backupOf(member: AmfSetMember, members: readonly AmfSetMember[]): AmfSetMember | undefined {
  const candidates = members
    .filter((m) => m.name !== member.name && m.state === 'serving')
    .sort((a, b) => a.pointer - b.pointer);
  return candidates.find((m) => m.pointer > member.pointer) ?? candidates[0];
}

/**
 * ServedGUAMIList (TS 38.413 9.3.3.5) of NG Setup Response and AMF Configuration Update: this member's
 * own GUAMI first, then the GUAMIs of gone members it serves (it is their backup, `backupOf`, so it
 * adopted their UEs: TS 23.501 5.21.2.3), then every other live member's by AMF Pointer, then the other
 * gone members' GUAMIs; each with the AMF Name of its backup (ServedGUAMIItem's backupAMFName) when the
 * set has one: for a gone member's GUAMI, the member serving it now, or for one this member serves, the
 * member that would serve it without this one. `members` are the live members, `self` among them, and
 * `gone` those whose GUAMIs the set still serves (`AmfSetMembership.gone`); without members (no set, or
 * no longer a member) only its own GUAMI. The radios hear each gone GUAMI until a member holds its
 * pointer again (then it is that member's own).
 */
export function servedGuamiList(
  self: AmfIdentity,
  members: readonly AmfSetMember[],
  plmn: Plmn,
  gone: readonly AmfSetMember[] = [],
): ServedGUAMIList {
  const own = members.find((m) => m.name === self.name);
  if (own === undefined) return [{ gUAMI: guami(self, plmn) }];
  const item = (member: AmfSetMember, backup: AmfSetMember | undefined): ServedGUAMIItem => ({
    gUAMI: guami(member, plmn),
    ...(backup === undefined ? {} : { backupAMFName: backup.name }),
  });
  const servers = gone.map((member) => ({ member, server: backupOf(member, members) }));
  const others = members.filter((m) => m !== own);
  return [
    item(own, backupOf(own, members)),
    ...servers.filter((g) => g.server === own).map((g) => item(g.member, backupOf(g.member, others))),
    ...others.map((member) => item(member, backupOf(member, members))),
    ...servers.filter((g) => g.server !== undefined && g.server !== own).map((g) => item(g.member, g.server)),
  ];
}

/**
 * UnavailableGUAMIList (TS 38.413 9.3.3.20) of the AMF Status Indication a draining or cut-off member
 * sends: its own GUAMI, with the AMF Name of the member that takes its UEs over (TS 23.501 5.21.2.2)
 * when the set has one. `members` as for `servedGuamiList`. `planned`: a planned removal (the drain), after
 * which the member does not serve the GUAMI again, so the item says Timer Approach for GUAMI Removal
 * `apply-timer` (9.3.3.20, TS 23.501 5.21.2.2): the radio may forget the GUAMI once its own timer ran out,
 * by when the GUAMI's UEs have registered with the backup under new 5G-GUTIs. A member cut off from the
 * database comes back with its GUAMI: no timer approach.
 */
export function unavailableGuamiList(
  self: AmfIdentity,
  members: readonly AmfSetMember[],
  plmn: Plmn,
  removal: 'planned' | 'until-back',
): UnavailableGUAMIList {
  const own = members.find((m) => m.name === self.name);
  const backup = own === undefined ? undefined : backupOf(own, members);
  return [
    {
      gUAMI: guami(self, plmn),
      ...(removal === 'planned' ? { timerApproachForGUAMIRemoval: 'apply-timer' as const } : {}),
      ...(backup === undefined ? {} : { backupAMFName: backup.name }),
    },
  ];
}
