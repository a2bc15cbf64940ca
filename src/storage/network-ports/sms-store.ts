import type {
  SmscOutbox,
  SmsStatus,
  SmsStore,
  SmsSubscribers,
  StoredSms,
} from '../../network/ports/sms-store.ts';
import type { Db } from '../database.ts';
import type { SmsMessagesTable } from '../tables/sms.ts';

type Row = Omit<SmsMessagesTable, 'id' | 'attempts'> & { id: number; attempts: number };

/** A stored row as the SMSF sees it. Bigints may come back as strings from PostgreSQL: read as numbers. */
function messageOf(row: Row): StoredSms {
  return {
    id: Number(row.id),
    createdAt: Number(row.created_at),
    ...(row.originator_imsi === null ? {} : { originatorImsi: row.originator_imsi }),
    originator: { typeOfNumber: row.originator_type, value: row.originator },
    ...(row.destination_imsi === null ? {} : { destinationImsi: row.destination_imsi }),
    ...(row.destination_msisdn === null ? {} : { destinationMsisdn: row.destination_msisdn }),
    messageReference: row.message_reference,
    protocolIdentifier: row.protocol_identifier,
    dataCodingScheme: row.data_coding_scheme,
    userData: {
      headerIndicator: row.user_data_header === 1,
      length: row.user_data_length,
      bytes: new Uint8Array(row.user_data),
    },
    statusReportRequested: row.status_report_requested === 1,
    validUntil: Number(row.valid_until),
    status: row.status as SmsStatus,
    ...(row.cause === null ? {} : { cause: row.cause }),
    attempts: Number(row.attempts),
    ...(row.smsc_message_id === null ? {} : { smscMessageId: row.smsc_message_id }),
  };
}

/**
 * The SMSF's message store (docs/sms.md) in `sms_messages` (migration 0016). Each write is one
 * statement, committed when it resolves: on SQLite in WAL mode that is on disk, so a message the SMSF
 * acknowledged with RP-ACK survives a restart.
 */
export function createSmsStore(deps: { db: Db }): SmsStore {
  const { db } = deps;
  return {
    async save(message) {
      const row = await db
        .insertInto('sms_messages')
        .values({
          created_at: message.createdAt,
          updated_at: message.createdAt,
          originator_imsi: message.originatorImsi ?? null,
          originator: message.originator.value,
          originator_type: message.originator.typeOfNumber,
          destination_imsi: message.destinationImsi ?? null,
          destination_msisdn: message.destinationMsisdn ?? null,
          message_reference: message.messageReference,
          protocol_identifier: message.protocolIdentifier,
          data_coding_scheme: message.dataCodingScheme,
          user_data_header: message.userData.headerIndicator ? 1 : 0,
          user_data_length: message.userData.length,
          user_data: message.userData.bytes,
          status_report_requested: message.statusReportRequested ? 1 : 0,
          valid_until: message.validUntil,
          status: 'queued',
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return messageOf(row);
    },
    async queuedFor(imsi, limit) {
      const rows = await db
        .selectFrom('sms_messages')
        .selectAll()
        .where('destination_imsi', '=', imsi)
        .where('status', '=', 'queued')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(messageOf);
    },
    async attempted(id) {
      await db
        .updateTable('sms_messages')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .execute();
    },
    async settle(id, outcome) {
      // Only a queued message settles: a late answer never turns an expired message into a delivered one.
      await db
        .updateTable('sms_messages')
        .set({ status: outcome.status, cause: outcome.cause ?? null, updated_at: outcome.at })
        .where('id', '=', id)
        .where('status', '=', 'queued')
        .execute();
    },
  };
}

/**
 * Messages for numbers outside the network (migration 0020): queued with no recipient IMSI until the
 * SMSC takes them (`smsc_message_id` set), then until its receipt settles them.
 */
export function createSmscOutbox(deps: { db: Db }): SmscOutbox {
  const { db } = deps;
  return {
    async awaitingSubmission(limit) {
      const rows = await db
        .selectFrom('sms_messages')
        .selectAll()
        .where('destination_imsi', 'is', null)
        .where('status', '=', 'queued')
        .where('smsc_message_id', 'is', null)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(messageOf);
    },
    async submitted(id, smscMessageId) {
      await db
        .updateTable('sms_messages')
        .set({ smsc_message_id: smscMessageId })
        .where('id', '=', id)
        .where('status', '=', 'queued')
        .execute();
    },
    async bySmscMessageId(smscMessageId) {
      const row = await db
        .selectFrom('sms_messages')
        .selectAll()
        .where('smsc_message_id', '=', smscMessageId)
        .where('status', '=', 'queued')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row === undefined ? undefined : messageOf(row);
    },
  };
}

/** The subscribers' SMS data (the UDM's part, TS 23.502 4.13.2.2): MSISDN and the profile's `sms_allowed`. */
export function createSmsSubscribers(deps: { db: Db }): SmsSubscribers {
  const { db } = deps;
  return {
    async imsiOf(msisdn) {
      const row = await db
        .selectFrom('subscribers')
        .select('imsi')
        .where('msisdn', '=', msisdn)
        .executeTakeFirst();
      return row?.imsi;
    },
    async smsSubscription(imsi) {
      const row = await db
        .selectFrom('subscribers')
        .innerJoin('profiles', 'profiles.id', 'subscribers.profile_id')
        .select(['subscribers.msisdn', 'profiles.sms_allowed'])
        .where('subscribers.imsi', '=', imsi)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return { ...(row.msisdn === null ? {} : { msisdn: row.msisdn }), smsAllowed: row.sms_allowed === 1 };
    },
  };
}
