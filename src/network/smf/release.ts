// Ending a PDU session (docs/sessions.md): local release (no signalling), network-requested release
// with T3592 (TS 24.501 6.3.3), UE-requested release (6.4.3) and Release Complete.
import { startRetransmissionTimer } from '../common/nas-timer.ts';
import type { NasMessageOf } from '../nas/index.ts';
import type { Cause } from '../ngap/generated/types.ts';
import { releaseCommandTransfer } from './n2-transfers.ts';
import { SM_CAUSE } from './sm-cause.ts';
import { releaseCommand } from './sm-messages.ts';
import type { SmfContext } from './smf-context.ts';
import { transition, userPlaneUp, type SmSession } from './session-table.ts';

/** What ending a session uses. */
export type ReleaseContext = Pick<SmfContext, 'amf' | 'timers' | 'timing' | 'logger' | 'table' | 'events'>;

/** The session leaves the table; its timers stop. */
export function forget(ctx: Pick<SmfContext, 'table'>, s: SmSession): void {
  s.t3591?.stop();
  s.t3591 = undefined;
  if (s.state.kind === 'releasing') s.state.t3592?.stop();
  ctx.table.remove(s);
}

/** Its resources are given back (once) and the API stops showing it. */
function freeResources(ctx: Pick<SmfContext, 'events'>, s: SmSession, keepAddresses = false): void {
  if (s.resources.release(keepAddresses))
    ctx.events.emit('session.released', { supi: s.supi, pduSessionId: s.pduSessionId });
}

/** Local release (no signalling): deregistration, an old session replaced, a failed setup. */
export function releaseLocally(
  ctx: Pick<SmfContext, 'table' | 'events'>,
  s: SmSession,
  keepAddresses = false,
): void {
  freeResources(ctx, s, keepAddresses);
  forget(ctx, s);
}

/**
 * Network-requested release (TS 24.501 6.3.3): Release Command with `cause`, in PDU Session Resource
 * Release Command when the radio holds the session's resources, else alone in DL NAS Transport; T3592
 * retransmits it in DL NAS Transport and its fifth expiry releases the session locally (6.3.3.5 a).
 * A UE in CM-IDLE is not paged for it: the session is released locally and the UE learns it from
 * the PDU session status IE of its next Service Accept (TS 24.501 5.6.1.4.1; TS 23.502 4.3.4.2 lets
 * the SMF skip paging for a release). Resources are freed at once either way.
 */
export function releaseByNetwork(ctx: ReleaseContext, s: SmSession, cause: number, pti = 0): void {
  if (s.state.kind === 'releasing') return;
  const { amf } = ctx;
  const hadRadio = userPlaneUp(s.state);
  freeResources(ctx, s);
  s.t3591?.stop();
  s.t3591 = undefined;
  const n1 = releaseCommand(s.pduSessionId, pti, cause);
  const sent = hadRadio
    ? amf.releaseResources(s.supi, {
        pduSessionId: s.pduSessionId,
        sNssai: s.sNssai,
        transfer: releaseCommandTransfer(ngapCauseFor(cause)),
        n1,
      })
    : amf.sendN1(s.supi, n1);
  if (!sent) {
    transition(s, { kind: 'releasing', t3592: undefined });
    forget(ctx, s);
    return;
  }
  const t3592 = startRetransmissionTimer(
    ctx.timers,
    { ms: ctx.timing.t3592Ms, retransmissions: ctx.timing.retransmissions },
    () => void amf.sendN1(s.supi, n1),
    () => {
      ctx.logger.info({ supi: s.supi, pduSessionId: s.pduSessionId }, 'SMF: T3592 expired, released locally');
      forget(ctx, s);
    },
  );
  transition(s, { kind: 'releasing', t3592 });
}

/** PDU Session Release Request (6.4.3.2): Release Command #36 (regular deactivation). */
export function releaseRequested(
  ctx: ReleaseContext,
  supi: string,
  message: NasMessageOf<'pduSessionReleaseRequest'>,
): void {
  const s = ctx.table.get(supi, message.pduSessionId);
  if (s === undefined || s.state.kind === 'releasing') {
    // 6.4.3.5: no such session -> Release Reject #43 (invalid PDU session identity).
    ctx.amf.sendN1(supi, {
      messageType: 'pduSessionReleaseReject',
      pduSessionId: message.pduSessionId,
      pti: message.pti,
      fiveGsmCause: SM_CAUSE.invalidPduSessionIdentity,
    });
    return;
  }
  releaseByNetwork(ctx, s, SM_CAUSE.regularDeactivation, message.pti);
}

/** PDU Session Release Complete (6.3.3.3): T3592 stops, the session is gone. */
export function releaseCompleted(ctx: Pick<SmfContext, 'table'>, supi: string, pduSessionId: number): void {
  const s = ctx.table.get(supi, pduSessionId);
  if (s?.state.kind === 'releasing') forget(ctx, s);
}

/** Deregistration, the subscriber's deletion, the SMF stopping: every session released locally. */
export function releaseAllLocally(
  ctx: Pick<SmfContext, 'table' | 'events'>,
  sessions: readonly SmSession[],
  keepAddresses = false,
): void {
  for (const s of sessions) releaseLocally(ctx, s, keepAddresses);
}

/** The NGAP cause a PDU session is released with (TS 38.413 9.3.1.2). */
function ngapCauseFor(smCause: number): Cause {
  return smCause === SM_CAUSE.regularDeactivation
    ? { choice: 'nas', value: 'normal-release' }
    : { choice: 'misc', value: 'unspecified' };
}
