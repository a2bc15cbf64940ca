import type {
  HandoverCommandLists,
  HandoverPreparation,
  NetworkSessionStatus,
  PathSwitchItem,
  ModifyIndicationAnswer,
  PathSwitchOutcome,
  UeSessionStatus,
  UplinkSmContext,
} from '../amf/ports/session-management.ts';
import type { FiveGsmMessage, SNssai } from '../nas/index.ts';
import type { StoredPduSession } from '../ports/ue-contexts.ts';
import { createMemoryAddressLeases } from '../working-state/memory-address-leases.ts';
import { createMemoryTunnelEndpointIds } from '../working-state/memory-tunnel-endpoints.ts';
import { establish } from './establishment.ts';
import {
  modificationCommandRejected,
  modificationCompleted,
  modificationRequested,
  reconsider,
} from './modification.ts';
import { createSmfHandovers } from './handover.ts';
import { pathSwitched } from './path-switch.ts';
import { modifyIndicated, radioNotified, radioReleasedSession } from './radio-indications.ts';
import { secondaryRatUsageReported } from './secondary-rat-usage.ts';
import { releaseAllLocally, releaseCompleted, releaseRequested } from './release.ts';
import { restoreSessions } from './restoration.ts';
import { storedPduSession } from './session-record.ts';
import { SessionTable, type SessionState } from './session-table.ts';
import { SM_CAUSE } from './sm-cause.ts';
import { DEFAULT_SMF_TIMING, type SmfContext, type SmfOptions } from './smf-context.ts';
import {
  downlinkData,
  pagingFailed,
  resourcesFailed,
  resourcesSetUp,
  statusReceived,
  ueIdle,
} from './user-plane.ts';

export type { SessionState } from './session-table.ts';
export type { SmfOptions } from './smf-context.ts';
export type { N2SmItem } from './ports/amf.ts';
export type { UserPlane } from './ports/user-plane.ts';

/**
 * The SMF (docs/sessions.md): PDU sessions per (SUPI, PDU session id) — establishment (TS 24.501
 * 6.4.1, TS 23.502 4.3.2.2.1), UE-requested release (6.4.3), network-requested modification and
 * release on configuration changes (6.3.2, 6.3.3), user plane deactivation when the UE goes idle and
 * reactivation when it comes back (TS 23.502 4.2.6, 4.2.3.2) — over the AMF (`amf`) and the UPF
 * (`userPlane`). Builds the context the procedures share (one file each) and routes to them. Every
 * session's address, TEID and UPF rules are freed together, once, whatever ends it.
 */
export function createSmf(options: SmfOptions) {
  const ctx: SmfContext = {
    subscriptionData: options.subscriptionData,
    events: options.events,
    userPlane: options.userPlane,
    amf: options.amf,
    logger: options.logger,
    timers: options.timers,
    timing: { ...DEFAULT_SMF_TIMING, ...options.timing },
    table: new SessionTable(),
    addresses: options.addressLeases ?? createMemoryAddressLeases(),
    teids: options.teids ?? createMemoryTunnelEndpointIds(),
  };
  const { table } = ctx;
  const handovers = createSmfHandovers(ctx);

  const failed = (error: unknown): void =>
    ctx.logger.error({ err: error }, 'SMF: a configuration change could not be applied to sessions');
  const unsubscribe = options.configurationEvents.subscribe((change) => {
    if (change.resource === 'subscriber') {
      if (table.hasUe(change.name)) reconsider(ctx, change.name).catch(failed);
      return;
    }
    if (change.resource === 'profile' || change.resource === 'policy' || change.resource === 'slice')
      for (const supi of table.ues()) reconsider(ctx, supi).catch(failed);
  });

  return {
    /** A 5GSM message from the UE, routed by the AMF (TS 24.501 5.4.5.2.3). */
    async uplink(ue: UplinkSmContext, message: FiveGsmMessage): Promise<void> {
      switch (message.messageType) {
        case 'pduSessionEstablishmentRequest':
          return establish(ctx, ue, message);
        case 'pduSessionReleaseRequest':
          return releaseRequested(ctx, ue.supi, message);
        case 'pduSessionReleaseComplete':
          return releaseCompleted(ctx, ue.supi, message.pduSessionId);
        case 'pduSessionModificationRequest':
          return modificationRequested(ctx, ue.supi, message);
        case 'pduSessionModificationComplete':
          return modificationCompleted(ctx, ue.supi, message.pduSessionId);
        case 'pduSessionModificationCommandReject':
          return modificationCommandRejected(ctx, ue.supi, message);
        case 'fiveGsmStatus':
          return; // logged by the AMF; nothing to undo
        default:
          // 7.4: a message the network does not expect -> 5GSM Status #97.
          ctx.amf.sendN1(ue.supi, {
            messageType: 'fiveGsmStatus',
            pduSessionId: message.pduSessionId,
            pti: message.pti,
            fiveGsmCause: SM_CAUSE.messageTypeNonExistentOrNotImplemented,
          });
          return;
      }
    },

    /** PDU Session Resource Setup Response (or the Initial Context Setup item) for one session. */
    resourcesSetUp: (supi: string, pduSessionId: number, transfer: Uint8Array): void =>
      resourcesSetUp(ctx, supi, pduSessionId, transfer),

    /** PDU Session Resource Failed to Setup: the session is released (user-plane.ts). */
    resourcesFailed: (supi: string, pduSessionId: number): void => resourcesFailed(ctx, supi, pduSessionId),

    /** The UE's N2 connection ended: user planes deactivated (TS 23.502 4.2.6). */
    ueIdle: (supi: string): void => ueIdle(ctx, supi),

    /** The UPF's Downlink Data Notification for an inactive session: the UE is paged (4.2.3.3). */
    downlinkData: (upfSessionId: number): void => downlinkData(ctx, upfSessionId),

    /** The UE did not answer paging: its sessions' downlink data is forgotten. */
    pagingFailed: (supi: string): void => pagingFailed(ctx, supi),

    /** The PDU session status of a Service or Registration Request (TS 24.501 5.6.1.4.1, 5.5.1.3.4). */
    statusReceived: (supi: string, request: UeSessionStatus): NetworkSessionStatus =>
      statusReceived(ctx, supi, request),

    /** Xn handover's path switch (TS 23.502 4.9.1.2.2 steps 1-3; path-switch.ts). */
    pathSwitched: (supi: string, toBeSwitched: readonly PathSwitchItem[]): PathSwitchOutcome =>
      pathSwitched(ctx, supi, toBeSwitched),

    /** What a radio tells of a session on its own (TS 38.413 8.2.4, 8.2.5; radio-indications.ts). */
    radioNotified: (supi: string, pduSessionId: number, transfer: Uint8Array): void =>
      radioNotified(ctx, supi, pduSessionId, transfer),
    secondaryRatUsage: (supi: string, pduSessionId: number, transfer: Uint8Array): void =>
      secondaryRatUsageReported(ctx, supi, pduSessionId, transfer),
    radioReleasedSession: (supi: string, pduSessionId: number): void =>
      radioReleasedSession(ctx, supi, pduSessionId),
    modifyIndicated: (supi: string, pduSessionId: number, transfer: Uint8Array): ModifyIndicationAnswer =>
      modifyIndicated(ctx, supi, pduSessionId, transfer),

    /** N2 handover (TS 23.502 4.9.1.3; handover.ts): preparation, the target's answer, execution, cancel. */
    handoverRequired: (supi: string, items: readonly PathSwitchItem[]): HandoverPreparation =>
      handovers.required(supi, items),
    handoverAcknowledged: (
      supi: string,
      admitted: readonly PathSwitchItem[],
      failed: readonly PathSwitchItem[],
    ): HandoverCommandLists => handovers.acknowledged(supi, admitted, failed),
    handoverExecuted: (supi: string): void => handovers.executed(supi),
    handoverCancelled: (supi: string): void => handovers.cancelled(supi),

    /** Deregistration or the subscriber's deletion: every session released locally (TS 24.501 6.3.3). */
    ueGone(supi: string): void {
      handovers.cancelled(supi);
      releaseAllLocally(ctx, table.ofUe(supi));
    },

    /** The sessions of a UE this AMF set member took over, from its UE context record (restoration.ts). */
    restoreSessions: (
      supi: string,
      sessions: readonly StoredPduSession[],
      allowedNssai: readonly SNssai[],
    ): Promise<void> => restoreSessions(ctx, supi, sessions, allowedNssai),

    /** The SMF's sessions of a UE and their states (tests, metrics). */
    sessionsOf(supi: string): { pduSessionId: number; state: SessionState['kind'] }[] {
      return table.ofUe(supi).map((s) => ({ pduSessionId: s.pduSessionId, state: s.state.kind }));
    },

    /** The UE's sessions as its UE context record holds them (session-record.ts). */
    sessionRecords(supi: string): StoredPduSession[] {
      return table.ofUe(supi).map(storedPduSession);
    },

    counts: () => ({ sessions: table.size, addresses: ctx.addresses.held, teids: ctx.teids.held }),

    /** UEs whose N2 handover the SMF still holds (tests: nothing leaks after a failure path). */
    handoversInProgress: (): number => handovers.inProgress(),

    /**
     * Stops listening to configuration changes; every session is released locally. Their addresses
     * stay leased: where the AMF set runs, the UE context records still name them and the member
     * taking a UE over holds them (docs/amf-set.md, "Lease reclamation"); in memory they end with
     * the process.
     */
    stop(): void {
      unsubscribe();
      releaseAllLocally(ctx, table.all(), true);
    },
  };
}

export type Smf = ReturnType<typeof createSmf>;
