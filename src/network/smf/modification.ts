// PDU session modification (docs/sessions.md): the Modification Command with T3591 (TS 24.501 6.3.2),
// UE-requested modification (6.4.2), and the network's own on configuration changes (reconfiguration,
// TS 23.502 4.3.3.2).
import { startRetransmissionTimer } from '../common/nas-timer.ts';
import type { NasMessageOf } from '../nas/index.ts';
import { authorise, type SessionProfile } from './session-authorisation.ts';
import { ambrOf, DEFAULT_QFI } from './establishment.ts';
import { modifyRequestTransfer, type DefaultQosFlow, type SessionAmbrBps } from './n2-transfers.ts';
import { releaseByNetwork, releaseLocally, type ReleaseContext } from './release.ts';
import { publish } from './session-view.ts';
import type { SmSession } from './session-table.ts';
import { SM_CAUSE } from './sm-cause.ts';
import { modificationCommand } from './sm-messages.ts';
import type { SmfContext } from './smf-context.ts';
import { judgeModificationRequest } from './ue-modification.ts';

/** What a modification uses (T3591's last expiry releases the session). */
type ModificationContext = ReleaseContext;

/**
 * Sends a PDU Session Modification Command (network-requested 6.3.2 or answering the UE's request
 * 6.4.2.3): in PDU Session Resource Modify Request with the QoS for the radio when the user plane is
 * up, else in DL NAS Transport. T3591 retransmits it (DL NAS Transport); on its fifth expiry the
 * procedure is aborted and, the UE's and the network's QoS now being unknown to each other, the
 * session released (6.3.2.5 a).
 */
function sendModificationCommand(
  ctx: ModificationContext,
  s: SmSession,
  n1: NasMessageOf<'pduSessionModificationCommand'>,
): void {
  const { amf } = ctx;
  s.t3591?.stop();
  s.t3591 = undefined;
  const sent =
    s.state.kind === 'active'
      ? amf.modifyResources(s.supi, {
          pduSessionId: s.pduSessionId,
          sNssai: s.sNssai,
          transfer: modifyRequestTransfer({ ambr: s.ambr, flow: s.flow }),
          n1,
        })
      : amf.sendN1(s.supi, n1);
  if (!sent) return;
  s.t3591 = startRetransmissionTimer(
    ctx.timers,
    { ms: ctx.timing.t3591Ms, retransmissions: ctx.timing.retransmissions },
    () => void amf.sendN1(s.supi, n1),
    () => {
      s.t3591 = undefined;
      ctx.logger.info({ supi: s.supi, pduSessionId: s.pduSessionId }, 'SMF: T3591 expired, session released');
      releaseByNetwork(ctx, s, SM_CAUSE.requestRejectedUnspecified);
    },
  );
}

/**
 * UE-requested modification (TS 24.501 6.4.2): served when it asks for no QoS beyond the session's
 * policy (ue-modification.ts) with a Modification Command under the request's PTI carrying the
 * session's values, else Modification Reject with the cause the judgement gives; #43 for a PDU
 * session the network does not hold (6.4.2.4).
 */
export function modificationRequested(
  ctx: ModificationContext,
  supi: string,
  request: NasMessageOf<'pduSessionModificationRequest'>,
): void {
  const s = ctx.table.get(supi, request.pduSessionId);
  const verdict =
    s === undefined || s.state.kind === 'releasing'
      ? { ok: false as const, cause: SM_CAUSE.invalidPduSessionIdentity }
      : judgeModificationRequest(request, s.flow);
  if (s === undefined || !verdict.ok) {
    ctx.amf.sendN1(supi, {
      messageType: 'pduSessionModificationReject',
      pduSessionId: request.pduSessionId,
      pti: request.pti,
      fiveGsmCause: verdict.ok ? SM_CAUSE.requestRejectedUnspecified : verdict.cause,
    });
    return;
  }
  sendModificationCommand(ctx, s, modificationCommand(s.pduSessionId, request.pti, s.ambr, s.flow));
}

/** PDU Session Modification Complete (6.3.2.3): T3591 stops. */
export function modificationCompleted(
  ctx: Pick<SmfContext, 'table'>,
  supi: string,
  pduSessionId: number,
): void {
  const s = ctx.table.get(supi, pduSessionId);
  s?.t3591?.stop();
  if (s !== undefined) s.t3591 = undefined;
}

/** PDU Session Modification Command Reject (6.3.2.4): T3591 stops; #43 (no such session at the UE) releases it locally. */
export function modificationCommandRejected(
  ctx: Pick<SmfContext, 'table' | 'events'>,
  supi: string,
  message: NasMessageOf<'pduSessionModificationCommandReject'>,
): void {
  const s = ctx.table.get(supi, message.pduSessionId);
  if (s === undefined) return;
  s.t3591?.stop();
  s.t3591 = undefined;
  if (message.fiveGsmCause === SM_CAUSE.invalidPduSessionIdentity) releaseLocally(ctx, s);
}

/**
 * Reconfiguration: a profile, policy or slice change re-reads the UE's subscription (TS 24.501 6.3):
 * another pool -> release #39; no policy authorises the session any more, or the subscriber is gone ->
 * #33; another AMBR, 5QI or ARP -> network-requested modification.
 */
export async function reconsider(
  ctx: ModificationContext & Pick<SmfContext, 'subscriptionData' | 'userPlane'>,
  supi: string,
): Promise<void> {
  if (!ctx.table.hasUe(supi)) return;
  const subscription = await ctx.subscriptionData.getSubscriptionData(supi);
  for (const s of ctx.table.ofUe(supi)) {
    if (s.state.kind === 'releasing') continue;
    if (subscription === undefined) {
      releaseByNetwork(ctx, s, SM_CAUSE.requestedServiceOptionNotSubscribed);
      continue;
    }
    const profile: SessionProfile = subscription.profile;
    // network.md 6: another address pool -> release with #39 (reactivation requested).
    if (
      (s.pools.ipv4 !== undefined && s.pools.ipv4 !== profile.ueIpPool) ||
      (s.pools.ipv6 !== undefined && s.pools.ipv6 !== profile.ueIpv6Pool)
    ) {
      releaseByNetwork(ctx, s, SM_CAUSE.reactivationRequested);
      continue;
    }
    const granted = authorise({ pduSessionType: undefined, dnn: s.dnn, sNssai: s.sNssai }, subscription, [
      s.sNssai,
    ]);
    const ambr = granted.ok ? ambrOf(granted.policy) : undefined;
    if (!granted.ok || ambr === undefined) {
      // No policy authorises it any more (TS 23.502 4.3.4.2: the SMF releases it).
      releaseByNetwork(ctx, s, SM_CAUSE.requestedServiceOptionNotSubscribed);
      continue;
    }
    const flow = { qfi: DEFAULT_QFI, fiveQi: granted.policy.var5qi, arp: granted.policy.arp };
    const changed =
      ambr.uplinkBps !== s.ambr.uplinkBps ||
      ambr.downlinkBps !== s.ambr.downlinkBps ||
      flow.fiveQi !== s.flow.fiveQi ||
      flow.arp !== s.flow.arp;
    s.policy = granted.policy;
    if (!changed) {
      publish(ctx, s);
      continue;
    }
    modify(ctx, s, ambr, flow);
  }
}

/**
 * Network-requested modification (TS 24.501 6.3.2, TS 23.502 4.3.3.2): the UPF's AMBR at once, the
 * UE and radio told with Modification Command in PDU Session Resource Modify Request when connected;
 * an idle UE gets the new values with its next reactivation (the setup transfer carries them).
 */
function modify(
  ctx: ModificationContext & Pick<SmfContext, 'userPlane'>,
  s: SmSession,
  ambr: SessionAmbrBps,
  flow: DefaultQosFlow,
): void {
  s.ambr = ambr;
  s.flow = flow;
  const changed = ctx.userPlane?.modifyAmbr(s.resources.upfSessionId, ambr);
  if (changed !== undefined && !changed.ok)
    ctx.logger.error({ supi: s.supi, error: changed.error }, 'SMF: UPF AMBR change failed');
  publish(ctx, s);
  if (s.state.kind !== 'active') return;
  sendModificationCommand(ctx, s, modificationCommand(s.pduSessionId, 0, ambr, flow));
}
