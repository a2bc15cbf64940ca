import { GMM_CAUSE, encodeNasMessage, type NasMessageOf } from '../../nas/index.ts';
import { openContainer } from '../../nas/initial-message-container.ts';
import { deriveContextKgnb, latestUplinkCount } from '../../nas-security/index.ts';
import type { AmfContext } from '../context/amf-context.ts';
import { guami } from '../context/amf-identity.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { deregisterByNetwork } from './deregistration.ts';
import { logNas, nasPduFor } from './nas-link.ts';
import { ngapAllowedNssai, ngapSecurityCapabilities } from '../n2/ngap-ue-values.ts';
import { inactiveAssistanceFor } from '../n2/rrc-inactive-assistance.ts';
import { reconcileSessions } from '../sm/session-management.ts';
import type { UeConnection } from '../context/ue-connections.ts';
import { abortProcedure, becomeConnected } from './ue-lifecycle.ts';
import { isRegistered } from '../context/gmm-state.ts';
import { connectionOf } from '../context/cm-state.ts';
import type { DeregistrationAmf } from './deregistration.ts';
import type { SessionManagementAmf } from '../sm/session-management.ts';

/** The parts of the AMF context this procedure uses. */
type ServiceRequestAmf = Pick<
  AmfContext,
  'identity' | 'network' | 'ngap' | 'peerLog' | 'subscriptionData' | 'ues'
> &
  DeregistrationAmf &
  SessionManagementAmf;

/**
 * A Service Request verified under the UE's current context (TS 24.501 5.6.1), its ciphered NAS message
 * container (4.4.6) taking its place: the UE is CM-CONNECTED
 * again and paging (T3513) stops. When the AMF paged it for a deregistration, that procedure runs now
 * with the cause it was paged for (#7 or #62, 5.5.2.3.1); paged for downlink data, it is owed a new
 * 5G-GUTI by Configuration Update once the radio has its context (5.4.4.1 a). Otherwise the SMF reconciles the PDU
 * sessions (5.6.1.4.1, `reconcileSessions`), and Service Accept with their status goes in Initial
 * Context Setup Request with a KgNB from the Service Request's uplink NAS COUNT (TS 33.501 6.9.2.1.1),
 * the reactivated sessions in its PDU Session Resource Setup List. A UE the AMF holds but has not
 * registered -> Service Reject #10 (5.6.1.5).
 */
export async function serviceRequest(
  amf: ServiceRequestAmf,
  ue: AmfUe,
  received: NasMessageOf<'serviceRequest'>,
  receivedPlain: Uint8Array,
): Promise<void> {
  becomeConnected(ue);
  // TS 24.501 4.4.6: the whole message, in the ciphered NAS message container, replaces the cleartext one.
  const opened =
    ue.security === undefined
      ? undefined
      : openContainer(ue.security, latestUplinkCount(ue.security) ?? 0, received);
  if (opened?.error !== undefined)
    amf.peerLog.warn(
      'nas_container_unreadable',
      connectionOf(ue)?.radio.id ?? '',
      { ue: ue.id, error: opened.error },
      'AMF: a NAS message container did not open',
    );
  const request = opened?.message ?? received;
  logNas(amf, ue, 'inbound', request, opened?.plain ?? receivedPlain);
  const procedure = ue.procedure;
  if (procedure.kind === 'paging') {
    procedure.timer.stop();
    ue.procedure = { kind: 'none' };
    if (procedure.purpose.kind === 'deregistration')
      return deregisterByNetwork(amf, ue, procedure.purpose.cause);
    // TS 24.501 5.4.4.1 a: a new 5G-GUTI once the radio has the context (sendPendingConfigurationUpdate).
    ue.gutiReallocationPending = true;
  }
  const connection = connectionOf(ue);
  const security = ue.security;
  const capability = ue.ueSecurityCapability;
  if (!isRegistered(ue) || connection === undefined || security === undefined || capability === undefined) {
    return serviceReject(amf, ue, GMM_CAUSE.implicitlyDeregistered);
  }
  const supi = ue.supi;
  const [{ configuration }, subscription] = await Promise.all([
    amf.network(),
    supi === undefined ? undefined : amf.subscriptionData.getSubscriptionData(supi),
  ]);
  if (!amf.ues.has(ue) || connectionOf(ue) !== connection || supi === undefined) return;
  const sessions = reconcileSessions(amf, ue, request, subscription?.profile);
  const accept = nasPduFor(
    amf,
    ue,
    { messageType: 'serviceAccept', ...sessions.accept },
    { kind: 'current' },
  );
  const kgnb = deriveContextKgnb(security);
  if (accept === undefined || kgnb === undefined) return abortProcedure(amf, ue);
  // What the radio is given now; a later change goes by UE Context Modification (amf.refreshInactiveAssistance).
  ue.inactiveAssistance = inactiveAssistanceFor(ue, amf.settings.t3512Ms);
  amf.ngap.setUpContext(connection, {
    ...sessions.context,
    guami: guami(amf.identity, configuration.plmn),
    allowedNssai: ngapAllowedNssai(ue.allowedNssai),
    ueSecurityCapabilities: ngapSecurityCapabilities(capability),
    // The Security Key IE is KgNB's 256 bits as they are (TS 38.413 9.3.1.87).
    securityKey: { bytes: kgnb, length: 256 },
    nasPdu: accept,
    inactiveAssistance: ue.inactiveAssistance,
  });
}

/** Service Reject (TS 24.501 5.6.1.5) with its cause; the connection is released. */
function serviceReject(amf: ServiceRequestAmf, ue: AmfUe, cause: number): void {
  const connection = connectionOf(ue);
  if (connection === undefined) return;
  const pdu = nasPduFor(
    amf,
    ue,
    { messageType: 'serviceReject', fiveGmmCause: cause },
    ue.security?.status === 'current' ? { kind: 'current' } : { kind: 'plain' },
  );
  if (pdu !== undefined) amf.ngap.sendNas(connection, pdu);
  amf.ngap.release(connection, { choice: 'nas', value: 'normal-release' });
}

/**
 * A rejection to a connection no UE context stands behind (an unknown or unverified identity, or the
 * context limit): the plain message, then the connection's release.
 */
export function rejectUnknown(
  amf: ServiceRequestAmf,
  connection: UeConnection<AmfUe>,
  message: Parameters<typeof encodeNasMessage>[0],
): void {
  amf.ngap.sendNas(connection, encodeNasMessage(message));
  amf.ngap.release(connection, { choice: 'nas', value: 'normal-release' });
}
