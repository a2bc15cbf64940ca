import type { Logger } from 'pino';
import type { Timers } from '../../../clock.ts';
import type { RecordsIngestion } from '../../../records/ingestion.ts';
import type { NetworkEventEmitter } from '../../events/network-events.ts';
import type { NgapMetrics } from '../../network-metrics.ts';
import type { PeerLogLimiter } from '../../peer-log-limiter.ts';
import type { OperatorConfiguration } from '../../ports/operator-configuration.ts';
import type { SubscriptionDataPort } from '../../ports/subscription-data.ts';
import type { AmfIdentity } from './amf-identity.ts';
import type { AmfSettings } from '../amf-settings.ts';
import type { AmfUe } from './amf-ue.ts';
import type { AmfUes } from './amf-ues.ts';
import type { Authentication } from '../ports/authentication.ts';
import type { SessionManagement } from '../ports/session-management.ts';
import type { SmsService } from '../ports/sms.ts';
import type { UeContextWrites } from './ue-context-writes.ts';
import type { UeNgap } from '../n2/ue-ngap.ts';
import type { OverloadWatch } from '../gmm/overload.ts';
import type { RadioCapabilityCheck } from '../n2/radio-capability-check.ts';

/** The operator's configuration as the NAS procedures read it. */
export interface AmfNetwork {
  configuration: OperatorConfiguration;
  /** TS 24.501 9.12.1: `5G:mnc<MNC>.mcc<MCC>.3gppnetwork.org`. */
  servingNetworkName: string;
}

/**
 * What every 5GMM procedure module works with: the settings, the N2 layer, the UE contexts, the ports
 * it consumes (authentication, session management) and the network events it emits. Built once by `createAmf`.
 */
export interface AmfContext {
  readonly settings: AmfSettings;
  readonly identity: AmfIdentity;
  readonly timers: Timers;
  readonly logger: Logger;
  /** Warn lines a radio can trigger in bulk, per UE (peer-log-limiter.ts). */
  readonly peerLog: PeerLogLimiter;
  readonly metrics: Pick<NgapMetrics, 'ueContextLimitReject' | 'ueContextWriteFailure'>;
  /** Told of each Registration Request refused at the UE context limit: the radios hear of the overload. */
  readonly overload: Pick<OverloadWatch, 'shed'>;
  readonly ngap: UeNgap<AmfUe>;
  /** UE Radio Capability Check (TS 38.413 8.14.2) before IMS voice is said supported (gmm/ims-voice.ts). */
  readonly radioCapabilityCheck: Pick<RadioCapabilityCheck, 'check'>;
  readonly ues: AmfUes;
  /** Writes the UE contexts through the UE context port at the end of the procedures that change them. */
  readonly ueContexts: UeContextWrites;
  /** The AUSF and SIDF, as the AMF sees them (ports/authentication.ts). */
  readonly ausf: Authentication;
  /** The operator configuration, read once and again after each operator or slice change. */
  network(): Promise<AmfNetwork>;
  readonly subscriptionData: SubscriptionDataPort;
  /** What the UE side reports: registrations, deregistrations, signalling heard, NAS messages. */
  readonly events: NetworkEventEmitter;
  readonly records: Pick<RecordsIngestion, 'recordSubscriberLog'>;
  /** 32 random bits for a 5G-TMSI (TS 23.003 2.10.1: unpredictable). */
  randomTmsi(): number;
  /** The SMF 5GSM messages go to (docs/sessions.md); undefined when the AMF runs without one. */
  readonly smf: SessionManagement | undefined;
  /** The SMSF SMS over NAS goes to (docs/sms.md); undefined when the AMF runs without one. */
  readonly sms: SmsService | undefined;
  /**
   * Looks at a registered UE again after a subscriber, profile, policy or slice change (amf.ts): a new
   * allowed NSSAI, or a network-initiated deregistration.
   */
  reconsider(ue: AmfUe): void;
  /**
   * What the UE's RRC INACTIVE assistance information is built from may have changed (a 5G-GUTI settled,
   * a new registration area): the radio holding its context is given the new one (amf.ts,
   * n2/ue-context-modification.ts).
   */
  refreshInactiveAssistance(ue: AmfUe): void;
  /**
   * A new KgNB for the radio holding `ue`'s context, after a NAS re-keying (TS 33.501 6.9.4.4;
   * gmm/rekeying.ts): sent by UE Context Modification (n2/ue-context-modification.ts).
   */
  refreshAccessKey(ue: AmfUe, kgnb: Buffer): void;
  /**
   * An AS key change of `ue` is under way: from its re-keying's Security Mode Command until the radio
   * answered the new KgNB (gmm/rekeying.ts). No handover gets an {NH, NCC} meanwhile (TS 33.501 6.9.5).
   */
  accessKeyChanging(ue: AmfUe): boolean;
  /** An N2 handover of `ue` is being prepared or executed (n2/handover.ts). */
  handingOver(ue: AmfUe): boolean;
  /** This AMF is being removed from its set (gmm/drain.ts): it takes no new UE. */
  draining(): boolean;
  /** This member is cut off from the database (set/database-cut.ts): it serves no NAS. */
  suspended(): boolean;
  /** Counts the subscriber, profile, policy, slice and operator changes heard so far. */
  readonly configurationGeneration: number;
}
