// The SMF's side of an intra-AMF N2 handover (TS 23.502 4.9.1.3): preparation (the target's PDU
// Session Resource Setup Request Transfers), the target's answer read (its downlink tunnels), execution
// (each downlink switched to the target, the UPF sending an End Marker down the old path) and cancel;
// indirect data forwarding through the UPF when the source has no direct path to the target.
// Its N2 SM information (TS 38.413 9.3.4.10-9.3.4.20) through the generated codec.
import { decodeComplete, encodeComplete } from '../asn1/complete.ts';
import {
  decodeHandoverRequestAcknowledgeTransfer,
  decodeHandoverRequiredTransfer,
  decodeHandoverResourceAllocationUnsuccessfulTransfer,
  encodeHandoverCommandTransfer,
  encodeHandoverPreparationUnsuccessfulTransfer,
} from '../ngap/generated/codec.ts';
import type { Cause, UPTransportLayerInformation } from '../ngap/generated/types.ts';
import type {
  HandoverCommandLists,
  HandoverPreparation,
  PathSwitchItem,
} from '../amf/ports/session-management.ts';
import type { DownlinkTunnel } from '../upf/ports/session-control.ts';
import { setupItem } from './establishment.ts';
import { tunnelOf, upTransportLayerInformation, type TunnelEndpoint } from './n2-transfers.ts';
import { transition, userPlaneUp } from './session-table.ts';
import { publish } from './session-view.ts';
import type { SmfContext } from './smf-context.ts';
import { deactivate } from './user-plane.ts';

const ALIGNED = true;

/**
 * How long the UPF's indirect forwarding tunnels stay after Handover Notify: the timer TS 23.502
 * 4.9.1.3.3 step 3 leaves to the SMF, long enough for what the source still holds and the End Marker
 * it forwards last (TS 38.300 9.2.3.3: the source forwards until it has sent that End Marker).
 */
export const INDIRECT_FORWARDING_HOLD_MS = 3_000;

/** Handover Preparation Unsuccessful Transfer (9.3.4.18): why a session does not go to the target. */
function handoverPreparationUnsuccessfulTransfer(cause: Cause): Uint8Array {
  return encodeComplete({ cause }, ALIGNED, encodeHandoverPreparationUnsuccessfulTransfer);
}

/** Where the source forwards a session's downlink during the handover: the target or the UPF. */
interface Forwarding {
  tunnel: UPTransportLayerInformation;
  qfis: number[];
}

/** The target's DL forwarding tunnel as offered, and as an address and TEID. */
interface Offered extends Forwarding {
  endpoint: TunnelEndpoint;
}

/**
 * Handover Command Transfer (9.3.4.10): the target's DL forwarding tunnel and the QoS flows it accepted
 * to forward, when the source has a direct path to it (TS 23.502 4.9.1.3.2 step 11); else no IE.
 */
function handoverCommandTransfer(forwarding: Forwarding | undefined): Uint8Array {
  return encodeComplete(
    forwarding === undefined
      ? {}
      : {
          dLForwardingUPTNLInformation: forwarding.tunnel,
          qosFlowToBeForwardedList: forwarding.qfis.map((qosFlowIdentifier) => ({ qosFlowIdentifier })),
        },
    ALIGNED,
    encodeHandoverCommandTransfer,
  );
}

/**
 * The target's downlink tunnel from Handover Request Acknowledge Transfer (9.3.4.11), and its DL
 * forwarding tunnel with the flows it accepts to forward, if it offers one; never throws.
 */
function targetAnswer(
  bytes: Uint8Array,
): { tunnel: TunnelEndpoint; forwarding: Offered | undefined } | undefined {
  const decoded = decodeComplete(bytes, ALIGNED, decodeHandoverRequestAcknowledgeTransfer);
  if (!decoded.ok) return undefined;
  const tunnel = tunnelOf(decoded.value.dLNGUUPTNLInformation);
  if (tunnel === undefined) return undefined;
  const offered = decoded.value.dLForwardingUPTNLInformation;
  const qfis = decoded.value.qosFlowSetupResponseList
    .filter((flow) => flow.dataForwardingAccepted === 'data-forwarding-accepted')
    .map((flow) => flow.qosFlowIdentifier);
  const endpoint = offered === undefined ? undefined : tunnelOf(offered);
  const forwarding =
    offered === undefined || endpoint === undefined || qfis.length === 0
      ? undefined
      : { tunnel: offered, endpoint, qfis };
  return { tunnel, forwarding };
}

/** The target's cause in Handover Resource Allocation Unsuccessful Transfer (9.3.4.20), when it reads. */
function targetCause(bytes: Uint8Array): Cause {
  const decoded = decodeComplete(bytes, ALIGNED, decodeHandoverResourceAllocationUnsuccessfulTransfer);
  return decoded.ok ? decoded.value.cause : { choice: 'misc', value: 'unspecified' };
}

type HandoverContext = Pick<SmfContext, 'table' | 'userPlane' | 'events' | 'logger' | 'timers'>;

/**
 * One SMF's handovers in progress: per UE, the sessions prepared for the target and, once the target
 * answered, the downlink tunnel it gave each. A UE has at most one (the AMF serves one at a time); what
 * is kept goes at execution or cancel.
 */
/**
 * A session prepared for the target: whether the source has a direct path, then the target's tunnel
 * and, with indirect forwarding, the UPF session whose forwarding tunnel was made for it.
 */
interface Kept {
  direct: boolean;
  downlink: DownlinkTunnel | undefined;
  forwardingAt: { upfSessionId: number; made: number } | undefined;
}

export function createSmfHandovers(ctx: HandoverContext) {
  const prepared = new Map<string, Map<number, Kept>>();
  /**
   * UPF sessions with a forwarding tunnel, each with the number of its making: a handover back within
   * the hold replaces the tunnel, which the first one's timer must then leave.
   */
  const forwarding = new Map<number, number>();
  let made = 0;
  const indirect = ctx.userPlane?.createForwarding !== undefined;

  const unforward = ({ upfSessionId, made }: NonNullable<Kept['forwardingAt']>): void => {
    if (forwarding.get(upfSessionId) !== made) return;
    forwarding.delete(upfSessionId);
    // A session released meanwhile took its tunnel with it (unknown-session): nothing is left.
    ctx.userPlane?.removeForwarding?.(upfSessionId);
  };
  /** The forwarding tunnels of a handover that ends: now, or after the hold once the UE moved. */
  const dropForwarding = (kept: Map<number, Kept> | undefined, hold: boolean): void => {
    const ids = [...(kept?.values() ?? [])].flatMap((k) =>
      k.forwardingAt === undefined ? [] : [k.forwardingAt],
    );
    if (ids.length === 0) return;
    if (!hold) for (const id of ids) unforward(id);
    else ctx.timers.after(INDIRECT_FORWARDING_HOLD_MS, () => ids.forEach(unforward));
  };

  /**
   * With indirect forwarding (4.9.1.3.2 step 11): a UPF forwarding tunnel towards the target's DL
   * forwarding tunnel, given to the source in its place; undefined when the UPF refuses (no forwarding).
   */
  const forwardThroughUpf = (
    supi: string,
    kept: Kept,
    upfSessionId: number,
    offered: Offered,
    qfi: number,
  ): Forwarding | undefined => {
    // The session's QoS flow (one per session here): what the forwarded packets' PDU Session Container
    // carries when the source sent none (TS 38.415 5.5.2.1).
    const tunnel = ctx.userPlane?.createForwarding?.(upfSessionId, {
      gnbAddress: offered.endpoint.address,
      remoteTeid: offered.endpoint.teid,
      qfi,
    });
    if (tunnel?.ok !== true || ctx.userPlane === undefined) {
      ctx.logger.warn(
        { supi, error: tunnel?.ok === false ? tunnel.error : 'unsupported' },
        'SMF: no indirect forwarding tunnel',
      );
      return undefined;
    }
    made += 1;
    forwarding.set(upfSessionId, made);
    kept.forwardingAt = { upfSessionId, made };
    return {
      tunnel: upTransportLayerInformation({ address: ctx.userPlane.n3Address, teid: tunnel.value }),
      qfis: offered.qfis,
    };
  };

  return {
    /**
     * Handover Required (TS 23.502 4.9.1.3.2 step 3-4): each session whose user plane is active and whose
     * Handover Required Transfer (9.3.4.14) reads goes to the target with the setup transfer of its UPF
     * tunnel (the UPF keeps its N3 address and uplink TEID: no new UPF, 4.9.1.3.2 step 4 without I-UPF),
     * saying whether the source has a direct forwarding path; without one, forwarding goes through the
     * UPF (indirect) where it can forward, else data forwarding is not possible. The others do not go
     * (an unknown or inactive session, an unreadable transfer).
     */
    required(supi: string, items: readonly PathSwitchItem[]): HandoverPreparation {
      const answer: HandoverPreparation = { toSetUp: [], notHandedOver: [] };
      // A preparation asked again replaces the last one, and whatever forwarding it made.
      dropForwarding(prepared.get(supi), false);
      const kept = new Map<number, Kept>();
      for (const { pduSessionId, transfer } of items) {
        const s = ctx.table.get(supi, pduSessionId);
        const read = decodeComplete(transfer, ALIGNED, decodeHandoverRequiredTransfer);
        let cause: Cause | undefined;
        if (s?.state.kind !== 'active') cause = { choice: 'radioNetwork', value: 'unknown-PDU-session-ID' };
        else if (!read.ok) cause = { choice: 'protocol', value: 'semantic-error' };
        else if (ctx.userPlane === undefined)
          cause = { choice: 'misc', value: 'not-enough-user-plane-processing-resources' };
        if (s === undefined || cause !== undefined || kept.has(pduSessionId)) {
          answer.notHandedOver.push({
            pduSessionId,
            transfer: handoverPreparationUnsuccessfulTransfer(
              cause ?? { choice: 'radioNetwork', value: 'multiple-PDU-session-ID-instances' },
            ),
          });
          continue;
        }
        const direct = read.ok && read.value.directForwardingPathAvailability === 'direct-path-available';
        kept.set(pduSessionId, { direct, downlink: undefined, forwardingAt: undefined });
        // Indirect: neither IE (9.3.4.1), so the target may offer a DL forwarding tunnel.
        answer.toSetUp.push(
          setupItem(ctx, s, direct ? 'direct-path-available' : indirect ? undefined : 'not-possible'),
        );
      }
      if (kept.size > 0) prepared.set(supi, kept);
      else prepared.delete(supi);
      return answer;
    },

    /**
     * Handover Request Acknowledge (4.9.1.3.2 steps 9-10): an admitted session's target tunnel is kept
     * for execution and it gets a Handover Command Transfer; a session the target failed, or one whose
     * transfer does not read, goes to the To Release list (its user plane is deactivated at execution).
     */
    acknowledged(
      supi: string,
      admitted: readonly PathSwitchItem[],
      failed: readonly PathSwitchItem[],
    ): HandoverCommandLists {
      const answer: HandoverCommandLists = { handedOver: [], toRelease: [] };
      const kept = prepared.get(supi);
      for (const { pduSessionId, transfer } of admitted) {
        const session = kept?.get(pduSessionId);
        const target = session === undefined ? undefined : targetAnswer(transfer);
        const s = ctx.table.get(supi, pduSessionId);
        if (target === undefined || s === undefined || session === undefined) {
          kept?.delete(pduSessionId);
          answer.toRelease.push({
            pduSessionId,
            transfer: handoverPreparationUnsuccessfulTransfer({
              choice: 'protocol',
              value: 'semantic-error',
            }),
          });
          continue;
        }
        session.downlink = {
          gnbAddress: target.tunnel.address,
          remoteTeid: target.tunnel.teid,
          qfi: s.flow.qfi,
        };
        // Direct: the source forwards to the target's tunnel; indirect: to the UPF's, which sends on to
        // it. One offered though the SMF said forwarding was not possible is unused.
        const forwarding =
          target.forwarding === undefined
            ? undefined
            : session.direct
              ? target.forwarding
              : indirect
                ? forwardThroughUpf(supi, session, s.resources.upfSessionId, target.forwarding, s.flow.qfi)
                : undefined;
        answer.handedOver.push({ pduSessionId, transfer: handoverCommandTransfer(forwarding) });
      }
      for (const { pduSessionId, transfer } of failed) {
        kept?.delete(pduSessionId);
        answer.toRelease.push({
          pduSessionId,
          transfer: handoverPreparationUnsuccessfulTransfer(targetCause(transfer)),
        });
      }
      // Sessions the target named in neither list were not admitted either (TS 38.413 8.4.2.2).
      if (kept !== undefined)
        for (const [id, { downlink }] of kept) if (downlink === undefined) kept.delete(id);
      return answer;
    },

    /**
     * Handover Notify (4.9.1.3.3 steps 3-5): each admitted session's downlink moves to the target's
     * tunnel (the UPF sends an End Marker on the old path, TS 29.281 7.3.2); a session the UPF refuses,
     * and every other session whose user plane was up, is deactivated (a Service Request brings it back).
     */
    executed(supi: string): void {
      const kept = prepared.get(supi);
      prepared.delete(supi);
      // The source still forwards what it holds, the End Marker last: the tunnels stay a while.
      dropForwarding(kept, true);
      for (const s of ctx.table.ofUe(supi)) {
        if (!userPlaneUp(s.state)) continue;
        const downlink = kept?.get(s.pduSessionId)?.downlink;
        const moved =
          downlink === undefined
            ? undefined
            : ctx.userPlane?.updateDownlink(s.resources.upfSessionId, downlink);
        if (downlink !== undefined && moved?.ok === true) {
          transition(s, { kind: 'active', downlink });
          publish(ctx, s);
          continue;
        }
        if (downlink !== undefined)
          ctx.logger.warn(
            { supi, pduSessionId: s.pduSessionId },
            'SMF: the UPF refused the handed-over downlink',
          );
        deactivate(ctx, s);
      }
    },

    /** Handover cancelled or failed (4.9.1.4): the sessions stay on the source, forwarding goes now. */
    cancelled(supi: string): void {
      dropForwarding(prepared.get(supi), false);
      prepared.delete(supi);
    },

    /** UEs with a handover kept (tests: nothing leaks after a failure path). */
    inProgress: (): number => prepared.size,
  };
}
