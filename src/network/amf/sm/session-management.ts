import {
  causeLabel,
  decodeNasMessage,
  encodeNasMessage,
  messageTitle,
  type FiveGsmMessage,
  type NasMessageOf,
} from '../../nas/index.ts';
import type { NGAPPDU } from '../../ngap/generated/types.ts';
import type { SubscriptionData } from '../../ports/subscription-data.ts';
import { parseBitrate } from '../../common/bitrate-text.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { gutiText, nasPduFor, recordNas, sendNas, subscriberLogLevel } from '../gmm/nas-link.ts';
import { paging } from '../gmm/paging.ts';
import type { N2SmItem, SmfAmfPort } from '../../smf/ports/amf.ts';
import type { UeSessionStatus } from '../ports/session-management.ts';
import {
  ngapSnssai,
  pduSessionResourceModifyRequest,
  pduSessionResourceReleaseCommand,
  pduSessionResourceSetupRequest,
} from '../n2/session-ngap-messages.ts';
import type { UeConnection } from '../context/ue-connections.ts';
import type { InitialContextSetupIes } from '../n2/ue-ngap-messages.ts';
import type { SessionResourcesAnswer } from '../n2/ue-ngap.ts';
import { isRegistered } from '../context/gmm-state.ts';
import { connectionOf, contextSetUp } from '../context/cm-state.ts';
import type { NasLinkAmf } from '../gmm/nas-link.ts';
import type { LifecycleAmf } from '../gmm/ue-lifecycle.ts';

/** The parts of the AMF context this procedure uses. */
export type SessionManagementAmf = Pick<AmfContext, 'records' | 'smf' | 'ueContexts' | 'ues'> &
  NasLinkAmf &
  LifecycleAmf;

/** Payload container type "N1 SM information" (TS 24.501 9.11.3.40). */
export const N1_SM_INFORMATION = 1;
/** 5GMM cause #90 "payload was not forwarded" (TS 24.501 9.11.3.2). */
const PAYLOAD_NOT_FORWARDED = 90;

/**
 * One subscriber log per 5GSM message either way (network.md 4): `raw` the plain 5GSM message,
 * `details` with `pdu_session_id` and the 5GSM cause it carries.
 */
function logSm(
  amf: SessionManagementAmf,
  ue: AmfUe,
  direction: 'inbound' | 'outbound',
  message: FiveGsmMessage,
  plain: Uint8Array,
): void {
  if (ue.supi === undefined) return;
  const cause = (message as { fiveGsmCause?: unknown }).fiveGsmCause;
  recordNas(amf, {
    level: subscriberLogLevel(message.messageType),
    imsi: ue.supi,
    event: messageTitle(message.messageType),
    direction,
    raw: plain,
    details: {
      ...(ue.lastRadio === undefined ? {} : { radio: ue.lastRadio }),
      ...(ue.guti === undefined ? {} : { guti: gutiText(ue.guti) }),
      pdu_session_id: message.pduSessionId,
      ...(typeof cause === 'number' ? { cause: causeLabel('5gsm', cause) } : {}),
    },
  });
}

/** DL NAS Transport (TS 24.501 8.2.11) carrying one 5GSM message, logged. */
function dlNasTransport(
  amf: SessionManagementAmf,
  ue: AmfUe,
  message: FiveGsmMessage,
): NasMessageOf<'dlNasTransport'> {
  const plain = encodeNasMessage(message);
  logSm(amf, ue, 'outbound', message, plain);
  return {
    messageType: 'dlNasTransport',
    payloadContainerType: N1_SM_INFORMATION,
    payloadContainer: plain,
    pduSessionId: message.pduSessionId,
  };
}

/**
 * UL NAS Transport with N1 SM information (TS 24.501 5.4.5.2.3): the 5GSM message goes to the SMF with
 * the DNN, S-NSSAI and request type it came with, and the UE's allowed NSSAI. Without an SMF, or with
 * a payload that is not a 5GSM message for the PDU session the IE names, the AMF sends the payload back
 * with #90 "payload was not forwarded" (5.4.5.2.5).
 */
export function n1SmTransport(
  amf: SessionManagementAmf,
  ue: AmfUe,
  message: NasMessageOf<'ulNasTransport'>,
): Promise<void> | void {
  const supi = ue.supi;
  if (supi === undefined || !isRegistered(ue)) return;
  const decoded = decodeNasMessage(message.payloadContainer);
  const sm = decoded.ok && 'pti' in decoded.message ? decoded.message : undefined;
  if (sm !== undefined) logSm(amf, ue, 'inbound', sm, message.payloadContainer);
  if (amf.smf === undefined || sm === undefined || sm.pduSessionId !== message.pduSessionId) {
    sendNas(
      amf,
      ue,
      {
        messageType: 'dlNasTransport',
        payloadContainerType: N1_SM_INFORMATION,
        payloadContainer: message.payloadContainer,
        ...(message.pduSessionId === undefined ? {} : { pduSessionId: message.pduSessionId }),
        fiveGmmCause: PAYLOAD_NOT_FORWARDED,
      },
      { kind: 'current' },
    );
    return;
  }
  return amf.smf
    .uplink(
      {
        supi,
        allowedNssai: ue.allowedNssai,
        requestType: message.requestType,
        dnn: message.dnn,
        sNssai: message.sNssai,
      },
      sm,
    )
    .then(() => amf.ueContexts.save(ue));
}

/** The UE's connection when the radio holds its context (Initial Context Setup done), else undefined. */
function readyConnection(
  amf: SessionManagementAmf,
  supi: string,
): { ue: AmfUe; connection: UeConnection<AmfUe> } | undefined {
  const ue = amf.ues.bySupi(supi);
  if (ue === undefined || ue.cm.name !== 'connected') return undefined;
  const { connection } = ue.cm;
  if (connection.phase !== 'active' || !ue.cm.contextSetUp) return undefined;
  return { ue, connection };
}

const idsOf = (connection: UeConnection<AmfUe>) => ({
  amfUeNgapId: connection.amfUeNgapId,
  ranUeNgapId: connection.ranUeNgapId,
});

/**
 * The AMF's side of the SMF's requests (Namf_Communication_N1N2MessageTransfer): 5GSM messages in DL
 * NAS Transport, protected with the UE's current context, alone or as the NAS-PDU of a PDU Session
 * Resource Setup/Modify/Release message (TS 38.413 8.2), and paging of an idle UE for downlink data
 * (TS 23.502 4.2.3.3). `context` is read when a request comes.
 */
export function n1n2MessageTransfer(context: () => AmfContext): SmfAmfPort {
  const nasOf = (
    amf: SessionManagementAmf,
    ue: AmfUe,
    n1: FiveGsmMessage | undefined,
  ): Uint8Array | undefined | false => {
    if (n1 === undefined) return undefined;
    return nasPduFor(amf, ue, dlNasTransport(amf, ue, n1), { kind: 'current' }) ?? false;
  };
  const n2 = (
    supi: string,
    item: N2SmItem,
    build: (ids: ReturnType<typeof idsOf>, nasPdu: Uint8Array | undefined) => NGAPPDU,
  ): boolean => {
    const amf = context();
    const ready = readyConnection(amf, supi);
    if (ready === undefined) return false;
    const nasPdu = nasOf(amf, ready.ue, item.n1);
    if (nasPdu === false) return false;
    return ready.connection.radio.send(build(idsOf(ready.connection), nasPdu), ready.connection.streamId);
  };
  return {
    sendN1(supi, message) {
      const amf = context();
      const ue = amf.ues.bySupi(supi);
      if (ue === undefined) return false;
      return sendNas(amf, ue, dlNasTransport(amf, ue, message), { kind: 'current' });
    },
    setupResources: (supi, item) =>
      n2(supi, item, (ids, nasPdu) => pduSessionResourceSetupRequest(ids, item, nasPdu)),
    modifyResources: (supi, item) =>
      n2(supi, item, (ids, nasPdu) => pduSessionResourceModifyRequest(ids, item, nasPdu ?? new Uint8Array())),
    releaseResources: (supi, item) =>
      n2(supi, item, (ids, nasPdu) => pduSessionResourceReleaseCommand(ids, item, nasPdu)),
    pageForDownlinkData(supi) {
      const amf = context();
      const ue = amf.ues.bySupi(supi);
      if (ue === undefined || !isRegistered(ue) || connectionOf(ue) !== undefined) return false;
      // Paged already (for another session's data): one paging brings the UE back for all.
      if (ue.procedure.kind === 'paging') return ue.procedure.purpose.kind === 'downlink-data';
      return paging(amf, ue, { kind: 'downlink-data' });
    },
  };
}

/**
 * A PDU Session Resource Setup Response (TS 38.413 8.2.1.2), or an Initial Context Setup Response
 * (8.3.1.2) with PDU sessions, from the UE's radio: each set-up item's transfer goes to the SMF (the
 * gNB's downlink tunnel), each failed one (with its Unsuccessful Transfer) makes it release the session.
 */
export function sessionResourcesAnswered(
  amf: SessionManagementAmf,
  ue: AmfUe,
  answer: SessionResourcesAnswer,
): void {
  const supi = ue.supi;
  const smf = amf.smf;
  if (supi === undefined || smf === undefined) return;
  const { setUp, failed } = answer;
  for (const item of setUp)
    smf.resourcesSetUp(supi, item.pDUSessionID, item.pDUSessionResourceSetupResponseTransfer);
  for (const item of failed)
    smf.resourcesFailed(supi, item.pDUSessionID, item.pDUSessionResourceSetupUnsuccessfulTransfer);
  amf.ueContexts.save(ue);
}

/** What the UE's PDU session status and Uplink data status lead to (`reconcileSessions`). */
interface SessionReconciliation {
  /** The Accept's PDU session status and PDU session reactivation result IEs. */
  accept: { pduSessionStatus?: number[]; pduSessionReactivationResult?: number[] };
  /** The subscribed UE-AMBR and the sessions whose user plane comes back in Initial Context Setup. */
  context: Pick<InitialContextSetupIes, 'ueAggregateMaximumBitRate' | 'pduSessions'>;
}

/**
 * An initial NAS message's PDU session status and Uplink data status, for Service Request (TS 24.501
 * 5.6.1.4.1) and mobility/periodic Registration Request (5.5.1.3.4) alike: the SMF releases locally
 * the sessions the UE no longer holds and brings back the user plane of those in Uplink data status
 * (or paged for). The Accept carries the network's PDU session status when the UE sent its own, and
 * the PDU session reactivation result when it sent Uplink data status. The reactivated sessions go in
 * Initial Context Setup Request with the subscribed UE-AMBR (TS 23.502 4.2.3.2 step 12, TS 38.413
 * 9.2.2.1); a radio that holds the UE's context already (a registration over an established
 * connection) gets them in PDU Session Resource Setup Request instead.
 */
export function reconcileSessions(
  amf: SessionManagementAmf,
  ue: AmfUe,
  request: Partial<UeSessionStatus>,
  profile: SubscriptionData['profile'] | undefined,
): SessionReconciliation {
  const supi = ue.supi;
  const status =
    supi === undefined || amf.smf === undefined
      ? { pduSessionStatus: [], reactivationFailed: [], reactivate: [] }
      : amf.smf.statusReceived(supi, {
          pduSessionStatus: request.pduSessionStatus,
          uplinkDataStatus: request.uplinkDataStatus,
        });
  const accept = {
    ...(request.pduSessionStatus === undefined ? {} : { pduSessionStatus: status.pduSessionStatus }),
    ...(request.uplinkDataStatus === undefined
      ? {}
      : { pduSessionReactivationResult: status.reactivationFailed }),
  };
  const connection = connectionOf(ue);
  if (contextSetUp(ue) && connection !== undefined) {
    for (const item of status.reactivate)
      connection.radio.send(
        pduSessionResourceSetupRequest(idsOf(connection), item, undefined),
        connection.streamId,
      );
    return { accept, context: {} };
  }
  const downlink = profile === undefined ? undefined : parseBitrate(profile.ambrDownlink);
  const uplink = profile === undefined ? undefined : parseBitrate(profile.ambrUplink);
  if (status.reactivate.length === 0 || downlink === undefined || uplink === undefined)
    return { accept, context: {} };
  return {
    accept,
    context: {
      ueAggregateMaximumBitRate: {
        uEAggregateMaximumBitRateDL: downlink,
        uEAggregateMaximumBitRateUL: uplink,
      },
      pduSessions: status.reactivate.map((item) => ({
        pDUSessionID: item.pduSessionId,
        sNSSAI: ngapSnssai(item.sNssai),
        pDUSessionResourceSetupRequestTransfer: item.transfer,
      })),
    },
  };
}
