import type {
  NewSms,
  SmscOutbox,
  SmsStatus,
  SmsStore,
  SmsSubscribers,
  StoredSms,
} from '../../network/ports/sms-store.ts';
import { sql } from 'kysely';
import { maybeSqliteFileOf, withConnection, type Db } from '../database.ts';
import type { SmsMessagesTable } from '../tables/sms.ts';
import {
  postgresTurnTransactionOf,
  turnTransactionOf,
  type QueryRunner,
  type TurnWriteOptions,
} from '../turn-transaction.ts';
import { preparedQuery } from './prepared-query.ts';

/** `smsc_message_id` of a message whose submit_sm is out and unanswered: no SMSC gives an empty id. */
const HANDED = '';

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
 * acknowledged with RP-ACK survives a restart. On SQLite the writes of one turn of the event loop share
 * one transaction, the other stores' too (turn-transaction.ts): under load one commit for many, and no
 * wait for the records writer's lock in the event loop's thread; a transaction that fails fails every write of it, none
 * resolves as stored. On PostgreSQL its writes of one turn likewise share a transaction of their own
 * (`postgresTurnTransactionOf`). Every statement is compiled once and, on SQLite, run as a prepared
 * statement on the connection (prepared-query.ts): Kysely's building and compiling of each was as much CPU as
 * SQLite's work.
 */
export function createSmsStore(deps: { db: Db }): SmsStore {
  const { db } = deps;
  const sqlite = maybeSqliteFileOf(db) !== undefined;
  const write = sqlite ? turnTransactionOf(db) : undefined;
  const writeOnPostgres = sqlite ? undefined : postgresTurnTransactionOf(db);
  /** Every write here is one statement: no savepoint, and alone in its turn it commits itself. */
  const one: TurnWriteOptions = { statements: 'one', notWritten: 'message not stored' };
  /** One statement in the turn transaction of either database. */
  const inTurn = <R>(onSqlite: () => R, onPostgres: (runner: QueryRunner) => Promise<R>): Promise<R> =>
    write ? write(onSqlite, one) : writeOnPostgres!(onPostgres, one);
  const insert = preparedQuery(db, INSERT_COLUMNS, (row: InsertRow) =>
    db.insertInto('sms_messages').values(row).returningAll(),
  );
  const queued = preparedQuery(
    db,
    ['imsi', 'after', 'class0', 'limit'],
    ({ imsi, after, class0, limit }: { imsi: string; after: number; class0: number; limit: number }) =>
      db
        .selectFrom('sms_messages')
        .selectAll()
        .where('destination_imsi', '=', imsi)
        .where('status', '=', 'queued')
        .where('id', '>', after)
        // Message class 0 (TS 23.038 4): a general data coding group (0xxx) with its class bit set and
        // class bits 00, or the group 1111 with class bits 00 (dcs.ts reads the same).
        .where((eb) =>
          eb.or([
            eb(eb.val(class0), '=', 0),
            eb(sql<number>`data_coding_scheme & 147`, '=', 16),
            eb(sql<number>`data_coding_scheme & 243`, '=', 240),
          ]),
        )
        .orderBy('id')
        .limit(limit),
  );
  const attempt = preparedQuery(db, ['id'], ({ id }: { id: number }) =>
    db
      .updateTable('sms_messages')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id),
  );
  // Only a queued message settles: a late answer never turns an expired message into a delivered one.
  const settle = preparedQuery(
    db,
    ['id', 'status', 'cause', 'at', 'attempt'],
    ({
      id,
      status,
      cause,
      at,
      attempt,
    }: {
      id: number;
      status: string;
      cause: string | null;
      at: number;
      attempt: number;
    }) =>
      db
        .updateTable('sms_messages')
        .set((eb) => ({ status, cause, updated_at: at, attempts: eb('attempts', '+', attempt) }))
        .where('id', '=', id)
        .where('status', '=', 'queued'),
  );
  return {
    async save(message) {
      const row = rowOf(message);
      const rows = await inTurn(
        () => insert.all(row),
        (executor) => insert.query(executor, row),
      );
      const saved = rows[0];
      if (saved === undefined) throw new Error('the message was not stored');
      return messageOf(saved);
    },
    async queuedFor(imsi, limit, options = {}) {
      const values = { imsi, after: options.after ?? 0, class0: options.class0 === true ? 1 : 0, limit };
      const rows = maybeSqliteFileOf(db)
        ? await withConnection(db, () => queued.all(values))
        : await queued.query(db, values);
      return (rows as Row[]).map(messageOf);
    },
    async attempted(id) {
      await inTurn(
        () => void attempt.run({ id }),
        async (executor) => void (await attempt.query(executor, { id })),
      );
    },
    async settle(id, outcome) {
      const values = {
        id,
        status: outcome.status,
        cause: outcome.cause ?? null,
        at: outcome.at,
        attempt: outcome.attempt === true ? 1 : 0,
      };
      await inTurn(
        () => void settle.run(values),
        async (executor) => void (await settle.query(executor, values)),
      );
    },
  };
}

type InsertRow = Omit<SmsMessagesTable, 'id' | 'attempts' | 'cause' | 'smsc_message_id'>;

const INSERT_COLUMNS = [
  'created_at',
  'updated_at',
  'originator_imsi',
  'originator',
  'originator_type',
  'destination_imsi',
  'destination_msisdn',
  'message_reference',
  'protocol_identifier',
  'data_coding_scheme',
  'user_data_header',
  'user_data_length',
  'user_data',
  'status_report_requested',
  'valid_until',
  'status',
] as const satisfies readonly (keyof InsertRow)[];

function rowOf(message: NewSms): InsertRow {
  return {
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
  };
}

/**
 * Messages for numbers outside the network (migration 0020): queued with no recipient IMSI until the
 * SMSC takes them (`smsc_message_id` set), then until its receipt settles them. While its submit_sm is
 * out, `smsc_message_id` is empty (HANDED): no other pass sends it (docs/sms.md, "At most once").
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
    async claim(id) {
      const result = await db
        .updateTable('sms_messages')
        .set({ smsc_message_id: HANDED })
        .where('id', '=', id)
        .where('status', '=', 'queued')
        .where('smsc_message_id', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async release(id) {
      await db
        .updateTable('sms_messages')
        .set({ smsc_message_id: null })
        .where('id', '=', id)
        .where('smsc_message_id', '=', HANDED)
        .execute();
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
      if (smscMessageId === HANDED) return undefined;
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
  // Prepared once, as the store's statements are: both run for every message a device sends.
  const byMsisdn = preparedQuery(db, ['msisdn'], ({ msisdn }: { msisdn: string }) =>
    db.selectFrom('subscribers').select('imsi').where('msisdn', '=', msisdn),
  );
  const subscription = preparedQuery(db, ['imsi'], ({ imsi }: { imsi: string }) =>
    db
      .selectFrom('subscribers')
      .innerJoin('profiles', 'profiles.id', 'subscribers.profile_id')
      .select(['subscribers.msisdn', 'profiles.sms_allowed'])
      .where('subscribers.imsi', '=', imsi),
  );
  return {
    async imsiOf(msisdn) {
      const rows = maybeSqliteFileOf(db)
        ? await withConnection(db, () => byMsisdn.all({ msisdn }))
        : await byMsisdn.query(db, { msisdn });
      return rows[0]?.imsi;
    },
    async smsSubscription(imsi) {
      const rows = maybeSqliteFileOf(db)
        ? await withConnection(db, () => subscription.all({ imsi }))
        : await subscription.query(db, { imsi });
      const row = rows[0];
      if (row === undefined) return undefined;
      return { ...(row.msisdn === null ? {} : { msisdn: row.msisdn }), smsAllowed: row.sms_allowed === 1 };
    },
  };
}
