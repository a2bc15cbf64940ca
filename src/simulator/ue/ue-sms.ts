// The UE's side of SMS over NAS (TS 24.011, TS 23.040) for the simulator: it sends text as SMS-SUBMIT in
// RP-DATA in CP-DATA (split into concatenated parts when it needs more than one), acknowledges what the
// network sends (CP-ACK, then RP-ACK in CP-DATA) and keeps what it received in an inbox, concatenated
// parts joined. The network's timers are the SMSF's concern; here a send gives up after `answerMs`.
import type { Timers } from '../../clock.ts';
import {
  concatenationOf,
  decodeCpMessage,
  decodeDcs,
  decodeRpMessage,
  decodeTpdu,
  decodeUserData,
  encodeCpMessage,
  encodeDcs,
  encodeRpMessage,
  encodeTpdu,
  rpCauseLabel,
  SmsReassembler,
  splitText,
  timestampToDate,
  TYPE_OF_NUMBER,
  NUMBERING_PLAN,
  type SmsAddress,
} from '../../network/sms/index.ts';

/** A short message the UE received: the text (parts joined), its sender and the service centre's time. */
interface ReceivedSms {
  kind: 'message';
  from: string;
  text: string;
  /** TP-SCTS, as an ISO date. */
  sentAt: string;
}

/** A status report the UE received for one of its messages (TS 23.040 9.2.2.3). */
interface ReceivedReport {
  kind: 'status-report';
  /** TP-MR of the SMS-SUBMIT it reports on. */
  messageReference: number;
  recipient: string;
  /** TP-ST: 0 received by the recipient (9.2.3.15). */
  status: number;
}

/** How a send ended: every part acknowledged (RP-ACK), refused (RP-ERROR with its cause), or no answer. */
export type SmsSendOutcome =
  | { outcome: 'sent'; parts: number; messageReferences: number[] }
  | { outcome: 'refused'; cause: string }
  | { outcome: 'no-answer' };

interface MoTransfer {
  ti: number;
  reference: number;
  settle: (answer: { ok: true } | { ok: false; cause: string } | undefined) => void;
}

/** The service centre address the RP-DATA names (TS 24.011 8.2.5.2): the SMSF ignores it. */
const SERVICE_CENTRE: SmsAddress = {
  typeOfNumber: TYPE_OF_NUMBER.international,
  numberingPlan: 1,
  value: '0',
};

export class UeSms {
  readonly inbox: (ReceivedSms | ReceivedReport)[] = [];
  readonly #send: (container: Uint8Array) => void;
  readonly #timers: Timers;
  readonly #answerMs: number;
  readonly #reassembler = new SmsReassembler();
  readonly #transfers = new Map<number, MoTransfer>();
  readonly #waiters: (() => void)[] = [];
  #nextTi = 0;
  #nextRpReference = 0;
  #nextTpReference = 0;
  #nextConcatReference = 0;

  /** `send` puts a container in UL NAS Transport (payload container type SMS). */
  constructor(send: (container: Uint8Array) => void, timers: Timers, answerMs = 30_000) {
    this.#send = send;
    this.#timers = timers;
    this.#answerMs = answerMs;
  }

  /**
   * Sends `text` to `msisdn` (E.164 digits), part after part; resolves once the network answered the
   * last part's RP-DATA, or refused one.
   */
  async sendText(
    msisdn: string,
    text: string,
    options: { statusReport?: boolean } = {},
  ): Promise<SmsSendOutcome> {
    const split = splitText(text, { reference: this.#nextConcatReference });
    this.#nextConcatReference = (this.#nextConcatReference + 1) & 0xff;
    if (!split.ok) return { outcome: 'refused', cause: split.error };
    const references: number[] = [];
    for (const part of split.value.parts) {
      const messageReference = this.#nextTpReference;
      this.#nextTpReference = (messageReference + 1) & 0xff;
      const tpdu = encodeTpdu({
        type: 'sms-submit',
        rejectDuplicates: false,
        replyPath: false,
        statusReportRequest: options.statusReport === true,
        messageReference,
        destination: {
          typeOfNumber: TYPE_OF_NUMBER.international,
          numberingPlan: NUMBERING_PLAN.isdnTelephone,
          value: msisdn,
        },
        protocolIdentifier: 0,
        dataCodingScheme: encodeDcs(split.value.alphabet),
        userData: part.userData,
      });
      const answer = await this.#submit(tpdu);
      if (answer === undefined) return { outcome: 'no-answer' };
      if (!answer.ok) return { outcome: 'refused', cause: answer.cause };
      references.push(messageReference);
    }
    return { outcome: 'sent', parts: references.length, messageReferences: references };
  }

  /** Resolves once the inbox holds `count` entries, or after `withinMs` (false). */
  async received(count: number, withinMs: number): Promise<boolean> {
    if (this.inbox.length >= count) return true;
    return new Promise<boolean>((resolve) => {
      const finish = (ok: boolean): void => {
        cancel();
        const at = this.#waiters.indexOf(check);
        if (at >= 0) this.#waiters.splice(at, 1);
        resolve(ok);
      };
      const check = (): void => {
        if (this.inbox.length >= count) finish(true);
      };
      const cancel = this.#timers.after(withinMs, () => finish(false));
      this.#waiters.push(check);
    });
  }

  /** One RP-DATA in CP-DATA on a TI of the UE's; its RP answer, or undefined after `answerMs`. */
  #submit(tpdu: Uint8Array): Promise<{ ok: true } | { ok: false; cause: string } | undefined> {
    const ti = this.#nextTi;
    this.#nextTi = (ti + 1) % 7;
    const reference = this.#nextRpReference;
    this.#nextRpReference = (reference + 1) & 0xff;
    const rpdu = encodeRpMessage({
      type: 'rp-data',
      direction: 'ms-to-network',
      messageReference: reference,
      destination: SERVICE_CENTRE,
      tpdu,
    });
    return new Promise((resolve) => {
      const cancel = this.#timers.after(this.#answerMs, () => settle(undefined));
      const settle: MoTransfer['settle'] = (answer) => {
        cancel();
        this.#transfers.delete(ti);
        resolve(answer);
      };
      this.#transfers.set(ti, { ti, reference, settle });
      this.#send(encodeCpMessage({ type: 'cp-data', transactionId: ti, tiFlag: false, rpdu }));
    });
  }

  /** A CP message from the network (DL NAS Transport, payload container type SMS). */
  handle(container: Uint8Array): void {
    const decoded = decodeCpMessage(container);
    if (!decoded.ok) return;
    const cp = decoded.value;
    if (cp.type !== 'cp-data') return; // CP-ACK and CP-ERROR end nothing the UE waits on beyond its own timer
    // TI flag 1: the answer on a transfer the UE started; 0: the network's transfer.
    this.#send(encodeCpMessage({ type: 'cp-ack', transactionId: cp.transactionId, tiFlag: !cp.tiFlag }));
    const rp = decodeRpMessage(cp.rpdu);
    if (!rp.ok) return;
    const message = rp.value;
    if (cp.tiFlag) {
      const transfer = this.#transfers.get(cp.transactionId);
      if (transfer === undefined) return;
      if (message.type === 'rp-ack') transfer.settle({ ok: true });
      else if (message.type === 'rp-error')
        transfer.settle({ ok: false, cause: rpCauseLabel(message.cause) });
      return;
    }
    if (message.type !== 'rp-data') return;
    this.#deliver(message.tpdu);
    const ack = encodeRpMessage({
      type: 'rp-ack',
      direction: 'ms-to-network',
      messageReference: message.messageReference,
      tpdu: encodeTpdu({ type: 'sms-deliver-report' }),
    });
    this.#send(
      encodeCpMessage({ type: 'cp-data', transactionId: cp.transactionId, tiFlag: true, rpdu: ack }),
    );
  }

  #deliver(bytes: Uint8Array): void {
    const decoded = decodeTpdu(bytes, 'sc-to-ms', 'rp-data');
    if (!decoded.ok) return;
    const tpdu = decoded.value;
    if (tpdu.type === 'sms-status-report') {
      this.#add({
        kind: 'status-report',
        messageReference: tpdu.messageReference,
        recipient: tpdu.recipient.value,
        status: tpdu.status,
      });
      return;
    }
    if (tpdu.type !== 'sms-deliver') return;
    const content = decodeUserData(tpdu.userData, decodeDcs(tpdu.dataCodingScheme));
    if (!content.ok) return;
    const text = content.value.text ?? Buffer.from(content.value.data ?? []).toString('hex');
    const from = tpdu.originator.value;
    const sentAt = timestampToDate(tpdu.serviceCentreTimeStamp).toISOString();
    const concat = concatenationOf(content.value.header);
    if (concat === undefined) return this.#add({ kind: 'message', from, text, sentAt });
    const joined = this.#reassembler.add(from, concat, text, Date.now());
    if (joined.status === 'complete' && typeof joined.content === 'string')
      this.#add({ kind: 'message', from, text: joined.content, sentAt });
  }

  #add(entry: ReceivedSms | ReceivedReport): void {
    this.inbox.push(entry);
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Calls `listener` with each later inbox entry; returns the function that stops it. */
  onReceived(listener: (entry: ReceivedSms | ReceivedReport) => void): () => void {
    let seen = this.inbox.length;
    const waiter = (): void => {
      while (seen < this.inbox.length) listener(this.inbox[seen++]!);
    };
    this.#waiters.push(waiter);
    return () => {
      const at = this.#waiters.indexOf(waiter);
      if (at >= 0) this.#waiters.splice(at, 1);
    };
  }
}
