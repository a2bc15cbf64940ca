import type { ServedGUAMIList, UnavailableGUAMIList } from '../../ngap/generated/types.ts';
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
 * own GUAMI first, then every other live member's by AMF Pointer, each with the AMF Name of its backup
 * (ServedGUAMIItem's backupAMFName) when the set has one. `members` are the live members, `self`
 * among them; without them (no set, or no longer a member) only its own GUAMI.
 */
export function servedGuamiList(
  self: AmfIdentity,
  members: readonly AmfSetMember[],
  plmn: Plmn,
): ServedGUAMIList {
  const own = members.find((m) => m.name === self.name);
  if (own === undefined) return [{ gUAMI: guami(self, plmn) }];
  const ordered = [own, ...members.filter((m) => m !== own)];
  return ordered.map((member) => {
    const backup = backupOf(member, members);
    return {
      gUAMI: guami(member, plmn),
      ...(backup === undefined ? {} : { backupAMFName: backup.name }),
    };
  });
}

/**
 * UnavailableGUAMIList (TS 38.413 9.3.3.20) of the AMF Status Indication a draining member sends: its
 * own GUAMI, with the AMF Name of the member that takes its UEs over (TS 23.501 5.21.2.2) when the set
 * has one. `members` as for `servedGuamiList`.
 */
export function unavailableGuamiList(
  self: AmfIdentity,
  members: readonly AmfSetMember[],
  plmn: Plmn,
): UnavailableGUAMIList {
  const own = members.find((m) => m.name === self.name);
  const backup = own === undefined ? undefined : backupOf(own, members);
  return [{ gUAMI: guami(self, plmn), ...(backup === undefined ? {} : { backupAMFName: backup.name }) }];
}
