import type { SmsStatus } from '../../network/ports/sms-store.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';

/** A stored short message as the API shows it (docs/sms.md; migrations 0016, 0020). Times are Unix ms. */
export interface SmsRecord {
  id: number;
  createdAt: number;
  updatedAt: number;
  originatorImsi: string | null;
  originator: string;
  originatorType: number;
  /** Null for a number outside the network (handed to the SMSC link, migration 0020). */
  destinationImsi: string | null;
  destinationMsisdn: string | null;
  dataCodingScheme: number;
  userDataHeader: boolean;
  userDataLength: number;
  userData: Uint8Array;
  status: SmsStatus;
  cause: string | null;
  attempts: number;
  validUntil: number;
}

/** A message part the operator sends, as stored. */
export interface NewOperatorSms {
  createdAt: number;
  originator: string;
  originatorType: number;
  destinationImsi: string;
  destinationMsisdn: string | null;
  dataCodingScheme: number;
  userData: { headerIndicator: boolean; length: number; bytes: Uint8Array };
  validUntil: number;
}

/** The list's filters: a subscriber on either side, the direction, the status, a time window. */
export interface SmsFilter {
  imsi?: string;
  msisdn?: string;
  /** `mobile-originated`: sent by a device of this network; `network-originated`: sent through the API. */
  direction?: 'mobile-originated' | 'network-originated';
  status?: SmsStatus;
  from?: number;
  to?: number;
}

export function createSmsRepository(db: Db) {
  const filtered = (executor: Executor, filter: SmsFilter) => {
    let query = executor.selectFrom('sms_messages');
    if (filter.imsi !== undefined) {
      const imsi = filter.imsi;
      query = query.where((eb) =>
        eb.or([eb('originator_imsi', '=', imsi), eb('destination_imsi', '=', imsi)]),
      );
    }
    if (filter.msisdn !== undefined) {
      const msisdn = filter.msisdn;
      query = query.where((eb) =>
        eb.or([eb('originator', '=', msisdn), eb('destination_msisdn', '=', msisdn)]),
      );
    }
    if (filter.direction === 'mobile-originated') query = query.where('originator_imsi', 'is not', null);
    if (filter.direction === 'network-originated') query = query.where('originator_imsi', 'is', null);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('created_at', '<=', filter.to);
    return query;
  };
  return {
    /** Newest first, ties by id. */
    async list(
      filter: SmsFilter,
      limit: number,
      offset: number,
    ): Promise<{ items: SmsRecord[]; total: number }> {
      const rows = await filtered(db, filter)
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      const counted = await filtered(db, filter)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return {
        total: Number(counted.n),
        items: rows.map((row) => ({
          id: Number(row.id),
          createdAt: Number(row.created_at),
          updatedAt: Number(row.updated_at),
          originatorImsi: row.originator_imsi,
          originator: row.originator,
          originatorType: row.originator_type,
          destinationImsi: row.destination_imsi,
          destinationMsisdn: row.destination_msisdn,
          dataCodingScheme: row.data_coding_scheme,
          userDataHeader: row.user_data_header === 1,
          userDataLength: row.user_data_length,
          userData: new Uint8Array(row.user_data),
          status: row.status as SmsStatus,
          cause: row.cause,
          attempts: Number(row.attempts),
          validUntil: Number(row.valid_until),
        })),
      };
    },

    /** Inserts the parts of one message; their ids in order. */
    async insert(parts: NewOperatorSms[], executor: Executor = db): Promise<number[]> {
      const rows = await executor
        .insertInto('sms_messages')
        .values(
          parts.map((part) => ({
            created_at: part.createdAt,
            updated_at: part.createdAt,
            originator_imsi: null,
            originator: part.originator,
            originator_type: part.originatorType,
            destination_imsi: part.destinationImsi,
            destination_msisdn: part.destinationMsisdn,
            message_reference: 0,
            protocol_identifier: 0,
            data_coding_scheme: part.dataCodingScheme,
            user_data_header: part.userData.headerIndicator ? 1 : 0,
            user_data_length: part.userData.length,
            user_data: part.userData.bytes,
            status_report_requested: 0,
            valid_until: part.validUntil,
            status: 'queued',
          })),
        )
        .returning('id')
        .execute();
      return rows.map((row) => Number(row.id));
    },

    /**
     * Retention: deletes at most `limit` messages last changed before `cutoff` that are settled, or queued
     * past their validity (their recipient never came back to have them marked expired); how many.
     */
    async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('sms_messages')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('sms_messages')
            .select('id')
            .where('updated_at', '<', cutoff)
            .where((inner) => inner.or([inner('status', '!=', 'queued'), inner('valid_until', '<', cutoff)]))
            .orderBy('id')
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Marks `expired` the queued messages whose validity ended by `now`; how many. */
    async expireQueued(now: number): Promise<number> {
      const result = await db
        .updateTable('sms_messages')
        .set({ status: 'expired', updated_at: now })
        .where('status', '=', 'queued')
        .where('valid_until', '<=', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** How many messages there are by direction and status (the metrics, read at each scrape). */
    async countsByDirectionAndStatus(): Promise<{ direction: string; status: string; count: number }[]> {
      const rows = await db
        .selectFrom('sms_messages')
        .select((eb) => [
          eb
            .case()
            .when('originator_imsi', 'is', null)
            .then('network-originated')
            .else('mobile-originated')
            .end()
            .as('direction'),
          'status',
          eb.fn.countAll<number>().as('count'),
        ])
        .groupBy(['direction', 'status'])
        .execute();
      return rows.map((row) => ({ direction: row.direction, status: row.status, count: Number(row.count) }));
    },

    /** Deletes every message; how many. */
    async deleteAll(executor: Executor = db): Promise<number> {
      const result = await executor.deleteFrom('sms_messages').executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type SmsRepository = ReturnType<typeof createSmsRepository>;
