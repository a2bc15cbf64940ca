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
  /** NULL for a number outside the network, handed to the SMSC (migration 0020). */
  destination_imsi: string | null;
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
  /** The message_id the SMSC gave in submit_sm_resp (migration 0020); NULL before. */
  smsc_message_id: string | null;
}

/** The one SMSC link configuration, id 1 (migration 0020; docs/sms.md "SMSC link"). */
export interface SmscLinkTable {
  id: number;
  host: string;
  port: number;
  system_id: string;
  /** The bind password, sealed with the service's secret box. */
  password_sealed: string;
  system_type: string;
  /** 1: the link binds; 0: configured but kept down. */
  enabled: number;
  updated_at: number;
}

export interface SmsTables {
  sms_messages: SmsMessagesTable;
  smsc_link: SmscLinkTable;
}
