import type { Generated } from 'kysely';

/** A short message for a subscriber of this network (migration 0016; docs/sms.md). Times are Unix ms. */
export interface SmsMessagesTable {
  id: Generated<number>;
  created_at: number;
  /** The last change of status (or of the attempts). */
  updated_at: number;
  /** The sending subscriber; NULL for an operator-originated message. */
  originator_imsi: string | null;
  /** TP-OA: the sender's MSISDN digits or an alphanumeric sender id. */
  originator: string;
  /** TP-OA's type of number (TS 23.040 9.1.2.5): 1 international, 5 alphanumeric, ... */
  originator_type: number;
  destination_imsi: string;
  destination_msisdn: string | null;
  /** TP-MR of the SMS-SUBMIT, for the status report. */
  message_reference: number;
  protocol_identifier: number;
  data_coding_scheme: number;
  /** TP-UDHI: 1 when the user data starts with a header. */
  user_data_header: number;
  /** TP-UDL: septets (GSM 7-bit) or octets. */
  user_data_length: number;
  user_data: Uint8Array;
  status_report_requested: number;
  valid_until: number;
  /** `queued`, `delivered`, `failed`, `expired`. */
  status: string;
  /** Why it failed: the RP-cause the recipient answered with. */
  cause: string | null;
  attempts: Generated<number>;
}

export interface SmsTables {
  sms_messages: SmsMessagesTable;
}
