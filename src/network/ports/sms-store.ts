// What the SMSF keeps of short messages and asks of the subscriber data (docs/sms.md). The SMSF defines
// these in its own terms; storage serves them (storage/network-ports/sms-store.ts), tests may fake them.

/** Where a stored message stands: waiting for its recipient, handed over, refused, or out of time. */
export type SmsStatus = 'queued' | 'delivered' | 'failed' | 'expired';

/** A TP address as stored: its type of number (TS 23.040 9.1.2.5) and digits or alphanumeric text. */
export interface StoredAddress {
  typeOfNumber: number;
  value: string;
}

/**
 * A short message as the SMSF stores it before answering RP-ACK: for a subscriber of this network, or
 * (no `destinationImsi`) for a number outside it, handed to the SMSC link.
 */
export interface NewSms {
  createdAt: number;
  /** The sending subscriber; absent for an operator-originated message. */
  originatorImsi?: string;
  /** TP-OA of the SMS-DELIVER: the sender's MSISDN, or an alphanumeric sender id. */
  originator: StoredAddress;
  /** The recipient; absent for a number outside the network (the SMSC link takes it). */
  destinationImsi?: string;
  destinationMsisdn?: string;
  /** TP-MR of the SMS-SUBMIT, which a status report names (TS 23.040 9.2.3.6). */
  messageReference: number;
  protocolIdentifier: number;
  dataCodingScheme: number;
  /** TP-UDHI, TP-UDL and TP-UD as the SMS-SUBMIT carried them. */
  userData: { headerIndicator: boolean; length: number; bytes: Uint8Array };
  statusReportRequested: boolean;
  /** When the message expires (its TP-VP, or the SMSF's default); Unix ms. */
  validUntil: number;
}

export interface StoredSms extends NewSms {
  id: number;
  status: SmsStatus;
  /** Why it failed (the RP-cause the device answered with), when it did. */
  cause?: string;
  /** Delivery attempts that ended (answered or given up); one in progress is not counted yet. */
  attempts: number;
  /** The message_id the SMSC gave when it took the message (its receipt names it). */
  smscMessageId?: string;
}

export interface SmsStore {
  /** Stores a queued message; resolves once it is durable (committed), with its id. */
  save(message: NewSms): Promise<StoredSms>;
  /**
   * The queued messages for `imsi`, oldest first, at most `limit`: with ids above `after` (0 unless
   * given); only those of message class 0 (TS 23.038 4, immediate display) when `class0` is set.
   */
  queuedFor(
    imsi: string,
    limit: number,
    options?: { after?: number; class0?: boolean },
  ): Promise<StoredSms[]>;
  /** A delivery attempt ended with no outcome (given up: the message stays queued); it counts attempts. */
  attempted(id: number): Promise<void>;
  /**
   * The message's outcome: delivered, failed (with the cause), expired. `attempt`: the outcome ends a
   * delivery attempt, counted with it (one write for both).
   */
  settle(
    id: number,
    outcome: { status: Exclude<SmsStatus, 'queued'>; cause?: string; at: number; attempt?: boolean },
  ): Promise<void>;
}

/** The subscriber data the SMSF reads (the UDM's SMS subscription data, TS 23.502 4.13.2.2). */
export interface SmsSubscribers {
  /** The subscriber holding `msisdn` (E.164 digits, decisions 23), or undefined. */
  imsiOf(msisdn: string): Promise<string | undefined>;
  /** The subscriber's MSISDN and whether its profile allows SMS; undefined for no subscriber. */
  smsSubscription(imsi: string): Promise<{ msisdn?: string; smsAllowed: boolean } | undefined>;
}

/** The messages for numbers outside the network, as the SMSC link hands them over (docs/sms.md). */
export interface SmscOutbox {
  /** Queued messages for numbers outside the network the SMSC has not taken yet, oldest first. */
  awaitingSubmission(limit: number): Promise<StoredSms[]>;
  /**
   * The message is about to go to the SMSC: true when it was still waiting and is now marked handed
   * (an empty `smscMessageId`), so no other pass or process sends it; false when it was taken already.
   */
  claim(id: number): Promise<boolean>;
  /** The SMSC answered that it did not take the claimed message: it waits for submission again. */
  release(id: number): Promise<void>;
  /** The SMSC took the message under `smscMessageId`; it stays queued until the receipt. */
  submitted(id: number, smscMessageId: string): Promise<void>;
  /** The queued message the SMSC took under `smscMessageId` (the newest, should an SMSC reuse ids). */
  bySmscMessageId(smscMessageId: string): Promise<StoredSms | undefined>;
}
