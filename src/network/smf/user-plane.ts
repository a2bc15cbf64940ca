// A PDU session's user plane (docs/sessions.md): set up by the radio, deactivated when the UE goes idle
// (TS 23.502 4.2.6), downlink data paging the UE (4.2.3.3), and reactivated by a Service Request or a
// registration update (4.2.3.2, TS 24.501 5.6.1.4.1, 5.5.1.3.4).
import type { DownlinkTunnel } from '../upf/ports/session-control.ts';
import { setupItem } from './establishment.ts';
import { readSetupResponseTransfer } from './n2-transfers.ts';
import { forget, releaseByNetwork, releaseLocally, type ReleaseContext } from './release.ts';
import { transition, type SmSession } from './session-table.ts';
import { publish } from './session-view.ts';
import { SM_CAUSE } from './sm-cause.ts';
import type { NetworkSessionStatus, UeSessionStatus } from '../amf/ports/session-management.ts';
import type { N2SmItem } from './ports/amf.ts';
import type { SmfContext } from './smf-context.ts';

type UserPlaneContext = ReleaseContext & Pick<SmfContext, 'userPlane'>;

/** PDU Session Resource Setup Response (or the Initial Context Setup item) for one session. */
export function resourcesSetUp(
  ctx: UserPlaneContext,
  supi: string,
  pduSessionId: number,
  transfer: Uint8Array,
): void {
  const { userPlane, logger } = ctx;
  const s = ctx.table.get(supi, pduSessionId);
  if (s === undefined || s.state.kind === 'releasing' || userPlane === undefined) return;
  const read = readSetupResponseTransfer(transfer);
  if (!read.ok) {
    logger.warn({ supi, pduSessionId, error: read.error }, 'SMF: unreadable setup response transfer');
    return releaseByNetwork(ctx, s, SM_CAUSE.networkFailure);
  }
  const downlink: DownlinkTunnel = {
    gnbAddress: read.downlink.address,
    remoteTeid: read.downlink.teid,
    qfi: s.flow.qfi,
  };
  const updated = userPlane.updateDownlink(s.resources.upfSessionId, downlink);
  if (!updated.ok) {
    logger.warn({ supi, pduSessionId, error: updated.error }, 'SMF: the UPF refused the downlink');
    return releaseByNetwork(ctx, s, SM_CAUSE.networkFailure);
  }
  transition(s, { kind: 'active', downlink });
  publish(ctx, s);
}

/**
 * The radio could not set the session's resources up (PDU Session Resource Failed to Setup): the
 * session cannot carry traffic, so it is released (TS 23.502 4.3.2.2.1 step 15, the SMF's choice).
 */
export function resourcesFailed(ctx: ReleaseContext, supi: string, pduSessionId: number): void {
  const s = ctx.table.get(supi, pduSessionId);
  if (s !== undefined) releaseByNetwork(ctx, s, SM_CAUSE.insufficientResources);
}

/** The session's user plane goes down: the UPF buffers its downlink (docs/upf.md), the API shows it inactive. */
export function deactivate(ctx: Pick<SmfContext, 'userPlane' | 'events'>, s: SmSession): void {
  ctx.userPlane?.deactivate(s.resources.upfSessionId);
  transition(s, { kind: 'inactive', downlinkData: false });
  publish(ctx, s);
}

/**
 * The UE's N2 connection ended (AN release, radio loss): every active session's user plane is
 * deactivated (TS 23.502 4.2.6); the sessions, addresses and uplink rules stay. A session still
 * releasing is forgotten (its Complete can no longer come).
 */
export function ueIdle(ctx: Pick<SmfContext, 'table' | 'userPlane' | 'events'>, supi: string): void {
  for (const s of ctx.table.ofUe(supi)) {
    switch (s.state.kind) {
      case 'releasing':
        forget(ctx, s);
        break;
      case 'active':
      case 'setting-up':
        deactivate(ctx, s);
        break;
      case 'inactive':
        break;
    }
  }
}

/**
 * The UPF saw downlink packets for an inactive session (Downlink Data Notification, TS 23.502
 * 4.2.3.3): the AMF pages the UE. The UPF holds the packets (bounded, docs/upf.md "Downlink
 * buffering") and sends them once the reactivated session gives it the gNB's tunnel.
 */
export function downlinkData(ctx: Pick<SmfContext, 'table' | 'amf'>, upfSessionId: number): void {
  const s = ctx.table.byUpfSession(upfSessionId);
  if (s?.state.kind !== 'inactive' || s.state.downlinkData) return;
  transition(s, { kind: 'inactive', downlinkData: ctx.amf.pageForDownlinkData(s.supi) });
}

/**
 * The UE did not answer paging (T3513's last expiry, TS 23.502 4.2.3.3 step 4c): the sessions'
 * downlink data is forgotten (what the UPF buffered expires there), the next packets notify again.
 */
export function pagingFailed(ctx: Pick<SmfContext, 'table'>, supi: string): void {
  for (const s of ctx.table.ofUe(supi))
    if (s.state.kind === 'inactive') transition(s, { kind: 'inactive', downlinkData: false });
}

/**
 * A Service Request (TS 24.501 5.6.1.4.1) or a mobility/periodic Registration Request (5.5.1.3.4):
 * sessions the UE's PDU session status says it no longer has are released locally; the user plane
 * comes back for the sessions of Uplink data status and those the UE was paged for (TS 23.502
 * 4.2.3.2 step 4), their items going in Initial Context Setup Request. Returns what the Accept says
 * (the network's sessions, and the sessions of Uplink data status it does not have) and those items.
 */
export function statusReceived(
  ctx: Pick<SmfContext, 'table' | 'events' | 'userPlane'>,
  supi: string,
  request: UeSessionStatus,
): NetworkSessionStatus {
  for (const s of ctx.table.ofUe(supi)) {
    // A session waiting for Release Complete is gone for the UE too once it reads the status.
    if (s.state.kind === 'releasing') forget(ctx, s);
    else if (request.pduSessionStatus !== undefined && !request.pduSessionStatus.includes(s.pduSessionId))
      releaseLocally(ctx, s);
  }
  const asked = new Set(request.uplinkDataStatus ?? []);
  const left = ctx.table.ofUe(supi).sort((a, b) => a.pduSessionId - b.pduSessionId);
  const reactivate: N2SmItem[] = [];
  for (const s of left) {
    if (s.state.kind !== 'inactive') continue;
    if (ctx.userPlane !== undefined && (asked.has(s.pduSessionId) || s.state.downlinkData)) {
      reactivate.push(setupItem(ctx, s));
      transition(s, { kind: 'setting-up' });
    } else transition(s, { kind: 'inactive', downlinkData: false });
  }
  const have = new Set(left.map((s) => s.pduSessionId));
  return {
    pduSessionStatus: [...have],
    reactivationFailed: [...asked].filter((id) => !have.has(id)).sort((a, b) => a - b),
    reactivate,
  };
}
