// What the AMF asks of the SMF (Nsmf_PDUSession, TS 23.502 5.2.8.2), in its own terms: 5GSM messages
// it routes, the radio's answers for PDU session resources, the UE's CM state and PDU session status.
// core/network-functions.ts provides it from the SMF in process.
import type { FiveGsmMessage, SNssai } from '../../nas/index.ts';
import type { StoredPduSession } from '../../ports/ue-contexts.ts';
import type { N2SmItem } from '../../smf/ports/amf.ts';

/** What the AMF knows of the UE when it routes a 5GSM message (UL NAS Transport, TS 24.501 8.2.10). */
export interface UplinkSmContext {
  supi: string;
  allowedNssai: readonly SNssai[];
  /** Request type (9.11.3.47), DNN and S-NSSAI of UL NAS Transport. */
  requestType: number | undefined;
  dnn: string | undefined;
  sNssai: SNssai | undefined;
}

/** PDU session status and Uplink data status IEs (TS 24.501 9.11.3.44, 9.11.3.57) as PSI lists. */
export interface UeSessionStatus {
  pduSessionStatus: readonly number[] | undefined;
  uplinkDataStatus: readonly number[] | undefined;
}

/** The SMF's answer: what the Accept says of the PDU sessions and what the radio sets up again. */
export interface NetworkSessionStatus {
  /** The PDU sessions the network holds (PDU session status IE). */
  pduSessionStatus: number[];
  /** Sessions of Uplink data status whose user plane cannot come back (PDU session reactivation result). */
  reactivationFailed: number[];
  /** The sessions whose user plane comes back (TS 23.502 4.2.3.2 step 12). */
  reactivate: N2SmItem[];
}

/** The SMF's N2 SM answer for one session of a Modify Indication (TS 38.413 9.3.4.7 or its unsuccessful transfer). */
export type ModifyIndicationAnswer =
  { confirmed: true; transfer: Uint8Array } | { confirmed: false; transfer: Uint8Array };

/** One session of a Path Switch Request, or of its answer: its id and its transfer container. */
export interface PathSwitchItem {
  pduSessionId: number;
  transfer: Uint8Array;
}

/** Per session, the container for the Switched or the Released list (TS 38.413 8.4.4). */
export interface PathSwitchOutcome {
  switched: PathSwitchItem[];
  released: PathSwitchItem[];
}

/**
 * Handover preparation (Nsmf_PDUSession_UpdateSMContext, TS 23.502 4.9.1.3.2 steps 3-6): the sessions
 * that go to the target with their N2 SM information (PDU Session Resource Setup Request Transfer,
 * TS 38.413 9.3.4.1), and those that do not, each with Handover Preparation Unsuccessful Transfer
 * (9.3.4.18) for the Handover Command's To Release list.
 */
export interface HandoverPreparation {
  toSetUp: N2SmItem[];
  notHandedOver: PathSwitchItem[];
}

/**
 * The target's answer read (4.9.1.3.2 step 9-10): per session Handover Command Transfer (9.3.4.10)
 * for the Handover List, or Handover Preparation Unsuccessful Transfer for the To Release list.
 */
export interface HandoverCommandLists {
  handedOver: PathSwitchItem[];
  toRelease: PathSwitchItem[];
}

export interface SessionManagement {
  /** Nsmf_PDUSession_CreateSMContext / UpdateSMContext with N1 SM information. */
  uplink(ue: UplinkSmContext, message: FiveGsmMessage): Promise<void>;
  /** UpdateSMContext with the gNB's PDU Session Resource Setup Response Transfer. */
  resourcesSetUp(supi: string, pduSessionId: number, transfer: Uint8Array): void;
  /** UpdateSMContext: the radio could not set the session up; its Unsuccessful Transfer. */
  resourcesFailed(supi: string, pduSessionId: number, transfer: Uint8Array): void;
  /** UpdateSMContext on AN release: the UE went CM-IDLE (TS 23.502 4.2.6). */
  ueIdle(supi: string): void;
  /** Paging for downlink data failed (TS 23.502 4.2.3.3 step 4c). */
  pagingFailed(supi: string): void;
  /** The PDU session status of a Service or Registration Request (TS 24.501 5.6.1.4.1, 5.5.1.3.4). */
  statusReceived(supi: string, request: UeSessionStatus): NetworkSessionStatus;
  /** UpdateSMContext per session of a Path Switch Request (TS 23.502 4.9.1.2.2). */
  pathSwitched(supi: string, toBeSwitched: readonly PathSwitchItem[]): PathSwitchOutcome;
  /** UpdateSMContext with a session's PDU Session Resource Notify Transfer (TS 38.413 8.2.4). */
  radioNotified(supi: string, pduSessionId: number, transfer: Uint8Array): void;
  /** UpdateSMContext with a session's Secondary RAT Data Usage Report Transfer (TS 23.502 4.21). */
  secondaryRatUsage(supi: string, pduSessionId: number, transfer: Uint8Array): void;
  /** UpdateSMContext: the radio released the session's resources (Notify's Released list, 8.2.4.2). */
  radioReleasedSession(supi: string, pduSessionId: number): void;
  /**
   * UpdateSMContext with a session's PDU Session Resource Modify Indication Transfer (8.2.5): the
   * SMF's Modify Confirm Transfer, or its Modify Indication Unsuccessful Transfer.
   */
  modifyIndicated(supi: string, pduSessionId: number, transfer: Uint8Array): ModifyIndicationAnswer;
  /**
   * UpdateSMContext, handover preparation, per session of Handover Required with its Handover Required
   * Transfer (9.3.4.14): the SMF keeps the sessions accepted until the handover ends.
   */
  handoverRequired(supi: string, items: readonly PathSwitchItem[]): HandoverPreparation;
  /**
   * UpdateSMContext with the target's Handover Request Acknowledge Transfers (9.3.4.11) of the admitted
   * sessions and the Handover Resource Allocation Unsuccessful Transfers (9.3.4.20) of the failed ones.
   */
  handoverAcknowledged(
    supi: string,
    admitted: readonly PathSwitchItem[],
    failed: readonly PathSwitchItem[],
  ): HandoverCommandLists;
  /** UpdateSMContext, handover execution (4.9.1.3.3 steps 3-5): downlinks switched to the target. */
  handoverExecuted(supi: string): void;
  /** UpdateSMContext, handover cancel (4.9.1.4): what the preparation kept is dropped. */
  handoverCancelled(supi: string): void;
  /** ReleaseSMContext of every session: the UE context is gone (deregistration). */
  ueGone(supi: string): void;
  /** The UE's SM contexts as its UE context record holds them (ports/ue-contexts.ts). */
  sessionRecords(supi: string): StoredPduSession[];
  /**
   * The SM contexts of a UE this AMF took over from another of its set, as its record holds them
   * (TS 23.501 5.21.2.3): re-created on this SMF and UPF with their addresses, the user plane down
   * until the UE's request reactivates it; those that cannot be are left out of `sessionRecords`.
   */
  restoreSessions(
    supi: string,
    sessions: readonly StoredPduSession[],
    allowedNssai: readonly SNssai[],
  ): Promise<void>;
}
