import type { Cause } from '../../ngap/generated/types.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { configurationUpdateInterrupted } from './configuration-update.ts';
import { paging } from './paging.ts';
import { enterGmmState, isRegistered } from '../context/gmm-state.ts';
import { connectionOf, enterIdle, setReachability } from '../context/cm-state.ts';
import type { ConfigurationUpdateAmf } from './configuration-update.ts';

/** The parts of the AMF context this procedure uses. */
export type LifecycleAmf = Pick<
  AmfContext,
  'events' | 'ngap' | 'settings' | 'smf' | 'sms' | 'timers' | 'ueContexts' | 'ues'
> &
  ConfigurationUpdateAmf;

/** Stops the running procedure's timer; the UE is between procedures afterwards. */
export function stopProcedure(ue: AmfUe): void {
  const procedure = ue.procedure;
  switch (procedure.kind) {
    case 'none':
    case 'registration-pending':
    case 'rekeying-pending':
      break;
    case 'identification':
    case 'authentication':
    case 'security-mode':
    case 'registration-accept':
    case 'configuration-update':
    case 'deregistration':
    case 'paging':
      procedure.timer.stop();
      break;
  }
  ue.procedure = { kind: 'none' };
}

/** Every timer of the UE stops (the AMF stops). */
export function stopTimers(ue: AmfUe): void {
  stopProcedure(ue);
  ue.cancelSecurityAge?.();
  stopReachability(ue);
}

function stopReachability(ue: AmfUe): void {
  if (ue.cm.name === 'idle') ue.cm.reachability?.cancel();
  setReachability(ue, undefined);
}

/** Asks the radio to release the UE's connection (UE Context Release Command); it ends on Complete. */
export function releaseConnection(
  amf: LifecycleAmf,
  ue: AmfUe,
  cause: Cause = { choice: 'nas', value: 'normal-release' },
): void {
  const connection = connectionOf(ue);
  if (connection !== undefined) amf.ngap.release(connection, cause);
}

/**
 * Forgets a UE context: its timers stop, its connection (if any) is released and no longer leads to
 * it. The API's picture is the caller's to update.
 */
export function removeContext(amf: LifecycleAmf, ue: AmfUe): void {
  stopProcedure(ue);
  ue.cancelSecurityAge?.();
  const connection = connectionOf(ue);
  enterIdle(ue);
  amf.ueContexts.forget(ue);
  if (connection !== undefined) {
    connection.owner = undefined;
    amf.ngap.release(connection, { choice: 'nas', value: 'normal-release' });
  }
  amf.ues.remove(ue);
}

/**
 * A procedure failed for good (a timer's last expiry, a reject the UE sent, an unrecoverable answer):
 * TS 24.501 says "abort the procedure" and the AMF releases the NAS signalling connection. A registered
 * UE stays registered (idle once released); an unregistered one leaves nothing behind.
 */
export function abortProcedure(amf: LifecycleAmf, ue: AmfUe): void {
  stopProcedure(ue);
  if (isRegistered(ue)) releaseConnection(amf, ue);
  else removeContext(amf, ue);
}

/**
 * Another AMF of the set took the UE over (its write of the UE's context was fenced, docs/amf-set.md):
 * this AMF's copy goes without a word to the UE, which the new owner serves, and without a write (the
 * stored context is the new owner's). Its PDU sessions end here locally (this UPF's forwarding state,
 * the new owner has its own) and this member's picture no longer shows it registered.
 */
export function dropTakenOver(amf: LifecycleAmf, ue: AmfUe): void {
  if (!amf.ues.has(ue)) return;
  const wasRegistered = isRegistered(ue);
  enterGmmState(ue, 'deregistered');
  if (wasRegistered && ue.supi !== undefined) deregistered(amf, ue.supi);
  removeContext(amf, ue);
}

/** Deregistered (UE-initiated, network-initiated or implicit): the API shows it at once. */
export function deregister(amf: LifecycleAmf, ue: AmfUe): void {
  const wasRegistered = isRegistered(ue);
  enterGmmState(ue, 'deregistered');
  if (wasRegistered && ue.supi !== undefined) deregistered(amf, ue.supi);
  removeContext(amf, ue);
}

/**
 * However it was deregistered, the UE's PDU sessions end with it (TS 24.501 6.3.3: released locally at
 * the SMF) and so does its SMS context at the SMSF (TS 23.502 4.13.2.3), then the network hears of the
 * deregistration.
 */
export function deregistered(amf: LifecycleAmf, supi: string): void {
  amf.smf?.ueGone(supi);
  amf.sms?.deactivate(supi);
  amf.events.emit('ue.deregistered', { supi });
}

/**
 * The UE's connection ended (TS 23.502 4.2.6 AN release, or the radio's loss): a registered UE becomes
 * CM-IDLE and the mobile reachable timer starts (24.501 5.3.7); its expiry starts the implicit
 * deregistration timer, whose expiry deregisters the UE. A UE that is not registered is forgotten,
 * unless the network deregistered it and it has not acknowledged yet: its Deregistration Request went
 * over a connection already being released (UE Context Release Command sent), or was lost with the
 * connection. The UE still believes it is registered, so it is paged to hear it (5.5.2.3.1, 5.6.2).
 */
export function becomeIdle(amf: LifecycleAmf, ue: AmfUe): void {
  enterIdle(ue);
  if (!isRegistered(ue)) {
    const unacknowledged = ue.procedure.kind === 'deregistration' ? ue.procedure.cause : undefined;
    stopProcedure(ue);
    if (unacknowledged === undefined || !paging(amf, ue, { kind: 'deregistration', cause: unacknowledged }))
      removeContext(amf, ue);
    return;
  }
  // A procedure that needs the connection cannot go on; paging waits for the UE to come back.
  configurationUpdateInterrupted(ue);
  if (ue.procedure.kind !== 'paging') stopProcedure(ue);
  const cancel = amf.timers.after(amf.settings.mobileReachableMs, () => {
    const cancelImplicit = amf.timers.after(amf.settings.implicitDeregistrationMs, () => {
      setReachability(ue, undefined);
      deregister(amf, ue);
    });
    setReachability(ue, { timer: 'implicit-deregistration', cancel: cancelImplicit });
  });
  enterIdle(ue, { timer: 'mobile-reachable', cancel });
}

/** The UE is connected again (Service Request, Registration Request): reachability timers stop. */
export function becomeConnected(ue: AmfUe): void {
  stopReachability(ue);
}
