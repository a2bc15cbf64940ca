import type {
  PDUSessionResourceModifyListModInd,
  PDUSessionResourceSecondaryRATUsageList,
} from '../../ngap/generated/types.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import type { UeConnection } from '../context/ue-connections.ts';
import {
  failedSessions,
  type ModifyConfirmLists,
  type ReceivedPduSessionResourceNotify,
  type SessionIndicationEndpoint,
} from '../n2/ue-ngap.ts';

/** The parts of the AMF context this relay uses. */
type SessionIndicationsAmf = Pick<AmfContext, 'smf' | 'ueContexts'>;

/**
 * What a radio tells of PDU sessions on its own, relayed to the SMF as N2 SM information (TS 23.502
 * 4.3.3.2 step 1e, 4.14.1): PDU Session Resource Notify (TS 38.413 8.2.4) per listed session, and PDU
 * Session Resource Modify Indication (8.2.5) answered with Modify Confirm from the SMF's transfers, and
 * Secondary RAT Data Usage Report (8.16.1, TS 23.502 4.21) per listed session. A
 * connection without a registered UE, or without an SMF, has no session: every indicated one fails
 * with `unknown-PDU-session-ID`, and a Notify changes nothing.
 */
export function createSessionIndications(amf: SessionIndicationsAmf): SessionIndicationEndpoint<AmfUe> {
  return {
    notified(connection: UeConnection<AmfUe>, message: ReceivedPduSessionResourceNotify): void {
      const ue = connection.owner;
      const supi = ue?.supi;
      const smf = amf.smf;
      if (ue === undefined || supi === undefined || smf === undefined) return;
      for (const item of message.pduSessionResourceNotifyList ?? [])
        smf.radioNotified(supi, item.pDUSessionID, item.pDUSessionResourceNotifyTransfer);
      for (const item of message.pduSessionResourceReleasedListNot ?? [])
        smf.radioReleasedSession(supi, item.pDUSessionID);
      amf.ueContexts.save(ue);
    },

    secondaryRatUsage(connection: UeConnection<AmfUe>, items: PDUSessionResourceSecondaryRATUsageList): void {
      const supi = connection.owner?.supi;
      const smf = amf.smf;
      if (supi === undefined || smf === undefined) return;
      for (const item of items)
        smf.secondaryRatUsage(supi, item.pDUSessionID, item.secondaryRATDataUsageReportTransfer);
    },

    modifyIndicated(
      connection: UeConnection<AmfUe>,
      items: PDUSessionResourceModifyListModInd,
    ): ModifyConfirmLists {
      const supi = connection.owner?.supi;
      const smf = amf.smf;
      if (supi === undefined || smf === undefined) return failedSessions(items);
      // A PDU session id listed twice: none of them is modified (as TS 38.413 8.2.1.4 and 8.4.4.4
      // answer repeated ids in the other session lists).
      if (new Set(items.map((item) => item.pDUSessionID)).size !== items.length)
        return failedSessions(items, { choice: 'radioNetwork', value: 'multiple-PDU-session-ID-instances' });
      const lists: ModifyConfirmLists = { confirmed: [], failed: [] };
      for (const item of items) {
        const answer = smf.modifyIndicated(
          supi,
          item.pDUSessionID,
          item.pDUSessionResourceModifyIndicationTransfer,
        );
        if (answer.confirmed)
          lists.confirmed.push({
            pDUSessionID: item.pDUSessionID,
            pDUSessionResourceModifyConfirmTransfer: answer.transfer,
          });
        else
          lists.failed.push({
            pDUSessionID: item.pDUSessionID,
            pDUSessionResourceModifyIndicationUnsuccessfulTransfer: answer.transfer,
          });
      }
      return lists;
    },
  };
}
