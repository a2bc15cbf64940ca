// What a gNB tells the AMF of a UE's PDU sessions on its own (TS 38.413 8.2.4, 8.2.5), through the
// generated builders: PDU Session Resource Modify Indication with a new downlink tunnel, and PDU Session
// Resource Notify (QoS flows notified or released, sessions released); and Secondary RAT Data Usage
// Report (8.16.1).
import { encodeComplete } from '../../network/asn1/complete.ts';
import {
  encodePDUSessionResourceModifyIndicationTransfer,
  encodePDUSessionResourceNotifyReleasedTransfer,
  encodePDUSessionResourceNotifyTransfer,
  encodeSecondaryRATDataUsageReportTransfer,
} from '../../network/ngap/generated/codec.ts';
import {
  buildPDUSessionResourceModifyIndication,
  buildPDUSessionResourceNotify,
  buildSecondaryRATDataUsageReport,
} from '../../network/ngap/generated/messages.ts';
import type {
  Cause,
  NGAPPDU,
  NotificationCause,
  PDUSessionUsageReport_rATType,
} from '../../network/ngap/generated/types.ts';
import { gtpTunnel, type TunnelEnd, type UeIds } from './gnb-sessions.ts';

const ALIGNED = true;

/** PDU Session Resource Modify Indication (9.2.1.8): each session's new downlink tunnel for its QoS flows. */
export function pduSessionResourceModifyIndication(
  ids: UeIds,
  sessions: readonly { pduSessionId: number; downlink: TunnelEnd; qfis: readonly number[] }[],
): NGAPPDU {
  return buildPDUSessionResourceModifyIndication({
    ...ids,
    pduSessionResourceModifyListModInd: sessions.map((s) => ({
      pDUSessionID: s.pduSessionId,
      pDUSessionResourceModifyIndicationTransfer: encodeComplete(
        {
          dLQosFlowPerTNLInformation: {
            uPTransportLayerInformation: gtpTunnel(s.downlink),
            associatedQosFlowList: s.qfis.map((qfi) => ({ qosFlowIdentifier: qfi })),
          },
        },
        ALIGNED,
        encodePDUSessionResourceModifyIndicationTransfer,
      ),
    })),
  });
}

/** What a Notify says of one session: QoS flows notified or released (9.3.4.5). */
interface NotifiedSession {
  pduSessionId: number;
  notified?: readonly { qfi: number; cause: NotificationCause }[];
  released?: readonly { qfi: number; cause: Cause }[];
}

/** PDU Session Resource Notify (9.2.1.7): sessions with QoS flows notified or released, sessions released. */
export function pduSessionResourceNotify(
  ids: UeIds,
  lists: {
    sessions?: readonly NotifiedSession[];
    released?: readonly { pduSessionId: number; cause: Cause }[];
  },
): NGAPPDU {
  const sessions = lists.sessions ?? [];
  const released = lists.released ?? [];
  return buildPDUSessionResourceNotify({
    ...ids,
    ...(sessions.length === 0
      ? {}
      : {
          pduSessionResourceNotifyList: sessions.map((s) => ({
            pDUSessionID: s.pduSessionId,
            pDUSessionResourceNotifyTransfer: encodeComplete(
              {
                ...(s.notified === undefined
                  ? {}
                  : {
                      qosFlowNotifyList: s.notified.map((f) => ({
                        qosFlowIdentifier: f.qfi,
                        notificationCause: f.cause,
                      })),
                    }),
                ...(s.released === undefined
                  ? {}
                  : {
                      qosFlowReleasedList: s.released.map((f) => ({
                        qosFlowIdentifier: f.qfi,
                        cause: f.cause,
                      })),
                    }),
              },
              ALIGNED,
              encodePDUSessionResourceNotifyTransfer,
            ),
          })),
        }),
    ...(released.length === 0
      ? {}
      : {
          pduSessionResourceReleasedListNot: released.map((r) => ({
            pDUSessionID: r.pduSessionId,
            pDUSessionResourceNotifyReleasedTransfer: encodeComplete(
              { cause: r.cause },
              ALIGNED,
              encodePDUSessionResourceNotifyReleasedTransfer,
            ),
          })),
        }),
  });
}

/** Octets one session carried over a secondary RAT in one time window (TS 38.413 9.3.1). */
interface SecondaryRatVolume {
  pduSessionId: number;
  ratType: PDUSessionUsageReport_rATType;
  uplinkOctets: number;
  downlinkOctets: number;
}

/** The seconds of an NTP timestamp (RFC 5905 6: 4 octets, TS 38.413 9.3.1) of `ms` since the Unix epoch. */
function ntpSeconds(ms: number): Uint8Array {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE((Math.floor(ms / 1000) + 2_208_988_800) >>> 0, 0);
  return bytes;
}

/**
 * Secondary RAT Data Usage Report (8.16.1): per session, a PDU session level usage report
 * of one time window from `startMs` to `endMs`.
 */
export function secondaryRatDataUsageReport(
  ids: UeIds,
  volumes: readonly SecondaryRatVolume[],
  window: { startMs: number; endMs: number },
): NGAPPDU {
  return buildSecondaryRATDataUsageReport({
    ...ids,
    pduSessionResourceSecondaryRatUsageList: volumes.map((v) => ({
      pDUSessionID: v.pduSessionId,
      secondaryRATDataUsageReportTransfer: encodeComplete(
        {
          secondaryRATUsageInformation: {
            pDUSessionUsageReport: {
              rATType: v.ratType,
              pDUSessionTimedReportList: [
                {
                  startTimeStamp: ntpSeconds(window.startMs),
                  endTimeStamp: ntpSeconds(window.endMs),
                  usageCountUL: v.uplinkOctets,
                  usageCountDL: v.downlinkOctets,
                },
              ],
            },
          },
        },
        ALIGNED,
        encodeSecondaryRATDataUsageReportTransfer,
      ),
    })),
  });
}
