import type { Logger } from 'pino';
import type { UnavailableGUAMIList } from '../../ngap/generated/types.ts';
import type { AmfSetMember } from '../../ports/amf-set-members.ts';
import type { AmfIdentity } from '../context/amf-identity.ts';
import type { AmfSetMembership } from './amf-set-membership.ts';
import { unavailableGuamiList } from './served-guamis.ts';

/**
 * What a member does when its membership says it is cut off from the database, or lost (docs/decisions.md
 * 15: stop serving rather than diverge; docs/amf-set.md, "Losing the database"): its radios hear AMF
 * Status Indication with its GUAMI and the backup AMF its peers adopt its UEs on (TS 38.413 8.7.6,
 * TS 23.501 5.21.2.3), and its UE side stops (`ues.suspend`: no NAS served, nothing written, every UE
 * context dropped and its N2 connection released). Once the membership is a member again (a heartbeat
 * written with its pointer free), the UE side resumes; its UEs come back only by takeover from the store.
 * The GUAMI's PLMN and backup are those of the members last read while it was a member: the database
 * that would say them now is what it lost.
 */
export function watchDatabaseCut(deps: {
  membership: Pick<AmfSetMembership, 'members' | 'status' | 'subscribe'>;
  identity: AmfIdentity;
  radios: { statusIndication(unavailable: UnavailableGUAMIList): number };
  ues: { suspend(): number; resume(): void };
  /** Counts a stop (`pmn_amf_set_cut_offs_total`). */
  counted: () => void;
  logger: Logger;
}): () => void {
  const { membership, identity, logger } = deps;
  let lastMembers: readonly AmfSetMember[] = membership.members();
  let stopped = false;

  return membership.subscribe(() => {
    const status = membership.status();
    if (status === 'member') {
      lastMembers = membership.members();
      if (!stopped) return;
      stopped = false;
      deps.ues.resume();
      logger.warn({ amf: identity.name }, `AMF set: ${identity.name} serves again`);
      return;
    }
    if (stopped || (status !== 'cut-off' && status !== 'lost')) return;
    stopped = true;
    const self = lastMembers.find((m) => m.name === identity.name);
    // Its own GUAMI, under the PLMN its row last said, with the backup its peers adopt its UEs on.
    const unavailable =
      self === undefined ? undefined : unavailableGuamiList(identity, lastMembers, self, 'until-back');
    const radios = unavailable === undefined ? 0 : deps.radios.statusIndication(unavailable);
    const dropped = deps.ues.suspend();
    deps.counted();
    logger.error(
      { amf: identity.name, status, radios, dropped, backup: unavailable?.[0]?.backupAMFName },
      `AMF set: ${identity.name} stops serving (${status}): AMF Status Indication to ${radios} radios, ${dropped} UE contexts dropped`,
    );
  });
}
