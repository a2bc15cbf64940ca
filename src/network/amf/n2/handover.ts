import { plmnOf } from '../../common/plmn-identity.ts';
import type {
  Cause,
  PDUSessionResourceSetupListHOReq,
  TargetID,
  UEAggregateMaximumBitRate,
} from '../../ngap/generated/types.ts';
import { nextHop, type NhChain } from '../../security/handover-keys.ts';
import { guami } from '../context/amf-identity.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { connectionOf, contextSetUp, enterConnected, markContextSetUp } from '../context/cm-state.ts';
import { isRegistered } from '../context/gmm-state.ts';
import { streamFor, type UeConnection } from '../context/ue-connections.ts';
import type { PathSwitchItem } from '../ports/session-management.ts';
import { enterPhase, type HandoverPhase } from './handover-state.ts';
import {
  downlinkRanStatusTransfer,
  handoverCancelAcknowledge,
  handoverCommand,
  handoverPreparationFailure,
  handoverRequest,
} from './handover-messages.ts';
import { ngapAllowedNssai, ngapSecurityCapabilities } from './ngap-ue-values.ts';
import { ranNodeOf } from './ran-node.ts';
import { ngapSnssai } from './session-ngap-messages.ts';
import { ueAmbrOf } from './ue-context-modification.ts';
import type { HandoverEndpoint, ReceivedHandoverRequired } from './ue-ngap.ts';
import type { RadioLink } from './ue-signalling.ts';

/** The parts of the AMF context this procedure uses. */
type HandoverAmf = Pick<
  AmfContext,
  | 'logger'
  | 'ngap'
  | 'smf'
  | 'ueContexts'
  | 'timers'
  | 'identity'
  | 'network'
  | 'subscriptionData'
  | 'ues'
  | 'accessKeyChanging'
>;

/**
 * How long the AMF waits for the target (from Handover Required to its Acknowledge or Failure) and for
 * the UE to arrive there (from Handover Command to Handover Notify). TS 38.413 8.4.1.2 gives the
 * source node TNGRELOCprep and TNGRELOCoverall for these; the AMF guards the same steps so that a silent
 * target holds nothing, and answers with their causes.
 */
export interface HandoverTiming {
  preparationMs: number;
  executionMs: number;
}

const DEFAULT_HANDOVER_TIMING: HandoverTiming = { preparationMs: 10_000, executionMs: 10_000 };

type Connection = UeConnection<AmfUe>;

interface N2Handover {
  readonly ue: AmfUe;
  readonly supi: string;
  readonly source: Connection;
  readonly target: RadioLink;
  /** The target connection's AMF UE NGAP ID, reserved until its Acknowledge opens the connection. */
  readonly targetAmfUeNgapId: number;
  readonly message: ReceivedHandoverRequired;
  /** Sessions the SMF did not hand over, for the Command's To Release list. */
  notHandedOver: PathSwitchItem[];
  /** The {NH, NCC} given to the target. */
  next: NhChain | undefined;
  phase: HandoverPhase<Connection>;
  stopGuard: () => void;
}

const cause = {
  notInState: { choice: 'protocol', value: 'message-not-compatible-with-receiver-state' },
  targetNotAllowed: { choice: 'radioNetwork', value: 'ho-target-not-allowed' },
  unknownTarget: { choice: 'radioNetwork', value: 'unknown-targetID' },
  failureInTarget: { choice: 'radioNetwork', value: 'ho-failure-in-target-5GC-ngran-node-or-target-system' },
  overload: { choice: 'misc', value: 'control-processing-overload' },
  prepExpiry: { choice: 'radioNetwork', value: 'tngrelocprep-expiry' },
  overallExpiry: { choice: 'radioNetwork', value: 'tngrelocoverall-expiry' },
  cancelled: { choice: 'radioNetwork', value: 'handover-cancelled' },
  keyChanging: { choice: 'radioNetwork', value: 'interaction-with-other-procedure' },
  successful: { choice: 'radioNetwork', value: 'successful-handover' },
} as const satisfies Record<string, Cause>;

const idsOf = (connection: Connection) => ({
  amfUeNgapId: connection.amfUeNgapId,
  ranUeNgapId: connection.ranUeNgapId,
});

/**
 * The target radio a Handover Required names (TS 38.413 9.3.1.25): a gNB or ng-eNB connected to this
 * AMF that serves the selected TAI, or the cause of Handover Preparation Failure: an E-UTRAN target
 * (inter-system, not served) or a TAI the node does not serve -> `ho-target-not-allowed`; a node not
 * connected here -> `unknown-targetID`.
 */
function targetOf(amf: HandoverAmf, targetId: TargetID): RadioLink | Cause {
  if (targetId.choice !== 'targetRANNodeID') return cause.targetNotAllowed;
  const node = ranNodeOf(targetId.value.globalRANNodeID);
  const radio = node === undefined ? undefined : amf.ngap.radio(node.id);
  if (radio === undefined) return cause.unknownTarget;
  const { selectedTAI } = targetId.value;
  const plmn = plmnOf(selectedTAI.pLMNIdentity);
  const tac = Buffer.from(selectedTAI.tAC).readUIntBE(0, selectedTAI.tAC.length || 1);
  const served = radio.supportedTais.some(
    ({ tai }) =>
      plmn !== undefined &&
      tai.plmnID.mcc === plmn.mcc &&
      tai.plmnID.mnc === plmn.mnc &&
      parseInt(tai.tac, 16) === tac,
  );
  return served ? radio : cause.targetNotAllowed;
}

/**
 * Intra-AMF N2 handover, the AMF's part (TS 23.502 4.9.1.3; TS 38.413 8.4.1-8.4.6): Handover Required
 * from the source -> the SMF's target transfers -> Handover Request to the target with the next {NH,
 * NCC} (TS 33.501 6.9.2.3.3), the UE security capabilities and the subscribed UE-AMBR -> Handover
 * Request Acknowledge -> Handover Command to the source (or Handover Preparation Failure) -> Uplink RAN
 * Status Transfer relayed -> Handover Notify: the SMF switches the downlinks, the UE is served by the
 * target's connection, the source's is released (successful-handover). Handover Cancel at any step
 * releases what the target holds. One handover at a time per UE.
 */
export function createHandover(
  amf: HandoverAmf,
  timing: HandoverTiming = DEFAULT_HANDOVER_TIMING,
): HandoverEndpoint<AmfUe> & { inProgress(): number; handingOver(supi: string): boolean } {
  const bySource = new Map<Connection, N2Handover>();
  const byTarget = new Map<number, N2Handover>();
  /**
   * A source released by a completed handover, to the target that took its UE: the source's Uplink RAN
   * Status Transfer may reach the AMF after the target's Handover Notify (two associations; the UE can
   * be quicker than the source's status), and it still goes to the target (TS 38.413 8.4.6).
   */
  const handedOverTo = new WeakMap<Connection, Connection>();

  const failPreparation = (source: Connection, why: Cause): void =>
    void source.radio.send(handoverPreparationFailure(idsOf(source), why), source.streamId);

  /**
   * The handover ends: its guard stops, the reservation goes, and the SMF forgets it unless `executed`
   * or cancelled already (a cancelled one is no longer the UE's: another may have started).
   */
  function end(h: N2Handover, executed = false): void {
    h.stopGuard();
    if (h.phase.kind === 'preparing' || h.phase.kind === 'cancelled')
      amf.ngap.unreserveConnection(h.targetAmfUeNgapId);
    enterPhase(h, { kind: 'ended' });
    byTarget.delete(h.targetAmfUeNgapId);
    if (bySource.get(h.source) !== h) return;
    bySource.delete(h.source);
    if (!executed) amf.smf?.handoverCancelled(h.supi);
  }

  /** The target a completed handover took `source`'s UE to, while it still serves the UE. */
  function servingTarget(source: Connection): Connection | undefined {
    const target = handedOverTo.get(source);
    return target?.phase === 'active' && target.owner !== undefined ? target : undefined;
  }

  /** One handover at a time per UE: the SMF keeps one per SUPI. */
  const handingOver = (supi: string): boolean => [...bySource.values()].some((h) => h.supi === supi);

  /** The target's connection goes (UE Context Release Command, TS 38.413 8.3.3) with `why`. */
  const releaseTarget = (target: Connection, why: Cause): void => amf.ngap.release(target, why);

  function guard(h: N2Handover, ms: number, expired: () => void): void {
    h.stopGuard();
    h.stopGuard = amf.timers.after(ms, expired);
  }

  function preparationExpired(h: N2Handover): void {
    if (h.phase.kind === 'cancelled') return end(h);
    amf.logger.info({ supi: h.supi, target: h.target.name }, 'AMF: no answer to Handover Request');
    failPreparation(h.source, cause.prepExpiry);
    end(h);
  }

  function executionExpired(h: N2Handover): void {
    if (h.phase.kind !== 'prepared') return end(h);
    amf.logger.info({ supi: h.supi, target: h.target.name }, 'AMF: no Handover Notify from the target');
    const { target } = h.phase;
    end(h);
    releaseTarget(target, cause.overallExpiry);
  }

  /**
   * The UE-AMBR for the target (TS 23.502 4.9.1.3.2 step 9): the one the UE context holds, which the
   * source radio was given and a profile change updates (ue-context-modification.ts); read from the
   * subscription only for a context that holds none (one restored from the store). No read per handover.
   */
  async function ueAmbr(h: N2Handover): Promise<UEAggregateMaximumBitRate | undefined> {
    if (h.ue.ueAmbr !== undefined) return h.ue.ueAmbr;
    const subscription = await amf.subscriptionData.getSubscriptionData(h.supi);
    return subscription === undefined ? undefined : ueAmbrOf(subscription.profile);
  }

  /** Handover Request once the UE-AMBR and the GUAMI's PLMN are known; nothing if the handover ended. */
  async function request(h: N2Handover, sessions: PDUSessionResourceSetupListHOReq): Promise<void> {
    const [{ configuration }, ambr] = await Promise.all([amf.network(), ueAmbr(h)]);
    if (bySource.get(h.source) !== h || h.phase.kind !== 'preparing') return;
    const security = h.ue.security;
    const chain = h.source.accessKeys;
    const capability = h.ue.ueSecurityCapability;
    // The UE may have left the source's connection while the subscription was read.
    if (
      security === undefined ||
      chain === undefined ||
      capability === undefined ||
      connectionOf(h.ue) !== h.source
    ) {
      failPreparation(h.source, cause.notInState);
      return end(h);
    }
    if (ambr === undefined) {
      failPreparation(h.source, cause.failureInTarget);
      return end(h);
    }
    // TS 33.501 6.9.2.3.3: a fresh NH for the target; the AMF's chain moves on whatever follows.
    const next = nextHop(security.kamf, chain);
    h.source.accessKeys = next;
    h.next = next;
    const sent = h.target.send(
      handoverRequest(h.targetAmfUeNgapId, {
        handoverType: h.message.handoverType,
        cause: h.message.cause ?? { choice: 'radioNetwork', value: 'unspecified' },
        ueAggregateMaximumBitRate: ambr,
        ueSecurityCapabilities: ngapSecurityCapabilities(capability),
        securityContext: next,
        sessions,
        allowedNssai: ngapAllowedNssai(h.ue.allowedNssai),
        sourceToTargetTransparentContainer: h.message.sourceToTargetTransparentContainer,
        guami: guami(amf.identity, configuration.plmn),
        inactiveAssistance: h.ue.inactiveAssistance,
      }),
      streamFor(h.targetAmfUeNgapId, h.target),
    );
    if (!sent) {
      failPreparation(h.source, cause.failureInTarget);
      return end(h);
    }
    enterPhase(h, { kind: 'preparing', requested: true });
  }

  return {
    required(source, message) {
      const ue = source.owner;
      const supi = ue?.supi;
      // TS 38.413 10.4: a UE whose context the radio does not hold, or one already being handed over.
      if (
        ue === undefined ||
        supi === undefined ||
        connectionOf(ue) !== source ||
        !contextSetUp(ue) ||
        !isRegistered(ue) ||
        ue.security?.status !== 'current' ||
        source.phase !== 'active' ||
        handingOver(supi)
      )
        return failPreparation(source, cause.notInState);
      // TS 33.501 6.9.5: no {NH, NCC} while the UE's AS key changes (the re-keying's Security Mode Command
      // out, or the new KgNB not yet answered): neither the radio's key nor the UE's would follow the
      // chain. The source may try again once the UE Context Modification is answered.
      if (amf.accessKeyChanging(ue)) return failPreparation(source, cause.keyChanging);
      // A cancelled preparation of the UE's still waiting for the target goes now: at most one is held
      // per UE besides the current one (a late answer to it gets Error Indication, TS 38.413 10.6).
      for (const old of [...byTarget.values()])
        if (old.supi === supi && old.phase.kind === 'cancelled') end(old);
      // Only NG-RAN to NG-RAN (intra5gs) is served; EPS and the others need an MME or N26.
      if (message.handoverType !== 'intra5gs') return failPreparation(source, cause.targetNotAllowed);
      const target = targetOf(amf, message.targetId);
      if (!('send' in target)) return failPreparation(source, target);
      const targetAmfUeNgapId = amf.ngap.reserveConnection();
      if (targetAmfUeNgapId === undefined) return failPreparation(source, cause.overload);
      const smf = amf.smf;
      const prepared = smf?.handoverRequired(
        supi,
        message.pduSessionResourceListHoRqd.map((item) => ({
          pduSessionId: item.pDUSessionID,
          transfer: item.handoverRequiredTransfer,
        })),
      );
      const h: N2Handover = {
        ue,
        supi,
        source,
        target,
        targetAmfUeNgapId,
        message,
        notHandedOver: prepared?.notHandedOver ?? [],
        next: undefined,
        phase: { kind: 'preparing', requested: false },
        stopGuard: () => undefined,
      };
      bySource.set(source, h);
      byTarget.set(targetAmfUeNgapId, h);
      // Handover Request needs one session at least (9.2.3.4): none the SMF can hand over -> failure.
      if (prepared === undefined || prepared.toSetUp.length === 0) {
        failPreparation(source, cause.failureInTarget);
        return end(h);
      }
      guard(h, timing.preparationMs, () => preparationExpired(h));
      const sessions = prepared.toSetUp.map((item) => ({
        pDUSessionID: item.pduSessionId,
        sNSSAI: ngapSnssai(item.sNssai),
        handoverRequestTransfer: item.transfer,
      }));
      request(h, sessions).catch((error: unknown) => {
        amf.logger.error({ err: error, supi }, 'AMF: Handover Request could not be prepared');
        if (bySource.get(h.source) !== h) return;
        failPreparation(source, cause.failureInTarget);
        end(h);
      });
    },

    acknowledged(message, radio) {
      const h = message.amfUeNgapId === undefined ? undefined : byTarget.get(message.amfUeNgapId);
      const ranUeNgapId = message.ranUeNgapId;
      if (h === undefined || h.target.id !== radio.id || ranUeNgapId === undefined) return false;
      if (h.phase.kind === 'cancelled') {
        const late = amf.ngap.openHandoverTarget(h.targetAmfUeNgapId, radio, ranUeNgapId);
        end(h);
        if (late !== undefined) releaseTarget(late, cause.cancelled);
        return true;
      }
      if (h.phase.kind !== 'preparing' || !h.phase.requested) return false;
      const target = amf.ngap.openHandoverTarget(h.targetAmfUeNgapId, radio, ranUeNgapId);
      if (target === undefined) {
        failPreparation(h.source, cause.failureInTarget);
        end(h);
        return true;
      }
      target.accessKeys = h.next;
      const lists = amf.smf?.handoverAcknowledged(
        h.supi,
        (message.pduSessionResourceAdmittedList ?? []).map((item) => ({
          pduSessionId: item.pDUSessionID,
          transfer: item.handoverRequestAcknowledgeTransfer,
        })),
        (message.pduSessionResourceFailedToSetupListHoAck ?? []).map((item) => ({
          pduSessionId: item.pDUSessionID,
          transfer: item.handoverResourceAllocationUnsuccessfulTransfer,
        })),
      ) ?? { handedOver: [], toRelease: [] };
      // Not one session the SMF can switch: the handover cannot carry the UE's traffic.
      if (lists.handedOver.length === 0) {
        failPreparation(h.source, cause.failureInTarget);
        enterPhase(h, { kind: 'prepared', target });
        end(h);
        releaseTarget(target, cause.failureInTarget);
        return true;
      }
      const sent = h.source.radio.send(
        handoverCommand(idsOf(h.source), {
          handoverType: h.message.handoverType,
          handedOver: lists.handedOver.map((item) => ({
            pDUSessionID: item.pduSessionId,
            handoverCommandTransfer: item.transfer,
          })),
          toRelease: [...h.notHandedOver, ...lists.toRelease].map((item) => ({
            pDUSessionID: item.pduSessionId,
            handoverPreparationUnsuccessfulTransfer: item.transfer,
          })),
          targetToSourceTransparentContainer: message.targetToSourceTransparentContainer,
        }),
        h.source.streamId,
      );
      enterPhase(h, { kind: 'prepared', target });
      if (!sent) {
        end(h);
        releaseTarget(target, cause.failureInTarget);
        return true;
      }
      guard(h, timing.executionMs, () => executionExpired(h));
      return true;
    },

    failed(message, radio) {
      const h = message.amfUeNgapId === undefined ? undefined : byTarget.get(message.amfUeNgapId);
      if (h === undefined || h.target.id !== radio.id || h.phase.kind === 'prepared') return false;
      if (h.phase.kind === 'preparing') {
        amf.logger.info({ supi: h.supi, target: radio.name, cause: message.cause }, 'AMF: Handover Failure');
        // TS 23.502 4.9.1.3.2: the target could not prepare; the source hears why.
        failPreparation(h.source, message.cause ?? cause.failureInTarget);
      }
      end(h);
      return true;
    },

    cancel(source, _message) {
      source.radio.send(handoverCancelAcknowledge(idsOf(source)), source.streamId);
      const h = bySource.get(source);
      if (h === undefined) return;
      switch (h.phase.kind) {
        case 'preparing':
          if (!h.phase.requested) return end(h);
          // The target may still answer: its context is released then, or when the guard expires. The
          // source may start another handover meanwhile.
          amf.smf?.handoverCancelled(h.supi);
          bySource.delete(source);
          return enterPhase(h, { kind: 'cancelled' });
        case 'prepared': {
          const { target } = h.phase;
          end(h);
          return releaseTarget(target, cause.cancelled);
        }
        case 'cancelled':
        case 'ended':
          return;
      }
    },

    uplinkStatus(source, message) {
      const h = bySource.get(source);
      const target = h?.phase.kind === 'prepared' ? h.phase.target : servingTarget(source);
      if (target === undefined) return false;
      // TS 38.413 8.4.6, 8.4.7: the container goes to the target unchanged.
      target.radio.send(
        downlinkRanStatusTransfer(idsOf(target), message.ranStatusTransferTransparentContainer),
        target.streamId,
      );
      return true;
    },

    notified(target) {
      const h = byTarget.get(target.amfUeNgapId);
      if (h?.phase.kind !== 'prepared' || h.phase.target !== target) return false;
      const { ue, source } = h;
      if (!amf.ues.has(ue) || connectionOf(ue) !== source) {
        // The UE left the source's connection meanwhile (released, radio lost): nothing to switch.
        end(h);
        releaseTarget(target, cause.failureInTarget);
        return true;
      }
      // TS 23.502 4.9.1.3.3: the SMF switches the N3 tunnels, the target serves the UE from now on.
      amf.smf?.handoverExecuted(h.supi);
      end(h, true);
      target.owner = ue;
      enterConnected(ue, target);
      markContextSetUp(ue);
      amf.ngap.release(source, cause.successful);
      // What the source still sends (UE Context Release Complete) no longer speaks for the UE; a late
      // Uplink RAN Status Transfer still reaches the target.
      source.owner = undefined;
      handedOverTo.set(source, target);
      amf.ueContexts.save(ue);
      // Not at info: a line per handover costs a write at each; the radio events record the move.
      amf.logger.debug(
        { supi: h.supi, source: source.radio.name, target: target.radio.name },
        'AMF: N2 handover done',
      );
      return true;
    },

    /** Handovers the AMF still holds, cancelled ones waiting for a late answer included. */
    inProgress: () => byTarget.size,
    handingOver,
  };
}
