// A device's message to a number outside the network, stored by the SMSF, goes to the SMSC as submit_sm
// (SMPP v3.4 4.4; docs/sms.md, "SMSC link"). Its submit_sm_resp and the SMSC's delivery receipt settle the
// stored message: a refusal fails it with the command_status named, a receipt delivers, fails or expires
// it with the receipt's state named. The sender hears a status report when it asked for one (`settled`).
// A message the link could not hand over (not bound) stays queued for the next bind; one the SMSC refused
// for now (throttled, queue full) is tried again after `retryMs`. At most once: a message is claimed in
// the store before its submit_sm goes out, and one whose submit_sm went out with no answer heard (the
// link lost, the answer late or unreadable) is never sent again: SMPP 3.4 has no key by which an SMSC
// could tell a second submit_sm of it from a new message, so it is failed as "in doubt" (docs/sms.md).

import type { Logger } from 'pino';
import type { Clock, Timers } from '../../clock.ts';
import type { SmscOutbox, SmsStatus, SmsStore, StoredSms } from '../ports/sms-store.ts';
import { decodeDcs, decodeUserData, textToSeptets, TYPE_OF_NUMBER } from '../sms/index.ts';
import { STATUS, type ShortMessage } from './pdu.ts';
import type { DeliveryReceipt } from './receipt.ts';
import type { SubmitResult } from './smsc-link.ts';

/** SMPP addr_ton (5.2.5) and addr_npi (5.2.6). */
const TON = { unknown: 0, international: 1, national: 2, alphanumeric: 5 } as const;
const NPI_ISDN = 1;
/** esm_class bit 6: the short message starts with a user data header (5.2.12). */
const ESM_UDHI = 0x40;
/** registered_delivery (5.2.17): an SMSC delivery receipt on the final outcome, success or failure. */
const RECEIPT_ON_FINAL_OUTCOME = 0x01;
/** data_coding (5.2.19): the SMSC's default alphabet (GSM 7-bit here), 8-bit binary, UCS-2. */
const DATA_CODING = { gsm7: 0x00, '8bit': 0x04, ucs2: 0x08 } as const;
/**
 * data_coding 0xF0-0xF7, "GSM message class control" (5.2.19): the TS 23.038 octet of the group 1111,
 * class in bits 1-0, bit 2 set for 8-bit data. SMPP 3.4 has no value for UCS-2 with a class: such a
 * message goes as 8 (UCS-2) and its class is lost (docs/sms.md).
 */
const CLASS_CONTROL = 0xf0;
const CLASS_CONTROL_8BIT = 0x04;
/** Refusals that say "not now" (5.1.3): the message stays queued and is submitted again later. */
const TEMPORARY = new Set<number>([STATUS.ESME_RMSGQFUL, STATUS.ESME_RTHROTTLED, STATUS.ESME_RX_T_APPN]);
const STATUS_NAMES = new Map<number, string>(Object.entries(STATUS).map(([name, code]) => [code, name]));
/** Read this many at a time from the store. */
const BATCH = 16;

export type SettledOutcome = { status: Exclude<SmsStatus, 'queued'>; at: number };

interface MoToSmscDeps {
  outbox: SmscOutbox;
  store: Pick<SmsStore, 'settle'>;
  /** The link's submit_sm (SmscLink.submit). */
  submit: (message: Omit<ShortMessage, 'tlvs'>) => Promise<SubmitResult>;
  /** The message settled: the SMSF sends its sender a status report when it asked for one. */
  settled: (message: StoredSms, outcome: SettledOutcome) => void;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** How long after a temporary refusal the queue is tried again. */
  retryMs?: number;
}

/** `command_status` as SMPP 5.1.3 names it, with its value. */
function statusName(status: number): string {
  const hex = `0x${status.toString(16).padStart(8, '0')}`;
  const name = STATUS_NAMES.get(status);
  return name === undefined ? hex : `${name} (${hex})`;
}

export function createMoToSmsc(deps: MoToSmscDeps) {
  const retryMs = deps.retryMs ?? 10_000;
  let running: Promise<void> | undefined;
  /** The submit_sm in flight and the write of its message_id: a receipt may overtake that write. */
  let handing: Promise<unknown> | undefined;
  let again = false;
  let cancelRetry: (() => void) | undefined;
  let stopped = false;

  async function settle(message: StoredSms, status: SettledOutcome['status'], cause?: string): Promise<void> {
    const at = deps.clock.now();
    await deps.store.settle(message.id, { status, at, ...(cause === undefined ? {} : { cause }) });
    deps.settled(message, { status, at });
  }

  /** The submit_sm of a claimed message; 'taken' when another pass or process claimed it first. */
  async function handOver(
    message: StoredSms,
    submitSm: Omit<ShortMessage, 'tlvs'>,
  ): Promise<SubmitResult | 'taken'> {
    if (!(await deps.outbox.claim(message.id))) return 'taken';
    const result = await deps.submit(submitSm);
    if (result.ok) await deps.outbox.submitted(message.id, result.messageId);
    else if (result.inDoubt !== true) await deps.outbox.release(message.id);
    return result;
  }

  /**
   * The SMSC may have taken the message, and no receipt can name it (its message_id was not heard): it
   * is failed with the reason, and its sender hears no status report, which would claim an outcome.
   */
  async function inDoubt(message: StoredSms, error: string): Promise<void> {
    const cause = `in doubt: ${error} after submit_sm; not sent again`;
    deps.logger.warn(
      { id: message.id, error },
      'SMSC link: submit_sm unanswered; the message is not sent again',
    );
    await deps.store.settle(message.id, { status: 'failed', cause, at: deps.clock.now() });
  }

  /** One pass over what waits; false when the link could not take more now. */
  async function pass(): Promise<boolean> {
    for (;;) {
      const waiting = await deps.outbox.awaitingSubmission(BATCH);
      for (const message of waiting) {
        if (stopped) return false;
        if (message.validUntil <= deps.clock.now()) {
          await settle(message, 'expired');
          continue;
        }
        const submitSm = submitSmOf(message);
        if (!submitSm.ok) {
          deps.logger.warn(
            { id: message.id, error: submitSm.error },
            'SMSC link: a message cannot be submitted',
          );
          await settle(message, 'failed', submitSm.error);
          continue;
        }
        const handed = handOver(message, submitSm.value);
        handing = handed;
        const result = await handed;
        if (result === 'taken' || result.ok) continue;
        if (result.inDoubt === true) {
          await inDoubt(message, result.error);
          return false;
        }
        if (result.status === undefined) return false;
        if (TEMPORARY.has(result.status)) {
          deps.logger.info(
            { id: message.id, status: statusName(result.status) },
            'SMSC link: submit_sm deferred',
          );
          if (!stopped)
            cancelRetry ??= deps.timers.after(retryMs, () => {
              cancelRetry = undefined;
              void flush();
            });
          return false;
        }
        await settle(message, 'failed', `SMSC refused: ${statusName(result.status)}`);
      }
      if (waiting.length < BATCH) return true;
    }
  }

  /** Submits what waits, oldest first, one at a time; a call during a pass makes one more pass after it. */
  function flush(): Promise<void> {
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          if (!(await pass())) again = false;
        } while (again && !stopped);
      } catch (error) {
        deps.logger.error({ err: error }, 'SMSC link: handing messages to the SMSC failed');
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  return {
    flush,
    /** A delivery receipt (receipt.ts): a final state settles the message the SMSC took under its id. */
    async receipt(receipt: DeliveryReceipt): Promise<void> {
      if (receipt.outcome === undefined) return;
      let message = await deps.outbox.bySmscMessageId(receipt.messageId);
      // The receipt came right behind its submit_sm_resp, before the message_id was written.
      if (message === undefined && handing !== undefined) {
        await handing.catch(() => undefined);
        message = await deps.outbox.bySmscMessageId(receipt.messageId);
      }
      if (message === undefined) {
        deps.logger.info({ smscMessageId: receipt.messageId }, 'SMSC link: a receipt for no queued message');
        return;
      }
      const cause =
        receipt.outcome === 'delivered'
          ? undefined
          : `SMSC receipt ${receipt.state}${receipt.error === undefined ? '' : ` (err:${receipt.error})`}`;
      await settle(message, receipt.outcome, cause);
    },
    /** No more passes or retries; a pass under way ends at its next message. */
    async stop(): Promise<void> {
      stopped = true;
      cancelRetry?.();
      cancelRetry = undefined;
      await running;
    },
  };
}

type SubmitSm = { ok: true; value: Omit<ShortMessage, 'tlvs'> } | { ok: false; error: string };

/**
 * submit_sm of a stored message: TP-OA as source_addr, the MSISDN as an international destination_addr,
 * the user data header (esm_class UDHI) then the content: GSM 7-bit as one septet per octet under
 * data_coding 0 (as deliver_sm is read, mt-from-smsc.ts), UCS-2 under 8, 8-bit data under 4. TP-PID as
 * protocol_id; the validity as an absolute time in UTC (7.1.1); a receipt asked for on the final outcome.
 */
export function submitSmOf(message: StoredSms): SubmitSm {
  if (message.destinationMsisdn === undefined) return { ok: false, error: 'no destination number' };
  const coding = decodeDcs(message.dataCodingScheme);
  const userData = decodeUserData(message.userData, coding);
  if (!userData.ok) return { ok: false, error: `user data: ${userData.error}` };
  const bytes = message.userData.bytes;
  const header = message.userData.headerIndicator
    ? bytes.subarray(0, 1 + (bytes[0] ?? 0))
    : new Uint8Array(0);
  let body: Uint8Array;
  let dataCoding: number;
  if (coding.alphabet === 'gsm7' && !coding.compressed) {
    const septets = textToSeptets(userData.value.text ?? '');
    if (septets === undefined) return { ok: false, error: 'text outside the GSM 7-bit alphabet' };
    body = Uint8Array.from(septets);
    dataCoding = coding.messageClass === undefined ? DATA_CODING.gsm7 : CLASS_CONTROL | coding.messageClass;
  } else if (coding.alphabet === 'ucs2' && !coding.compressed) {
    body = bytes.subarray(header.length);
    dataCoding = DATA_CODING.ucs2;
  } else {
    body = userData.value.data ?? new Uint8Array(0);
    dataCoding =
      coding.messageClass === undefined
        ? DATA_CODING['8bit']
        : CLASS_CONTROL | CLASS_CONTROL_8BIT | coding.messageClass;
  }
  const source = message.originator;
  return {
    ok: true,
    value: {
      serviceType: '',
      source:
        source.typeOfNumber === TYPE_OF_NUMBER.alphanumeric
          ? { ton: TON.alphanumeric, npi: 0, address: source.value }
          : {
              ton:
                source.typeOfNumber === TYPE_OF_NUMBER.international
                  ? TON.international
                  : source.typeOfNumber === TYPE_OF_NUMBER.national
                    ? TON.national
                    : TON.unknown,
              npi: NPI_ISDN,
              address: source.value,
            },
      destination: { ton: TON.international, npi: NPI_ISDN, address: message.destinationMsisdn },
      esmClass: message.userData.headerIndicator ? ESM_UDHI : 0,
      protocolId: message.protocolIdentifier,
      priority: 0,
      scheduleDeliveryTime: '',
      validityPeriod: smppAbsoluteTime(message.validUntil),
      registeredDelivery: RECEIPT_ON_FINAL_OUTCOME,
      replaceIfPresent: 0,
      dataCoding,
      defaultMessageId: 0,
      message: Uint8Array.from([...header, ...body]),
    },
  };
}

/** SMPP's absolute time "YYMMDDhhmmsstnnp" (7.1.1) in UTC: tenths 0, offset 00 quarter-hours, '+'. */
function smppAbsoluteTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    two(d.getUTCFullYear() % 100) +
    two(d.getUTCMonth() + 1) +
    two(d.getUTCDate()) +
    two(d.getUTCHours()) +
    two(d.getUTCMinutes()) +
    two(d.getUTCSeconds()) +
    '000+'
  );
}
