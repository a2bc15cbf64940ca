// UE Context Modification from the AMF (TS 38.413 8.3.4): a connected UE's radio is given the new
// subscribed UE-AMBR when the subscriber's profile changes it (TS 23.501 5.7.2.6: the AMF provides the
// UE-AMBR to the NG-RAN; 8.3.4.2: the NG-RAN node replaces the one it holds), and new Core Network
// Assistance Information for RRC INACTIVE when what it is built from changes (TS 23.501 5.3.3.2.5: a new
// 5G-GUTI, registration area or periodic timer). An idle UE needs nothing: the next Initial Context Setup
// carries both as they are then. And a KgNB from a new KAMF after a NAS re-keying (TS 33.501 6.9.4.4,
// gmm/rekeying.ts): 8.3.4.2, the radio takes it into use with NCC 0 (in the radio, an intra-cell handover
// with the UE, TS 38.331 keySetChangeIndicator), so the AMF's NH chain starts over from it.
import type { Timers } from '../../../clock.ts';
import type {
  Cause,
  CoreNetworkAssistanceInformationForInactive,
  UEAggregateMaximumBitRate,
} from '../../ngap/generated/types.ts';
import type { PeerLogLimiter } from '../../peer-log-limiter.ts';
import type { SubscriptionData } from '../../ports/subscription-data.ts';
import { parseBitrate } from '../../common/bitrate-text.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { connectionOf, contextSetUp } from '../context/cm-state.ts';
import type { UeConnection } from '../context/ue-connections.ts';
import { initialNhChain } from '../../security/handover-keys.ts';
import { causeText } from './criticality-diagnostics.ts';
import { sameAssistance } from './rrc-inactive-assistance.ts';
import type { ContextModificationIes } from './ue-ngap-messages.ts';
import type { ContextModificationEndpoint, UeNgap } from './ue-ngap.ts';

/**
 * How long the AMF waits for the radio's answer before it sends the next modification the UE has waiting.
 * TS 38.413 gives the AMF no timer for this class 1 procedure; one request at a time per connection keeps
 * the answers unambiguous, and a radio that never answers must not hold later changes back for ever.
 */
export const CONTEXT_MODIFICATION_GUARD_MS = 10_000;

/** The profile's UE-AMBR in NGAP terms (bits/s, 9.3.1.58); undefined when a bitrate does not parse. */
export function ueAmbrOf(profile: SubscriptionData['profile']): UEAggregateMaximumBitRate | undefined {
  const downlink = parseBitrate(profile.ambrDownlink);
  const uplink = parseBitrate(profile.ambrUplink);
  if (downlink === undefined || uplink === undefined) return undefined;
  return { uEAggregateMaximumBitRateDL: downlink, uEAggregateMaximumBitRateUL: uplink };
}

const sameAmbr = (a: UEAggregateMaximumBitRate | undefined, b: UEAggregateMaximumBitRate): boolean =>
  a?.uEAggregateMaximumBitRateDL === b.uEAggregateMaximumBitRateDL &&
  a.uEAggregateMaximumBitRateUL === b.uEAggregateMaximumBitRateUL;

interface ContextModificationAmf {
  ngap: Pick<UeNgap<AmfUe>, 'modifyContext' | 'release'>;
  timers: Timers;
  peerLog: PeerLogLimiter;
}

/**
 * A request sent on a connection: its guard, whether it carried a new KgNB, and what to send once it is
 * answered, if anything.
 */
interface Outstanding {
  cancelGuard: () => void;
  keyed: boolean;
  next: ContextModificationIes | undefined;
}

/**
 * The radio kept a KgNB from a KAMF the AMF no longer holds (a Failure, no answer, or the request could
 * not go): the next handover's NH would come from the new KAMF, which neither the radio's chain nor the
 * UE's follows. The connection is released; the UE's next Service Request sets up a KgNB from the new KAMF.
 */
const STALE_ACCESS_KEY: Cause = { choice: 'radioNetwork', value: 'release-due-to-5gc-generated-reason' };

export function createContextModification(amf: ContextModificationAmf) {
  const outstanding = new Map<UeConnection<AmfUe>, Outstanding>();

  function send(connection: UeConnection<AmfUe>, ies: ContextModificationIes): void {
    const key = ies.securityKey;
    if (connection.phase !== 'active' || !amf.ngap.modifyContext(connection, ies)) {
      if (key !== undefined) amf.ngap.release(connection, STALE_ACCESS_KEY);
      return;
    }
    // TS 33.501 6.9.4.4: the new KgNB starts the NH chain over at NCC 0, as at Initial Context Setup.
    if (key !== undefined) connection.accessKeys = initialNhChain(key.bytes);
    outstanding.set(connection, {
      cancelGuard: amf.timers.after(CONTEXT_MODIFICATION_GUARD_MS, () => done(connection, false)),
      keyed: key !== undefined,
      next: undefined,
    });
  }

  /**
   * The request on `connection` is answered (`applied`: a Response) or given up: what waits, if anything,
   * goes now; a new KgNB the radio did not take releases the connection (STALE_ACCESS_KEY).
   */
  function done(connection: UeConnection<AmfUe>, applied: boolean): void {
    const entry = outstanding.get(connection);
    if (entry === undefined) return;
    entry.cancelGuard();
    outstanding.delete(connection);
    if (entry.keyed && !applied) {
      if (connection.phase === 'active') amf.ngap.release(connection, STALE_ACCESS_KEY);
      return;
    }
    if (entry.next !== undefined) send(connection, entry.next);
  }

  /** `ies` to the radio holding `ue`'s context: now, or merged into what waits for the answer. */
  function modify(ue: AmfUe, ies: ContextModificationIes): void {
    const connection = connectionOf(ue);
    if (connection === undefined || !contextSetUp(ue)) return;
    const entry = outstanding.get(connection);
    if (entry === undefined) send(connection, ies);
    else entry.next = { ...entry.next, ...ies };
  }

  const endpoint: ContextModificationEndpoint<AmfUe> = {
    answered(connection: UeConnection<AmfUe>, failure: Cause | undefined): boolean {
      if (!outstanding.has(connection)) return false;
      // 8.3.4.3: the radio keeps what it had; the AMF has nothing to undo, so it says so.
      if (failure !== undefined)
        amf.peerLog.warn(
          'ue_context_modification_failed',
          connection.radio.id,
          {
            radio: connection.radio.name,
            amfUeNgapId: connection.amfUeNgapId,
            ranUeNgapId: connection.ranUeNgapId,
            cause: causeText(failure),
          },
          'AMF: the radio refused a UE Context Modification',
        );
      done(connection, failure === undefined);
      return true;
    },
  };

  return {
    endpoint,
    /**
     * The subscribed UE-AMBR as read now for `ue` (a profile change): when it differs from the one the
     * AMF held, it is kept, and a UE whose radio holds its context gets UE Context Modification Request.
     */
    subscribedAmbr(ue: AmfUe, profile: SubscriptionData['profile']): void {
      const ambr = ueAmbrOf(profile);
      if (ambr === undefined || sameAmbr(ue.ueAmbr, ambr)) return;
      ue.ueAmbr = ambr;
      modify(ue, { ueAmbr: ambr });
    },
    /**
     * The RRC INACTIVE assistance information as it is now for `ue` (a new 5G-GUTI settled, a new
     * registration area): when it differs from what the UE's radio was last given, it is kept, and a UE
     * whose radio holds its context gets UE Context Modification Request.
     */
    inactiveAssistance(ue: AmfUe, assistance: CoreNetworkAssistanceInformationForInactive | undefined): void {
      if (assistance === undefined || sameAssistance(ue.inactiveAssistance, assistance)) return;
      ue.inactiveAssistance = assistance;
      modify(ue, { inactiveAssistance: assistance });
    },
    /**
     * A KgNB from the new KAMF of a NAS re-keying (gmm/rekeying.ts) for the radio holding `ue`'s context:
     * UE Context Modification Request with the Security Key IE (TS 38.413 9.2.2.7, 9.3.1.87: KgNB's 256
     * bits as they are), now or merged into what waits for the answer.
     */
    securityKey(ue: AmfUe, kgnb: Buffer): void {
      modify(ue, { securityKey: { bytes: kgnb, length: 256 } });
    },
    /**
     * A new KgNB for `ue`'s radio not answered yet, sent or waiting behind another request (while it is,
     * the radio holds a key of the old KAMF and the AMF's NH chain the new one: TS 33.501 6.9.5).
     */
    keyPending(ue: AmfUe): boolean {
      const connection = connectionOf(ue);
      const entry = connection === undefined ? undefined : outstanding.get(connection);
      return entry !== undefined && (entry.keyed || entry.next?.securityKey !== undefined);
    },
    /** Requests awaiting their answer (tests: nothing is left behind). */
    outstanding: (): number => outstanding.size,
  };
}
