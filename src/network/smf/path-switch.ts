// The SMF's side of an Xn handover (TS 23.502 4.9.1.2.2): `pathSwitched`, and its N2 SM information
// (TS 38.413 9.3.4.8-9.3.4.10): the target gNB's new downlink tunnel read from Path Switch Request
// Transfer, and the containers the AMF returns per session in Path Switch Request Acknowledge or Failure.
import { decodeComplete, encodeComplete } from '../asn1/complete.ts';
import {
  decodePathSwitchRequestTransfer,
  encodePathSwitchRequestAcknowledgeTransfer,
} from '../ngap/generated/codec.ts';
import type { Cause } from '../ngap/generated/types.ts';
import { pathSwitchUnsuccessfulTransfer } from '../ngap/path-switch-unsuccessful-transfer.ts';
import type { DownlinkTunnel } from '../upf/ports/session-control.ts';
import { tunnelOf, type TunnelEndpoint } from './n2-transfers.ts';
import { transition, userPlaneUp, type SmSession } from './session-table.ts';
import { publish } from './session-view.ts';
import type { PathSwitchItem, PathSwitchOutcome } from '../amf/ports/session-management.ts';
import type { SmfContext } from './smf-context.ts';
import { deactivate } from './user-plane.ts';

const ALIGNED = true;

/**
 * The target gNB's downlink tunnel from Path Switch Request Transfer (9.3.4.8), or why there is none;
 * never throws (the container comes from the radio).
 */
export function readPathSwitchRequestTransfer(
  bytes: Uint8Array,
): { ok: true; downlink: TunnelEndpoint } | { ok: false; error: string } {
  const decoded = decodeComplete(bytes, ALIGNED, decodePathSwitchRequestTransfer);
  if (!decoded.ok) return decoded;
  const downlink = tunnelOf(decoded.value.dLNGUUPTNLInformation);
  return downlink === undefined ? { ok: false, error: 'no usable GTP tunnel' } : { ok: true, downlink };
}

/**
 * Path Switch Request Acknowledge Transfer (9.3.4.9) with no IE: the UL NG-U UP TNL Information is
 * sent only when the uplink tunnel changes (TS 23.502 4.9.1.2.2 step 2), and the UPF keeps its N3
 * address and the session's uplink TEID across the switch.
 */
export function pathSwitchAcknowledgeTransfer(): Uint8Array {
  return encodeComplete({}, ALIGNED, encodePathSwitchRequestAcknowledgeTransfer);
}

/**
 * Xn handover's path switch (TS 23.502 4.9.1.2.2 steps 1-3): each session of the To Be Switched list
 * whose user plane is up gets its downlink moved to the target gNB's tunnel (the UPF sends an End
 * Marker down the old one, TS 29.281 7.3.2) and goes in the Switched list; one the SMF does not
 * hold up, whose transfer does not read, or the UPF refuses goes in the Released list, its user
 * plane deactivated. Sessions the target did not list (its Failed To Setup list, or none) lose their
 * user plane too (deactivated; a Service Request brings it back).
 */
export function pathSwitched(
  ctx: Pick<SmfContext, 'table' | 'userPlane' | 'events' | 'logger'>,
  supi: string,
  toBeSwitched: readonly PathSwitchItem[],
): PathSwitchOutcome {
  const outcome: PathSwitchOutcome = { switched: [], released: [] };
  const switchOne = (s: SmSession | undefined, transfer: Uint8Array): Cause | undefined => {
    if (s === undefined || !userPlaneUp(s.state))
      return { choice: 'radioNetwork', value: 'unknown-PDU-session-ID' };
    const read = readPathSwitchRequestTransfer(transfer);
    if (!read.ok) return { choice: 'protocol', value: 'semantic-error' };
    const downlink: DownlinkTunnel = {
      gnbAddress: read.downlink.address,
      remoteTeid: read.downlink.teid,
      qfi: s.flow.qfi,
    };
    const moved = ctx.userPlane?.updateDownlink(s.resources.upfSessionId, downlink);
    if (moved?.ok !== true) {
      ctx.logger.warn({ supi, pduSessionId: s.pduSessionId }, 'SMF: the UPF refused the switched downlink');
      return { choice: 'misc', value: 'not-enough-user-plane-processing-resources' };
    }
    transition(s, { kind: 'active', downlink });
    publish(ctx, s);
    return undefined;
  };
  for (const { pduSessionId, transfer } of toBeSwitched) {
    const s = ctx.table.get(supi, pduSessionId);
    const cause = switchOne(s, transfer);
    if (cause === undefined) {
      outcome.switched.push({ pduSessionId, transfer: pathSwitchAcknowledgeTransfer() });
      continue;
    }
    if (s !== undefined && userPlaneUp(s.state)) deactivate(ctx, s);
    outcome.released.push({ pduSessionId, transfer: pathSwitchUnsuccessfulTransfer(cause) });
  }
  const listed = new Set(toBeSwitched.map((item) => item.pduSessionId));
  for (const s of ctx.table.ofUe(supi))
    if (!listed.has(s.pduSessionId) && userPlaneUp(s.state)) deactivate(ctx, s);
  return outcome;
}
