import type { Cause } from '../../ngap/generated/types.ts';
import { GMM_CAUSE, REGISTRATION_TYPE, type NasMessage, type NasMessageOf } from '../../nas/index.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { connectionOf, contextSetUp } from '../context/cm-state.ts';
import { isRegistered } from '../context/gmm-state.ts';
import { gprsTimerOf } from './gprs-timer.ts';
import { releaseConnection, type LifecycleAmf } from './ue-lifecycle.ts';

/**
 * The UE side of this AMF's planned removal (TS 23.501 5.21.2.2; docs/amf-set.md, "Draining"): no new
 * UE is taken, and each CM-CONNECTED UE's N2 connection is released once its procedure has ended, so its
 * next NAS message reaches the backup AMF, which takes it over from the shared store. Idle UEs need
 * nothing: their contexts are in the store already.
 */

/**
 * UE Context Release Command's cause (TS 38.413 9.3.1.2): the release is the operator's doing, not the
 * UE's nor the radio's ("O&M intervention").
 */
export const DRAIN_RELEASE_CAUSE: Cause = { choice: 'misc', value: 'om-intervention' };

/** T3346 of a Registration Reject while draining: the UE tries again soon, through another AMF. */
export const DRAIN_BACK_OFF_MS = 4_000;

/**
 * What a draining AMF does with an initial registration (the radio sent it before it heard AMF Status
 * Indication): it goes to another member of the set by Reroute NAS Request (TS 23.502 4.2.2.2.3, TS 38.413
 * 8.6.5; n2/ue-ngap.ts `reroute`), and the UE sees nothing but one hop more. One that was rerouted here
 * already (its Initial UE Message carries an AMF Set ID, 8.6.5.2) is not sent on again, so that two
 * members draining at once cannot pass it back and forth: #22 with a short T3346 (TS 24.501 5.5.1.2.5),
 * and the UE registers again when T3346 expires, through the AMF the radio then selects. Anything else:
 * undefined (served as usual).
 */
export function whileDraining(
  message: NasMessage,
  rerouted: boolean,
): { kind: 'reroute' } | { kind: 'reject'; reject: NasMessageOf<'registrationReject'> } | undefined {
  if (message.messageType !== 'registrationRequest') return undefined;
  if (message.registrationType.value !== REGISTRATION_TYPE.initial) return undefined;
  if (!rerouted) return { kind: 'reroute' };
  return {
    kind: 'reject',
    reject: {
      messageType: 'registrationReject',
      fiveGmmCause: GMM_CAUSE.congestion,
      t3346Value: gprsTimerOf(DRAIN_BACK_OFF_MS, 'timer'),
    },
  };
}

/**
 * Between procedures: registered, no 5GMM procedure running, the radio holding its context (Initial
 * Context Setup answered) and no PDU session being set up or released. Released now, nothing the UE or
 * the radio waits for is cut short.
 */
function quiet(amf: Pick<AmfContext, 'smf'>, ue: AmfUe): boolean {
  if (!isRegistered(ue) || ue.procedure.kind !== 'none' || !contextSetUp(ue)) return false;
  const sessions = ue.supi === undefined ? [] : (amf.smf?.sessionRecords(ue.supi) ?? []);
  return sessions.every((s) => s.userPlane === 'active' || s.userPlane === 'inactive');
}

/**
 * Releases the N2 connection of every CM-CONNECTED UE that is between procedures (`quiet`); returns how
 * many UE-associated connections the AMF still holds (those released count until their Complete).
 */
export function releaseQuietUes(amf: LifecycleAmf): number {
  for (const ue of amf.ues.all()) {
    const connection = connectionOf(ue);
    if (connection === undefined || connection.phase !== 'active') continue;
    if (quiet(amf, ue)) releaseConnection(amf, ue, DRAIN_RELEASE_CAUSE);
  }
  return amf.ngap.connections();
}
