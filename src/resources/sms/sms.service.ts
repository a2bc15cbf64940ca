import { randomInt } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { InvalidError, NotFoundError } from '../../errors.ts';
import type { Actor } from '../../identity/actor.ts';
import type { SmsSubscribers } from '../../network/ports/sms-store.ts';
import {
  encodeDcs,
  splitText,
  textToSeptets,
  TYPE_OF_NUMBER,
  MAX_USER_DATA_OCTETS,
} from '../../network/sms/index.ts';
import type { Db } from '../../storage/database.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { NewOperatorSms, SmsFilter, SmsRecord, SmsRepository } from './sms.repository.ts';

/** What the operator sends: to an MSISDN or an IMSI, text or octets, from a sender id. */
interface SendSmsInput {
  msisdn?: string;
  imsi?: string;
  text?: string;
  /** 8-bit data in hexadecimal, at most 140 octets (one part). */
  data?: string;
  /** An E.164 number or an alphanumeric sender id (TS 23.040 9.1.2.5: at most 11 GSM 7-bit characters). */
  from?: string;
  validitySeconds?: number;
}

/** The sender id when the operator names none. */
const DEFAULT_SENDER = 'PMN Core';
/** How long an operator's message waits for its recipient unless told (as a device's without TP-VP). */
const DEFAULT_VALIDITY_SECONDS = 7 * 86_400;

const E164 = /^\+?[1-9]\d{0,14}$/;

/** TP-OA of an operator's message: digits as an international number, else alphanumeric text. */
function senderOf(from: string): { originator: string; originatorType: number } {
  if (E164.test(from))
    return { originator: from.replace(/^\+/, ''), originatorType: TYPE_OF_NUMBER.international };
  const septets = textToSeptets(from);
  if (from.length === 0 || septets === undefined || septets.length > 11)
    throw new InvalidError(
      'from must be an E.164 number or a sender id of 1 to 11 characters of the GSM 7-bit alphabet',
    );
  return { originator: from, originatorType: TYPE_OF_NUMBER.alphanumeric };
}

/**
 * Operator-originated short messages (docs/sms.md, "API"): stored for the recipient as a device's are,
 * audited, and handed to the SMSF once committed (`onQueued`), which delivers them as it delivers the
 * others. The list and the clear read and delete the same table.
 */
export function createSmsService(deps: {
  db: Db;
  sms: SmsRepository;
  subscribers: SmsSubscribers;
  audit: AuditLogService;
  clock: Clock;
}) {
  const { db, sms, subscribers, audit, clock } = deps;
  const listeners = new Set<(imsi: string) => void>();

  async function recipientOf(input: SendSmsInput): Promise<{ imsi: string; msisdn: string | null }> {
    if ((input.msisdn === undefined) === (input.imsi === undefined))
      throw new InvalidError('give the recipient as msisdn or as imsi, one of the two');
    if (input.msisdn !== undefined) {
      const msisdn = input.msisdn.replace(/^\+/, '');
      const imsi = await subscribers.imsiOf(msisdn);
      if (imsi === undefined) throw new NotFoundError(`no subscriber has msisdn ${msisdn}`);
      return { imsi, msisdn };
    }
    const imsi = input.imsi as string;
    const found = await subscribers.smsSubscription(imsi);
    if (found === undefined) throw new NotFoundError(`subscriber ${imsi} not found`);
    return { imsi, msisdn: found.msisdn ?? null };
  }

  function partsOf(input: SendSmsInput): Pick<NewOperatorSms, 'dataCodingScheme' | 'userData'>[] {
    if ((input.text === undefined) === (input.data === undefined))
      throw new InvalidError('give the content as text or as data, one of the two');
    if (input.data !== undefined) {
      const bytes = Uint8Array.from(Buffer.from(input.data, 'hex'));
      if (bytes.length > MAX_USER_DATA_OCTETS)
        throw new InvalidError(`data must be at most ${MAX_USER_DATA_OCTETS} octets (one message)`);
      return [
        {
          dataCodingScheme: encodeDcs('8bit'),
          userData: { headerIndicator: false, length: bytes.length, bytes },
        },
      ];
    }
    // The concatenation reference: random, so that two messages in flight to one device differ.
    const split = splitText(input.text as string, { reference: randomInt(256) });
    if (!split.ok) throw new InvalidError(`text: ${split.error}`);
    const dcs = encodeDcs(split.value.alphabet);
    return split.value.parts.map((part) => ({ dataCodingScheme: dcs, userData: part.userData }));
  }

  return {
    /** Queues the message (one row per part); the recipient's IMSI and the parts' ids. */
    async send(input: SendSmsInput, actor: Actor): Promise<{ imsi: string; ids: number[] }> {
      const sender = senderOf(input.from ?? DEFAULT_SENDER);
      const parts = partsOf(input);
      const recipient = await recipientOf(input);
      const now = clock.now();
      const validUntil = now + (input.validitySeconds ?? DEFAULT_VALIDITY_SECONDS) * 1000;
      const ids = await db.transaction().execute(async (trx) => {
        const inserted = await sms.insert(
          parts.map((part) => ({
            ...part,
            ...sender,
            createdAt: now,
            destinationImsi: recipient.imsi,
            destinationMsisdn: recipient.msisdn,
            validUntil,
          })),
          trx,
        );
        const to = recipient.msisdn ?? recipient.imsi;
        await audit.record(
          actor,
          {
            action: 'send_sms',
            details: `SMS from ${sender.originator} to ${to} queued (${parts.length} part${parts.length === 1 ? '' : 's'})`,
          },
          trx,
        );
        return inserted;
      });
      for (const listener of listeners) listener(recipient.imsi);
      return { imsi: recipient.imsi, ids };
    },

    list: (
      filter: SmsFilter,
      limit: number,
      offset: number,
    ): Promise<{ items: SmsRecord[]; total: number }> => sms.list(filter, limit, offset),

    /** Deletes every message, audited; how many. */
    async clear(actor: Actor): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const deleted = await sms.deleteAll(trx);
        await audit.record(actor, { action: 'clear_sms', details: `${deleted} SMS messages deleted` }, trx);
        return deleted;
      });
    },

    /** Calls `listener` with the recipient's IMSI after each message is stored (the SMSF delivers it). */
    onQueued(listener: (imsi: string) => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

export type SmsService = ReturnType<typeof createSmsService>;
