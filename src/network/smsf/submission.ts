import type { Logger } from 'pino';
import {
  decodeTpdu,
  RP_CAUSE,
  TP_FAILURE_CAUSE,
  TYPE_OF_NUMBER,
  validityExpiry,
  type RpMessage,
} from '../sms/index.ts';
import type { SmsStore, SmsSubscribers, StoredSms } from '../ports/sms-store.ts';
import { msisdnAddress, rpAckToUe, rpErrorToUe } from './relay-messages.ts';
import type { SmsfSettings } from './smsf-settings.ts';
import type { SmsfSmscPort } from './ports/smsc.ts';

/** What a submission leads to: the RP answer for the UE, and the recipient to deliver to once stored. */
interface SubmissionOutcome {
  rpdu: Uint8Array;
  /** The recipient's IMSI when the message was stored for it. */
  recipient?: string;
  /** The message as stored (its id), when it was. */
  stored?: StoredSms;
  /** The message was stored for a number outside the network: the SMSC link hands it over. */
  outside?: boolean;
}

/** E.164 digits as decisions 23 stores MSISDNs: at most 15, the first never 0. */
const E164 = /^[1-9]\d{0,14}$/;

/**
 * An RP-DATA from a UE (TS 24.011 7.3.1.2) with its SMS-SUBMIT (TS 23.040 9.2.2.2), checked in this
 * order, each refusal an RP-ERROR with the cause of TS 24.011 Table 8.4 (docs/sms.md, "Relay"):
 * - a sender whose profile does not allow SMS, or who has no MSISDN to send from: #50 "requested
 *   facility not subscribed";
 * - a TPDU that does not decode as an SMS-SUBMIT: #95 "semantically incorrect message" (the RP message
 *   is well formed, its content is not), with an SMS-SUBMIT-REPORT carrying the TP-FCS the decoder gave;
 * - a TP-DA that is no MSISDN of this network: stored for the SMSC link when one is configured and
 *   enabled and the TP-DA is E.164 digits; else #1 "unassigned (unallocated) number" (with no SMSC link
 *   no number outside the network can be reached, so none is assigned as far as this SMSC knows);
 * - a store that fails: #41 "temporary failure".
 * Otherwise the message is stored (durably) and the answer is RP-ACK with an SMS-SUBMIT-REPORT.
 */
export async function submission(
  deps: {
    store: SmsStore;
    subscribers: SmsSubscribers;
    settings: Pick<SmsfSettings, 'defaultValidityMs'>;
    now: number;
    logger: Logger;
    /** The SMSC link, when the SMSF has one. */
    smsc?: Pick<SmsfSmscPort, 'accepts'>;
  },
  supi: string,
  message: Extract<RpMessage, { type: 'rp-data' }>,
): Promise<SubmissionOutcome> {
  const { now } = deps;
  const reference = message.messageReference;
  const refuse = (cause: number): SubmissionOutcome => ({ rpdu: rpErrorToUe(reference, cause) });

  const sender = await deps.subscribers.smsSubscription(supi);
  if (sender === undefined || !sender.smsAllowed || sender.msisdn === undefined)
    return refuse(RP_CAUSE.requestedFacilityNotSubscribed);

  const decoded = decodeTpdu(message.tpdu, 'ms-to-sc', 'rp-data');
  if (!decoded.ok || decoded.value.type !== 'sms-submit')
    return {
      rpdu: rpErrorToUe(reference, RP_CAUSE.semanticallyIncorrectMessage, {
        failureCause: decoded.ok
          ? TP_FAILURE_CAUSE.tpduNotSupported
          : (decoded.cause ?? TP_FAILURE_CAUSE.unspecified),
        now,
      }),
    };
  const submit = decoded.value;

  const destination = submit.destination;
  const msisdn = destination.typeOfNumber === TYPE_OF_NUMBER.alphanumeric ? undefined : destination.value;
  const recipient =
    msisdn !== undefined && E164.test(msisdn) ? await deps.subscribers.imsiOf(msisdn) : undefined;
  const outside =
    recipient === undefined && msisdn !== undefined && E164.test(msisdn) && deps.smsc?.accepts() === true;
  if (msisdn === undefined || (recipient === undefined && !outside)) return refuse(RP_CAUSE.unassignedNumber);

  const validUntil =
    validityExpiry(submit.validityPeriod, new Date(now))?.getTime() ?? now + deps.settings.defaultValidityMs;
  let stored: StoredSms;
  try {
    stored = await deps.store.save({
      createdAt: now,
      originatorImsi: supi,
      originator: msisdnAddress(sender.msisdn),
      ...(recipient === undefined ? {} : { destinationImsi: recipient }),
      destinationMsisdn: msisdn,
      messageReference: submit.messageReference,
      protocolIdentifier: submit.protocolIdentifier,
      dataCodingScheme: submit.dataCodingScheme,
      userData: submit.userData,
      statusReportRequested: submit.statusReportRequest,
      validUntil,
    });
  } catch (error) {
    deps.logger.error({ err: error, supi }, 'SMSF: a short message could not be stored');
    return refuse(RP_CAUSE.temporaryFailure);
  }
  return {
    rpdu: rpAckToUe(reference, now),
    stored,
    ...(recipient === undefined ? { outside: true } : { recipient }),
  };
}
