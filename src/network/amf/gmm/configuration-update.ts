import type { NasMessageOf, SNssai } from '../../nas/index.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { newGuti } from '../context/guti-allocation.ts';
import { sendNas } from './nas-link.ts';
import { startRetransmissionTimer } from '../../common/nas-timer.ts';
import { isRegistered } from '../context/gmm-state.ts';
import { connectionOf, contextSetUp } from '../context/cm-state.ts';
import type { GutiAllocationAmf } from '../context/guti-allocation.ts';
import type { NasLinkAmf } from './nas-link.ts';

/** The parts of the AMF context this procedure uses. */
export type ConfigurationUpdateAmf = Pick<
  AmfContext,
  'refreshInactiveAssistance' | 'settings' | 'timers' | 'ues'
> &
  GutiAllocationAmf &
  NasLinkAmf;

/**
 * Configuration update indication (TS 24.501 9.11.3.18): bit 1 ACK, "acknowledgement requested". The
 * AMF asks for it whenever it sends more than NITZ (5.4.4.2), so always here; bit 2 RED (registration
 * requested) stays 0: a new allowed NSSAI alone needs no re-registration.
 */
const ACKNOWLEDGEMENT_REQUESTED = 0b0001;

/** Two NSSAIs hold the same S-NSSAIs in the same order (allowedNssaiFor orders them by operator slice). */
function sameNssai(a: readonly SNssai[], b: readonly SNssai[]): boolean {
  return a.length === b.length && a.every((slice, i) => slice.sst === b[i]?.sst && slice.sd === b[i]?.sd);
}

/**
 * A registered UE's allowed NSSAI changed (a policy, slice or profile changed through the API). The
 * generic UE configuration update (TS 24.501 5.4.4) runs only in 5GMM-CONNECTED mode and between
 * procedures (5.4.4.1): otherwise the new NSSAI waits in `pendingAllowedNssai` until the UE is back
 * (Registration Complete, or the radio's context after a Service Request).
 */
export function allowedNssaiChanged(amf: ConfigurationUpdateAmf, ue: AmfUe, allowedNssai: SNssai[]): void {
  ue.pendingAllowedNssai = allowedNssai;
  sendPendingConfigurationUpdate(amf, ue);
}

/**
 * Configuration Update Command (TS 24.501 5.4.4.2) with what is pending, when the UE is connected,
 * registered and in no other procedure: a new allowed NSSAI, and a new 5G-GUTI owed after a Service
 * Request that answered paging (5.4.4.1 a; TS 33.501 6.12.3), before the connection is released. Until
 * the UE answers, the old and the new 5G-GUTI both name it (`AmfUes.replaceGuti`); a later command
 * carries the new one again while the UE has not shown it holds it. T3555 retransmits the command, and
 * on its fifth expiry the procedure is aborted (5.4.4.5 c): the UE learns its allowed NSSAI at its next
 * registration (or with a command a later change brings), and whichever 5G-GUTI it names itself with
 * next is kept.
 */
export function sendPendingConfigurationUpdate(amf: ConfigurationUpdateAmf, ue: AmfUe): void {
  if (!isRegistered(ue) || ue.procedure.kind !== 'none') return;
  if (connectionOf(ue) === undefined || !contextSetUp(ue)) return;
  const pending = ue.pendingAllowedNssai;
  ue.pendingAllowedNssai = undefined;
  const allowedNssai = pending === undefined || sameNssai(pending, ue.allowedNssai) ? undefined : pending;
  const current = ue.guti;
  const reallocated = ue.gutiReallocationPending && current !== undefined ? newGuti(amf, current) : undefined;
  ue.gutiReallocationPending = false;
  if (allowedNssai === undefined && reallocated === undefined) return;
  const previous = ue.allowedNssai;
  if (allowedNssai !== undefined) ue.allowedNssai = allowedNssai;
  if (reallocated !== undefined) amf.ues.replaceGuti(ue, reallocated);
  const guti = reallocated ?? (ue.oldGuti === undefined ? undefined : current);
  const command: NasMessageOf<'configurationUpdateCommand'> = {
    messageType: 'configurationUpdateCommand',
    configurationUpdateIndication: ACKNOWLEDGEMENT_REQUESTED,
    ...(guti === undefined ? {} : { fiveGGuti: guti }),
    ...(allowedNssai === undefined ? {} : { allowedNssai }),
  };
  const send = (): boolean => sendNas(amf, ue, command, { kind: 'current' });
  const timer = startRetransmissionTimer(
    amf.timers,
    { ms: amf.settings.t3555Ms, retransmissions: amf.settings.retransmissions },
    () => void send(),
    () => {
      ue.procedure = { kind: 'none' };
      sendPendingConfigurationUpdate(amf, ue);
    },
  );
  ue.procedure = { kind: 'configuration-update', previous, guti, timer };
  send();
}

/**
 * The connection ended before Configuration Update Complete (TS 24.501 5.4.4.5 a: the command may not
 * have reached the UE). The update is not given up: the UE keeps the allowed NSSAI it held, and the new
 * one waits to be sent again once the UE is connected (after a Service Request), unless a registration
 * gives it first (Registration Accept carries the allowed NSSAI). Call before the procedure stops.
 */
export function configurationUpdateInterrupted(ue: AmfUe): void {
  const procedure = ue.procedure;
  if (procedure.kind !== 'configuration-update') return;
  ue.pendingAllowedNssai ??= ue.allowedNssai;
  ue.allowedNssai = procedure.previous;
}

/**
 * Configuration Update Complete (TS 24.501 5.4.4.3): T3555 stops; the UE uses the new allowed NSSAI, and
 * the 5G-GUTI the command carried, if any: the old one is no longer valid. A change that came meanwhile
 * goes now.
 */
export function configurationUpdateComplete(amf: ConfigurationUpdateAmf, ue: AmfUe): void {
  const procedure = ue.procedure;
  if (procedure.kind !== 'configuration-update') return;
  procedure.timer.stop();
  ue.procedure = { kind: 'none' };
  if (procedure.guti !== undefined) {
    amf.ues.settleGuti(ue, procedure.guti.tmsi);
    // The radio pages an RRC inactive UE by the new 5G-S-TMSI's UE Identity Index Value (TS 38.304 7.1).
    amf.refreshInactiveAssistance(ue);
  }
  sendPendingConfigurationUpdate(amf, ue);
}
