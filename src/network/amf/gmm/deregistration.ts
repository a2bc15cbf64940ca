import { ACCESS_TYPE, type NasMessageOf } from '../../nas/index.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { sendNas } from './nas-link.ts';
import { startRetransmissionTimer } from '../../common/nas-timer.ts';
import { paging } from './paging.ts';
import { deregister, deregistered, stopProcedure } from './ue-lifecycle.ts';
import { enterGmmState, isRegistered } from '../context/gmm-state.ts';
import { connectionOf } from '../context/cm-state.ts';
import type { NasLinkAmf } from './nas-link.ts';
import type { LifecycleAmf } from './ue-lifecycle.ts';

/** The parts of the AMF context this procedure uses. */
export type DeregistrationAmf = Pick<AmfContext, 'settings' | 'timers'> & NasLinkAmf & LifecycleAmf;

/**
 * UE-initiated deregistration (TS 24.501 5.5.2.2): Deregistration Accept unless the UE switched off
 * (5.5.2.2.2), then the UE is deregistered and its connection released.
 */
export function deregistrationRequest(
  amf: DeregistrationAmf,
  ue: AmfUe,
  message: NasMessageOf<'deregistrationRequestUeOriginating'>,
): void {
  stopProcedure(ue);
  if (!message.deregistrationType.switchOff)
    sendNas(amf, ue, { messageType: 'deregistrationAcceptUeOriginating' }, { kind: 'current' });
  deregister(amf, ue);
}

/**
 * Network-initiated deregistration (TS 24.501 5.5.2.3), when the subscriber was deleted or its profile
 * no longer allows it (network.md 5): the API shows it deregistered at once. A connected UE gets
 * Deregistration Request (re-registration not required, with `cause`), T3522 retransmitting it; an
 * idle one is paged first (5.6.2) and hears it once it answers with a Service Request. Without an
 * answer the AMF deregisters it locally (5.5.2.3.5 b).
 */
export function deregisterByNetwork(amf: DeregistrationAmf, ue: AmfUe, cause: number): void {
  if (ue.procedure.kind === 'deregistration') return;
  if (isRegistered(ue) && ue.supi !== undefined) deregistered(amf, ue.supi);
  enterGmmState(ue, 'deregistered-initiated');
  stopProcedure(ue);
  if (connectionOf(ue) === undefined) {
    if (!paging(amf, ue, { kind: 'deregistration', cause })) deregister(amf, ue);
    return;
  }
  const send = (): boolean =>
    sendNas(
      amf,
      ue,
      {
        messageType: 'deregistrationRequestUeTerminated',
        deregistrationType: {
          switchOff: false,
          reRegistrationRequired: false,
          accessType: ACCESS_TYPE.threeGpp,
        },
        fiveGmmCause: cause,
      },
      { kind: 'current' },
    );
  const timer = startRetransmissionTimer(
    amf.timers,
    { ms: amf.settings.t3522Ms, retransmissions: amf.settings.retransmissions },
    () => void send(),
    () => deregister(amf, ue),
  );
  ue.procedure = { kind: 'deregistration', cause, timer };
  send();
}

/** Deregistration Accept for the network's request (TS 24.501 5.5.2.3.3): the connection is released. */
export function deregistrationAccept(amf: DeregistrationAmf, ue: AmfUe): void {
  if (ue.procedure.kind !== 'deregistration') return;
  deregister(amf, ue);
}
