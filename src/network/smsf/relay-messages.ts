// The RP messages and TPDUs the SMSF sends (TS 24.011 7.3, TS 23.040 9.2.2), built from what it stores.
// Encoders throw RangeError only on values the SMSF built wrong; every field here comes from a decoded
// message or a stored one that was decoded before it was stored.
import {
  encodeRpMessage,
  encodeTpdu,
  NUMBERING_PLAN,
  timestampFromDate,
  TYPE_OF_NUMBER,
  type SmsAddress,
  type Tpdu,
} from '../sms/index.ts';
import type { StoredAddress, StoredSms } from '../ports/sms-store.ts';

/** A stored address as a TP address: E.164 digits with the ISDN plan, or alphanumeric text. */
function tpAddressOf(address: StoredAddress): SmsAddress {
  return {
    typeOfNumber: address.typeOfNumber,
    numberingPlan:
      address.typeOfNumber === TYPE_OF_NUMBER.alphanumeric
        ? NUMBERING_PLAN.unknown
        : NUMBERING_PLAN.isdnTelephone,
    value: address.value,
  };
}

/** The international E.164 address of an MSISDN (decisions 23: digits without "+"). */
export const msisdnAddress = (msisdn: string): StoredAddress => ({
  typeOfNumber: TYPE_OF_NUMBER.international,
  value: msisdn,
});

/** SMS-DELIVER of a stored message (TS 23.040 9.2.2.1), time-stamped `now`. */
export function smsDeliverOf(message: StoredSms, now: number, moreMessages: boolean): Tpdu {
  return {
    type: 'sms-deliver',
    moreMessagesToSend: moreMessages,
    loopPrevention: false,
    replyPath: false,
    statusReportIndication: message.statusReportRequested,
    originator: tpAddressOf(message.originator),
    protocolIdentifier: message.protocolIdentifier,
    dataCodingScheme: message.dataCodingScheme,
    serviceCentreTimeStamp: timestampFromDate(new Date(now)),
    userData: message.userData,
  };
}

/** TP-ST (TS 23.040 9.2.3.15) of a message's final outcome. */
export const TP_STATUS = {
  /** "Short message received by the SME". */
  received: 0x00,
  /** Permanent error, the SC makes no more attempts: "Remote procedure error". */
  remoteProcedureError: 0x40,
  /** Permanent error: "SM Validity Period Expired". */
  validityPeriodExpired: 0x46,
} as const;

/**
 * SMS-STATUS-REPORT (TS 23.040 9.2.2.3) telling the sender what became of `message`: TP-MR of its
 * SMS-SUBMIT, the recipient, the time the SMSF took it, the time of the outcome and TP-ST `status`
 * (9.2.3.15; by default 0 "short message received by the SME").
 */
export function statusReportOf(
  message: StoredSms,
  settledAt: number,
  status: number = TP_STATUS.received,
): Tpdu {
  return {
    type: 'sms-status-report',
    moreMessagesToSend: false,
    loopPrevention: false,
    commandReport: false,
    messageReference: message.messageReference,
    recipient: tpAddressOf(msisdnAddress(message.destinationMsisdn ?? '')),
    serviceCentreTimeStamp: timestampFromDate(new Date(message.createdAt)),
    dischargeTime: timestampFromDate(new Date(settledAt)),
    status,
  };
}

/** RP-DATA to the UE (TS 24.011 7.3.1.1) carrying `tpdu`, from the service centre `serviceCentre`. */
export function rpDataToUe(messageReference: number, serviceCentre: string, tpdu: Tpdu): Uint8Array {
  return encodeRpMessage({
    type: 'rp-data',
    direction: 'network-to-ms',
    messageReference,
    originator: {
      typeOfNumber: TYPE_OF_NUMBER.international,
      numberingPlan: NUMBERING_PLAN.isdnTelephone,
      value: serviceCentre,
    },
    tpdu: encodeTpdu(tpdu),
  });
}

/** RP-ACK to the UE for its RP-DATA, with the SMS-SUBMIT-REPORT (TS 23.040 9.2.2.2a) of the time it was taken. */
export function rpAckToUe(messageReference: number, now: number): Uint8Array {
  return encodeRpMessage({
    type: 'rp-ack',
    direction: 'network-to-ms',
    messageReference,
    tpdu: encodeTpdu({ type: 'sms-submit-report', serviceCentreTimeStamp: timestampFromDate(new Date(now)) }),
  });
}

/**
 * RP-ERROR to the UE (TS 24.011 7.3.4) with `cause`; with an SMS-SUBMIT-REPORT carrying TP-FCS
 * `failureCause` when the TPDU itself was refused (TS 23.040 9.2.3.22).
 */
export function rpErrorToUe(
  messageReference: number,
  cause: number,
  submitFailure?: { failureCause: number; now: number },
): Uint8Array {
  return encodeRpMessage({
    type: 'rp-error',
    direction: 'network-to-ms',
    messageReference,
    cause,
    ...(submitFailure === undefined
      ? {}
      : {
          tpdu: encodeTpdu({
            type: 'sms-submit-report',
            failureCause: submitFailure.failureCause,
            serviceCentreTimeStamp: timestampFromDate(new Date(submitFailure.now)),
          }),
        }),
  });
}
