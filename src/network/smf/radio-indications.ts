// What a radio tells the SMF on its own (TS 38.413 8.2.4, 8.2.5): PDU Session Resource Notify (QoS flows
// released or their bit rates not fulfilled, a session's resources released) and PDU Session Resource
// Modify Indication (the radio's new downlink tunnel), with the SMF's N2 SM answer for the latter.
import { decodeComplete } from '../asn1/complete.ts';
import {
  decodePDUSessionResourceModifyIndicationTransfer,
  decodePDUSessionResourceNotifyTransfer,
} from '../ngap/generated/codec.ts';
import type { Cause, QosFlowPerTNLInformation } from '../ngap/generated/types.ts';
import { modifyIndicationUnsuccessfulTransfer } from '../ngap/modify-indication-unsuccessful-transfer.ts';
import type { ModifyIndicationAnswer } from '../amf/ports/session-management.ts';
import type { DownlinkTunnel } from '../upf/ports/session-control.ts';
import { modifyConfirmTransfer, tunnelOf } from './n2-transfers.ts';
import { releaseByNetwork, type ReleaseContext } from './release.ts';
import { transition, userPlaneUp, type SmSession } from './session-table.ts';
import { publish } from './session-view.ts';
import { SM_CAUSE } from './sm-cause.ts';
import type { SmfContext } from './smf-context.ts';

const ALIGNED = true;

type RadioIndicationContext = ReleaseContext & Pick<SmfContext, 'userPlane'>;

const UNKNOWN_SESSION: Cause = { choice: 'radioNetwork', value: 'unknown-PDU-session-ID' };

/**
 * The radio released the session's resources, or the QoS flow of its default QoS rule: a PDU session
 * cannot be without that flow (TS 23.501 5.7.1.1), so the SMF releases the session (TS 23.502 4.3.3.2
 * step 1e, 4.3.4.2). The radio no longer holds it: the Release Command goes alone in DL NAS Transport.
 */
function releasedByRadio(ctx: ReleaseContext, s: SmSession, why: string): void {
  ctx.logger.info({ supi: s.supi, pduSessionId: s.pduSessionId, why }, 'SMF: the radio released the session');
  if (userPlaneUp(s.state)) transition(s, { kind: 'inactive', downlinkData: false });
  releaseByNetwork(ctx, s, SM_CAUSE.insufficientResources);
}

/** PDU Session Resource Notify's Released list (TS 38.413 8.2.4.2): the radio released the session. */
export function radioReleasedSession(ctx: ReleaseContext, supi: string, pduSessionId: number): void {
  const s = ctx.table.get(supi, pduSessionId);
  if (s === undefined || s.state.kind === 'releasing') return;
  releasedByRadio(ctx, s, 'session released');
}

/**
 * PDU Session Resource Notify Transfer (TS 38.413 9.3.4.5) for one session. Its default QoS flow
 * released -> the session is released (above). Notification control (a GBR flow's bit rates no longer
 * or again fulfilled) applies to GBR flows only (TS 23.501 5.7.2.4); the default flow is non-GBR, so a
 * notification for it is logged and changes nothing. An unreadable transfer, an unknown session or
 * QFIs the session does not have change nothing (8.2.4 has no answer to give).
 */
export function radioNotified(
  ctx: ReleaseContext,
  supi: string,
  pduSessionId: number,
  transfer: Uint8Array,
): void {
  const s = ctx.table.get(supi, pduSessionId);
  if (s === undefined || s.state.kind === 'releasing') return;
  const read = decodeComplete(transfer, ALIGNED, decodePDUSessionResourceNotifyTransfer);
  if (!read.ok) {
    ctx.logger.warn(
      { supi, pduSessionId, error: read.error },
      'SMF: unreadable PDU Session Resource Notify Transfer',
    );
    return;
  }
  const { qosFlowReleasedList = [], qosFlowNotifyList = [] } = read.value;
  if (qosFlowReleasedList.some((item) => item.qosFlowIdentifier === s.flow.qfi))
    return releasedByRadio(ctx, s, 'default QoS flow released');
  for (const item of qosFlowNotifyList)
    ctx.logger.info(
      { supi, pduSessionId, qfi: item.qosFlowIdentifier, notification: item.notificationCause },
      'SMF: the radio notified a QoS flow',
    );
}

/** The tunnel of the indication that carries the session's QoS flow (the main one or an additional one). */
function tunnelFor(
  qfi: number,
  main: QosFlowPerTNLInformation,
  additional: readonly { qosFlowPerTNLInformation: QosFlowPerTNLInformation }[],
): QosFlowPerTNLInformation | undefined {
  return [main, ...additional.map((item) => item.qosFlowPerTNLInformation)].find((info) =>
    info.associatedQosFlowList.some((flow) => flow.qosFlowIdentifier === qfi),
  );
}

/**
 * PDU Session Resource Modify Indication Transfer (TS 38.413 9.3.4.6) for one session: the radio moved
 * the session's downlink to another tunnel of its own (e.g. a secondary node, TS 23.502 4.14.1). The SMF
 * points the UPF's downlink there and confirms the QoS flow with the unchanged uplink tunnel (9.3.4.7).
 * A session whose user plane the radio does not hold -> `unknown-PDU-session-ID`; an unreadable transfer
 * or no usable GTP tunnel for the session's flow -> `semantic-error`; the UPF refusing ->
 * `not-enough-user-plane-processing-resources`: the session keeps its old downlink then.
 */
export function modifyIndicated(
  ctx: RadioIndicationContext,
  supi: string,
  pduSessionId: number,
  transfer: Uint8Array,
): ModifyIndicationAnswer {
  const refuse = (cause: Cause): ModifyIndicationAnswer => ({
    confirmed: false,
    transfer: modifyIndicationUnsuccessfulTransfer(cause),
  });
  const s = ctx.table.get(supi, pduSessionId);
  if (s === undefined || s.state.kind !== 'active' || ctx.userPlane === undefined)
    return refuse(UNKNOWN_SESSION);
  const read = decodeComplete(transfer, ALIGNED, decodePDUSessionResourceModifyIndicationTransfer);
  if (!read.ok) return refuse({ choice: 'protocol', value: 'semantic-error' });
  const info = tunnelFor(
    s.flow.qfi,
    read.value.dLQosFlowPerTNLInformation,
    read.value.additionalDLQosFlowPerTNLInformation ?? [],
  );
  const endpoint = info === undefined ? undefined : tunnelOf(info.uPTransportLayerInformation);
  if (endpoint === undefined) return refuse({ choice: 'protocol', value: 'semantic-error' });
  const downlink: DownlinkTunnel = {
    gnbAddress: endpoint.address,
    remoteTeid: endpoint.teid,
    qfi: s.flow.qfi,
  };
  const updated = ctx.userPlane.updateDownlink(s.resources.upfSessionId, downlink);
  if (!updated.ok) {
    ctx.logger.warn(
      { supi, pduSessionId, error: updated.error },
      'SMF: the UPF refused the indicated downlink',
    );
    return refuse({ choice: 'misc', value: 'not-enough-user-plane-processing-resources' });
  }
  transition(s, { kind: 'active', downlink });
  publish(ctx, s);
  return {
    confirmed: true,
    transfer: modifyConfirmTransfer({
      qfi: s.flow.qfi,
      uplink: { address: ctx.userPlane.n3Address, teid: s.resources.uplinkTeid },
    }),
  };
}
