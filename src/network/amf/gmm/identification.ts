import { IDENTITY_TYPE, type NasMessageOf } from '../../nas/index.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe, PendingRegistration } from '../context/amf-ue.ts';
import { sendNas } from './nas-link.ts';
import { startRetransmissionTimer } from '../../common/nas-timer.ts';
import type { NasLinkAmf } from './nas-link.ts';

/** The parts of the AMF context this procedure uses. */
type IdentificationAmf = Pick<AmfContext, 'settings' | 'timers'> & NasLinkAmf;

/** The Identity Request of identification: the SUCI is what the AMF asks for. */
export const IDENTITY_REQUEST: NasMessageOf<'identityRequest'> = {
  messageType: 'identityRequest',
  identityType: IDENTITY_TYPE.suci,
};

/**
 * Identification (TS 24.501 5.4.3): Identity Request for the SUCI, e.g. when the 5G-GUTI a UE registers
 * with is unknown (5.5.1.2.2). T3570 retransmits it; its fifth expiry aborts the registration
 * (`expired`). Sent plain: no security context is shared yet.
 */
export function startIdentification(
  amf: IdentificationAmf,
  ue: AmfUe,
  registration: PendingRegistration,
  expired: () => void,
): void {
  const send = (): boolean => sendNas(amf, ue, IDENTITY_REQUEST, { kind: 'plain' });
  const timer = startRetransmissionTimer(
    amf.timers,
    { ms: amf.settings.t3570Ms, retransmissions: amf.settings.retransmissions },
    () => void send(),
    expired,
  );
  ue.procedure = { kind: 'identification', registration, timer };
  send();
}
