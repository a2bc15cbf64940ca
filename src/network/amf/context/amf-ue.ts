import type { PendingAuthentication } from '../ports/authentication.ts';
import type {
  Guti,
  NasMessageOf,
  NasKeySetIdentifier,
  SNssai,
  UeSecurityCapability,
} from '../../nas/index.ts';
import type { NasSecurityContext } from '../../nas-security/index.ts';
import type { SubscriptionData } from '../../ports/subscription-data.ts';
import type { UeConnection } from './ue-connections.ts';
import type { UeRadioCapability } from '../n2/radio-capability.ts';
import type {
  CoreNetworkAssistanceInformationForInactive,
  UEAggregateMaximumBitRate,
} from '../../ngap/generated/types.ts';
import type { CmState } from './cm-state.ts';
import type { GmmState } from './gmm-state.ts';
import type { RetransmissionTimer } from '../../common/nas-timer.ts';

/** The Registration Request a registration serves, as last received (TS 24.501 5.5.1). */
export interface PendingRegistration {
  request: NasMessageOf<'registrationRequest'>;
  /** The subscriber's profile and policies, read once the SUPI is known. */
  subscription?: SubscriptionData;
  /**
   * `AmfContext.configurationGeneration` when the subscription was read: a change since (any subscriber,
   * profile, policy or slice) has the UE looked at again at Registration Complete.
   */
  generation?: number;
  /**
   * The request came over a connection whose UE context the radio already held (the UE was in
   * CM-CONNECTED before it, e.g. after a handover): the registration does not end in an AN release.
   */
  connectedBefore?: boolean;
}

/**
 * The 5GMM common or specific procedure a UE is in (TS 24.501 5.1.3.2 states, as the AMF keeps them):
 * each waiting step holds its retransmission timer; `none` between procedures.
 */
export type UeProcedure =
  | { kind: 'none' }
  /** Between a Registration Request and the next step, while the AMF waits on a port. */
  | { kind: 'registration-pending'; registration: PendingRegistration }
  /** Identity Request sent (5.4.3), T3570 running. */
  | { kind: 'identification'; registration: PendingRegistration; timer: RetransmissionTimer }
  /**
   * Between the start of a re-keying of a connected UE (gmm/rekeying.ts) and its Authentication Request,
   * while the AMF waits on the AUSF.
   */
  | { kind: 'rekeying-pending' }
  /**
   * Authentication Request sent (5.4.1.3), T3560 running; for `registration`, or, undefined, to re-key a
   * registered UE in CM-CONNECTED (TS 33.501 6.9.4.2, gmm/rekeying.ts).
   */
  | {
      kind: 'authentication';
      registration: PendingRegistration | undefined;
      pending: PendingAuthentication;
      ngKsi: NasKeySetIdentifier;
      /** Synchronisation failures answered so far; a second one in a row ends it (5.4.1.3.7 f). */
      resynchronisations: number;
      timer: RetransmissionTimer;
    }
  /**
   * Security Mode Command sent (5.4.2), T3560 running; the new context is not current yet. `registration`
   * as for `authentication`.
   */
  | {
      kind: 'security-mode';
      registration: PendingRegistration | undefined;
      context: NasSecurityContext;
      timer: RetransmissionTimer;
    }
  /** Registration Accept sent with a new 5G-GUTI (5.5.1.2.4), T3550 running. */
  | {
      kind: 'registration-accept';
      registration: PendingRegistration;
      guti: Guti;
      allowedNssai: SNssai[];
      timer: RetransmissionTimer;
    }
  /** Network-initiated Deregistration Request sent (5.5.2.3) with its 5GMM cause, T3522 running. */
  | { kind: 'deregistration'; cause: number; timer: RetransmissionTimer }
  /**
   * Configuration Update Command sent with a new allowed NSSAI (5.4.4.2), T3555 running; `previous` is
   * the allowed NSSAI the UE holds until it completes.
   */
  /** Configuration Update Command sent (5.4.4.2), T3555 running; `guti`: the 5G-GUTI it carried, if any. */
  | { kind: 'configuration-update'; previous: SNssai[]; guti: Guti | undefined; timer: RetransmissionTimer }
  /** Paging sent for a network-initiated procedure or downlink data (5.6.2), T3513 running. */
  | { kind: 'paging'; purpose: PagingPurpose; timer: RetransmissionTimer };

/**
 * Why an idle UE is paged (TS 24.501 5.6.2.1): to deregister it with `cause` once it answers
 * (5.5.2.3.1), or for downlink data of its PDU sessions (TS 23.502 4.2.3.3).
 */
export type PagingPurpose = { kind: 'deregistration'; cause: number } | { kind: 'downlink-data' };

/**
 * The AMF's context of one UE (TS 23.502 5.2.2.2, the UE context in the AMF): identities, the NAS
 * security context, registration state, the N2 connection while CM-CONNECTED, the procedure in
 * progress and the reachability timers while CM-IDLE. Procedures (one module each) work on it.
 */
export interface AmfUe {
  /** Local handle, for logs. */
  readonly id: number;
  /** The SUPI's IMSI digits, once the AMF knows it. */
  supi: string | undefined;
  /** What the subscriber logs show: `suci` (as the UE sent it, hex of the IE) or `guti`. */
  suci: string | undefined;
  /**
   * Set once the core cannot map the UE to a subscriber (network.md section 4): its messages are then
   * logged under `imsi`, the SUPI its SUCI shows in clear or empty, with the 5G-GUTI it named, if any.
   */
  unmapped: { imsi: string; guti: string | undefined } | undefined;
  /** The 5G-GUTI the UE holds (assigned by this AMF), or undefined before Registration Complete. */
  guti: Guti | undefined;
  /**
   * The 5G-GUTI a Configuration Update Command replaced, still valid until the UE shows which one it
   * holds: Configuration Update Complete, or an initial NAS message naming one (TS 24.501 5.4.4.2, 5.4.4.5).
   */
  oldGuti: Guti | undefined;
  /** A new 5G-GUTI is owed: the UE answered paging with a Service Request (TS 24.501 5.4.4.1 a). */
  gutiReallocationPending: boolean;
  /** The current 5G NAS security context (TS 24.501 4.4.2), once a Security Mode Command completed. */
  security: NasSecurityContext | undefined;
  /**
   * The current NAS security context reached the operator's maximum age (`nasSecurityMaxAgeMs`): the UE
   * is re-keyed when next connected and between procedures (gmm/rekeying.ts).
   */
  securityAged?: boolean;
  /** Cancels the age timer of the current NAS security context, while one runs. */
  cancelSecurityAge?: () => void;
  ueSecurityCapability: UeSecurityCapability | undefined;
  /** IMEISV digits from Security Mode Complete, or IMEI digits from a PEI. */
  pei: string | undefined;
  /** The 5GMM state (gmm-state.ts); only `enterGmmState` changes it. */
  gmm: GmmState;
  allowedNssai: SNssai[];
  /** The requested NSSAI of the last accepted registration, to work the allowed NSSAI out again. */
  requestedNssai: SNssai[] | undefined;
  /** A new allowed NSSAI waiting for the UE to be connected and between procedures (5.4.4.1). */
  pendingAllowedNssai: SNssai[] | undefined;
  /** The tracking areas of the TAI list in Registration Accept: where paging looks for the UE. */
  registrationArea: { mcc: string; mnc: string; tacs: number[] } | undefined;
  /** CM-IDLE with its reachability timer, or CM-CONNECTED with its connection (cm-state.ts). */
  cm: CmState<UeConnection<AmfUe>>;
  procedure: UeProcedure;
  /** The radio last heard from, for the API and for paging. */
  lastRadio: string | undefined;
  /** The last ngKSI assigned, so the next authentication takes another (9.11.3.32: 0..6). */
  lastKsi: number | undefined;
  /** SMS over NAS allowed in the last Registration Accept (TS 24.501 9.11.3.6; gmm/sms.ts). */
  smsOverNas: boolean;
  /**
   * The UE radio capability the radio last indicated (TS 38.413 8.14.1), for the next Initial Context
   * Setup (n2/radio-capability.ts); held while CM-IDLE, gone with the context.
   */
  radioCapability?: UeRadioCapability;
  /**
   * The subscribed UE-AMBR as last read (Registration Accept, a profile change): a change reaches the
   * radio of a connected UE by UE Context Modification (n2/ue-context-modification.ts).
   */
  ueAmbr?: UEAggregateMaximumBitRate;
  /**
   * The Core Network Assistance Information for RRC INACTIVE the radio holding the UE's context was last
   * given (Initial Context Setup, UE Context Modification; n2/rrc-inactive-assistance.ts).
   */
  inactiveAssistance?: CoreNetworkAssistanceInformationForInactive;
  /**
   * The fencing epoch this AMF owns the UE's stored context with (ports/ue-contexts.ts), from the
   * take-over that made it the owner; undefined until then (ue-context-writes.ts).
   */
  contextEpoch?: number;
}
