import { maybeIndexed } from '../../storage/index-hints.ts';
import type { ExpressionBuilder, Insertable } from 'kysely';
import { utcDay, type DayWindow } from '../../records/record-windows.ts';
import { localChangeNotices, type ChangeNotices } from '../../storage/change-notices.ts';
import type { Db } from '../../storage/database.ts';
import type { Database } from '../../storage/schema.ts';
import { createFlowReportPartitions } from '../../storage/flow-report-partitions.ts';
import { counterRows, rowQuery, rowStatement } from '../../storage/row-statement.ts';
import type {
  FlowReportBucketsTable,
  FlowReportDailyProtocolsTable,
  FlowReportDailyUplinkDestinationsTable,
  FlowReportsTable,
  NewFlowReport,
} from '../../storage/tables/records.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { EndpointFilter } from '../../validation/ip-address.ts';

export interface FlowReport {
  id: number;
  subscriberId: string;
  sourceIp: string;
  destinationIp: string;
  sourcePort: number;
  destinationPort: number;
  protocol: number;
  packets: number;
  bytes: number;
  startTime: number;
  endTime: number;
  direction: 'uplink' | 'downlink';
  action: 'allow' | 'drop';
}

/** Every filter of the flow report list; the window selects by `end_time`. */
export interface FlowReportFilter extends DayWindow {
  subscriberId?: string;
  protocol?: number;
  source?: EndpointFilter;
  destination?: EndpointFilter;
  direction?: 'uplink' | 'downlink';
  action?: 'allow' | 'drop';
}

/**
 * The filter conditions that have an index of their own, most selective first (see `conditions`), or
 * `ids` when a range of ids picks the rows and every filter condition is checked on them.
 */
type Lead = 'subscriber' | 'source' | 'destination' | 'protocol' | 'window' | 'ids';

function leadOf(filter: FlowReportFilter): Lead {
  if (filter.subscriberId !== undefined) return 'subscriber';
  if (filter.source?.ip !== undefined) return 'source';
  if (filter.destination?.ip !== undefined) return 'destination';
  const windowed =
    filter.source?.port !== undefined ||
    filter.destination?.port !== undefined ||
    filter.direction !== undefined ||
    filter.action !== undefined;
  return filter.protocol !== undefined && !windowed ? 'protocol' : 'window';
}

/**
 * The filter as SQL, written so the right index answers it. The database keeps no statistics, so its
 * planner cannot know that a subscriber matches a few hundred reports while a protocol matches millions;
 * the repository does. The most selective condition present (subscriber, then source address, then
 * destination address, then a protocol alone) is written plainly so its index serves it; the others
 * are written `column + 0` or `column || ''`, which mean the same but no index can serve, and are
 * checked on the rows that index selects. Filters without an index of their own (ports, direction,
 * action, and protocol together with them) are read from the window index on end_time.
 *
 * `grouped` is for counts by protocol: the window is then written `end_time + 0` too, so the planner
 * reads the protocol index in order and counts without sorting. Through the window index it would
 * visit every row of the window in the table and sort them all, many times slower over a week.
 */
function conditions(
  eb: ExpressionBuilder<Database, 'flow_reports'>,
  filter: FlowReportFilter,
  grouped = false,
  lead: Lead = leadOf(filter),
) {
  const keyed = lead === 'subscriber' || lead === 'source' || lead === 'destination';
  const text = (column: 'subscriber_id' | 'source_ip' | 'destination_ip', indexed: boolean) =>
    maybeIndexed<string>(column, 'text', indexed);
  const endTime = maybeIndexed<number>('end_time', 'number', !(grouped || lead === 'ids'));
  const list = [eb(endTime, '>=', filter.from), eb(endTime, '<', filter.before)];
  if (keyed) {
    // The key's index leads with the bucket: seek the key in each bucket that can hold the window.
    list.push(
      eb(
        'bucket',
        'in',
        eb
          .selectFrom('flow_report_buckets')
          .select('bucket')
          .where('last_end_time', '>=', filter.from)
          .where('first_end_time', '<', filter.before),
      ),
    );
  }
  if (filter.subscriberId !== undefined) {
    list.push(eb(text('subscriber_id', lead === 'subscriber'), '=', filter.subscriberId));
  }
  if (filter.source?.ip !== undefined)
    list.push(eb(text('source_ip', lead === 'source'), '=', filter.source.ip));
  if (filter.destination?.ip !== undefined) {
    list.push(eb(text('destination_ip', lead === 'destination'), '=', filter.destination.ip));
  }
  if (filter.protocol !== undefined) {
    const protocol = maybeIndexed<number>('protocol', 'number', lead === 'protocol');
    list.push(eb(protocol, '=', filter.protocol));
  }
  if (filter.source?.port !== undefined) list.push(eb('source_port', '=', filter.source.port));
  if (filter.destination?.port !== undefined) {
    list.push(eb('destination_port', '=', filter.destination.port));
  }
  if (filter.direction !== undefined) list.push(eb('direction', '=', filter.direction));
  if (filter.action !== undefined) list.push(eb('action', '=', filter.action));
  return eb.and(list);
}

const COLUMNS = [
  'id',
  'subscriber_id',
  'source_ip',
  'destination_ip',
  'source_port',
  'destination_port',
  'protocol',
  'packets',
  'bytes',
  'start_time',
  'end_time',
  'direction',
  'action',
] as const;

/** What the daily counts need of a report. */
type Counted = Pick<Insertable<FlowReportsTable>, 'end_time' | 'protocol' | 'direction' | 'destination_ip'>;

/**
 * Reports per bucket: a bucket's part of each key index stays small enough that a batch of the writer
 * dirties few of its pages. At 65,536 (migration 0005) a batch of 2,000 dirtied most of the bucket's
 * pages and the writer managed 28,000 reports/s on 5M reports; at 8,192, 40,000/s. Buckets numbered
 * under the older size stay valid: their spans cover whatever they hold.
 */
export const BUCKET_REPORTS = 8192;

/** Filters whose count is kept (see `count`), the least recently counted forgotten first. */
const COUNTED_FILTERS = 256;

/**
 * Reports added since a kept count that are still read one by one rather than counted afresh through
 * the filter's index: at about 0.3 µs a report, 100,000 cost about what a fresh count of a common
 * address does.
 */
const COUNT_BY_ID_LIMIT = 100_000;

/** The notice that reports were deleted (change-notices.ts): sent with the deleting transaction. */
const COUNTS_TOPIC = 'flow-report-counts';

export function createFlowReportsRepository(db: Db) {
  const partitions = createFlowReportPartitions(db);
  const insertReports = rowStatement<Insertable<FlowReportsTable>>(
    db,
    [...COLUMNS.filter((column) => column !== 'id'), 'bucket'],
    (rows) => db.insertInto('flow_reports').values(rows),
  );
  const readLastId = rowQuery(
    db,
    db.selectFrom('flow_reports').select((eb) => eb.fn.max('id').as('id')),
  );
  const widenBucketSpans = rowStatement<FlowReportBucketsTable>(
    db,
    ['bucket', 'first_end_time', 'last_end_time'],
    (rows) =>
      db
        .insertInto('flow_report_buckets')
        .values(rows)
        .onConflict((oc) =>
          oc.column('bucket').doUpdateSet((eb) => ({
            first_end_time: eb.fn('min', ['flow_report_buckets.first_end_time', 'excluded.first_end_time']),
            last_end_time: eb.fn('max', ['flow_report_buckets.last_end_time', 'excluded.last_end_time']),
          })),
        ),
  );
  const addToProtocolCounts = counterRows<Insertable<FlowReportDailyProtocolsTable>>(
    db,
    'flow_report_daily_protocols',
    ['day', 'protocol'],
    ['reports'],
  );
  const addToDestinationCounts = counterRows<Insertable<FlowReportDailyUplinkDestinationsTable>>(
    db,
    'flow_report_daily_uplink_destinations',
    ['day', 'destination_ip'],
    ['reports'],
  );

  /** Adds reports to (`sign` 1) or takes them from (-1) the daily counts, synchronously. */
  function adjustDailyCounts(reports: readonly Counted[], sign: 1 | -1): void {
    addToProtocolCounts(
      reports.map((report) => ({ day: utcDay(report.end_time), protocol: report.protocol, reports: sign })),
    );
    addToDestinationCounts(
      reports
        .filter((report) => report.direction === 'uplink')
        .map((report) => ({
          day: utcDay(report.end_time),
          destination_ip: report.destination_ip,
          reports: sign,
        })),
    );
  }

  /** Reports in whole UTC days, of one protocol when given, from the daily counts. */
  async function dailyTotal(window: DayWindow & { protocol?: number }): Promise<number> {
    let query = db
      .selectFrom('flow_report_daily_protocols')
      .select((eb) => eb.fn.sum<number>('reports').as('n'))
      .where('day', '>=', window.from)
      .where('day', '<', window.before);
    if (window.protocol !== undefined) query = query.where('protocol', '=', window.protocol);
    const row = await query.executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Per filter: how many reports with ids up to `through` match it. */
  const counted = new Map<string, { through: number; reports: number }>();
  let countsGeneration = 0;
  function forgetCounts(): void {
    counted.clear();
    countsGeneration += 1;
  }
  /** The other processes on the database, told when reports are deleted (their kept counts go too). */
  let notices = localChangeNotices;

  /** A bucket whose reports are all gone no longer needs searching. */
  async function deleteEmptyBuckets(executor: Executor, cutoff: number): Promise<void> {
    await executor
      .deleteFrom('flow_report_buckets')
      .where('last_end_time', '<', cutoff)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('flow_reports')
              .select('id')
              .whereRef('flow_reports.bucket', '=', 'flow_report_buckets.bucket'),
          ),
        ),
      )
      .execute();
  }

  /** Matches with ids in (after, upTo]; the id bound is written `id + 0` unless ids lead. */
  async function countMatches(filter: FlowReportFilter, lead: Lead, after: number, upTo: number) {
    const id = maybeIndexed<number>('id', 'number', lead === 'ids');
    const row = await db
      .selectFrom('flow_reports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => eb.and([conditions(eb, filter, false, lead), eb(id, '>', after), eb(id, '<=', upTo)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  return {
    /** The row queries `insert` calls, for the `writeTransaction` it runs in to list (row-statement.ts). */
    insertReads: [readLastId],

    /**
     * Inserts the reports and counts them in the daily counts; synchronous, inside the records writer's
     * transaction (storage/row-statement.ts), which lists `insertReads`.
     */
    insert(rows: NewFlowReport[]): void {
      if (rows.length === 0) return;
      // The bucket follows the id the report is about to get. Right after a clear the ids go on from
      // where they were (AUTOINCREMENT) and one batch lands in a low bucket: that costs locality only,
      // as the spans record the buckets actually used.
      const next = Number(readLastId()[0]?.id ?? 0) + 1;
      const spans = new Map<number, FlowReportBucketsTable>();
      // The writer owns these rows: the bucket is set on them rather than on copies of 13 columns.
      const placed = rows as Insertable<FlowReportsTable>[];
      placed.forEach((row, index) => {
        const bucket = Math.floor((next + index) / BUCKET_REPORTS);
        row.bucket = bucket;
        const span = spans.get(bucket);
        if (!span) spans.set(bucket, { bucket, first_end_time: row.end_time, last_end_time: row.end_time });
        else {
          span.first_end_time = Math.min(span.first_end_time, row.end_time);
          span.last_end_time = Math.max(span.last_end_time, row.end_time);
        }
      });
      partitions.ensureDays(placed.map((row) => row.end_time));
      insertReports(placed);
      widenBucketSpans([...spans.values()]);
      adjustDailyCounts(rows, 1);
    },

    /**
     * Newest first: by end time, then by id. The page's ids are chosen first, from an index alone where
     * the filter allows it, and only those rows are read from the table.
     *
     * `matches`, when the caller has counted them, lets a page filtered by a common address (a DNS
     * server: hundreds of thousands of reports a week) walk the window newest first instead of sorting
     * every match from the bucketed key index: the walk reads about (offset + limit) x window / matches
     * reports, the sort all matches, and the cheaper one is taken.
     */
    async list(
      filter: FlowReportFilter,
      limit: number,
      offset: number,
      matches?: number,
    ): Promise<FlowReport[]> {
      let lead = leadOf(filter);
      // The window holds at least the matches, so the walk can only win when they outnumber the page.
      if (matches !== undefined && matches > offset + limit && lead !== 'window' && lead !== 'protocol') {
        const windowReports = await dailyTotal(filter);
        if (matches * matches > (offset + limit) * windowReports) lead = 'window';
      }
      // The page's rows are joined by their whole primary key, (id, end_time) on PostgreSQL: a lookup the
      // planner knows finds one row, in the one day partition of that end time. Looked up by `id in`, a
      // partition without statistics yet (the writer's new day) was read whole into a hash join.
      const rows = await db
        .selectFrom((eb) =>
          eb
            .selectFrom('flow_reports')
            .select(['id', 'end_time'])
            .where((inner) => conditions(inner, filter, false, lead))
            .orderBy('end_time', 'desc')
            .orderBy('id', 'desc')
            .limit(limit)
            .offset(offset)
            .as('page'),
        )
        .innerJoin('flow_reports', (join) =>
          join.onRef('flow_reports.id', '=', 'page.id').onRef('flow_reports.end_time', '=', 'page.end_time'),
        )
        .select(COLUMNS.map((column) => `flow_reports.${column}` as const))
        .orderBy('page.end_time', 'desc')
        .orderBy('page.id', 'desc')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        subscriberId: row.subscriber_id,
        sourceIp: row.source_ip,
        destinationIp: row.destination_ip,
        sourcePort: row.source_port,
        destinationPort: row.destination_port,
        protocol: row.protocol,
        packets: Number(row.packets),
        bytes: Number(row.bytes),
        startTime: Number(row.start_time),
        endTime: Number(row.end_time),
        direction: row.direction,
        action: row.action,
      }));
    },

    /**
     * Reports matching the filter. The count of the reports up to some id is kept per filter (the last
     * `COUNTED_FILTERS` filters): reports are only ever added with higher ids, so a later count adds the
     * matches among the reports added since, read by id, instead of counting every match again. Deleting
     * reports (retention, clear, restore) forgets every kept count.
     */
    async count(filter: FlowReportFilter): Promise<number> {
      const key = JSON.stringify(filter);
      for (;;) {
        const generation = countsGeneration;
        const kept = counted.get(key);
        const last = await db
          .selectFrom('flow_reports')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst();
        const top = Number(last?.id ?? 0);
        const fresh = !kept || top - kept.through > COUNT_BY_ID_LIMIT;
        const total = fresh
          ? await countMatches(filter, leadOf(filter), 0, top)
          : kept.reports + (top > kept.through ? await countMatches(filter, 'ids', kept.through, top) : 0);
        if (generation === countsGeneration) {
          counted.delete(key);
          counted.set(key, { through: top, reports: total });
          if (counted.size > COUNTED_FILTERS) counted.delete(counted.keys().next().value ?? '');
          return total;
        }
        // Reports were deleted meanwhile: a fresh count is one query, true of the moment it ran; a kept
        // one added to matches read after the deletion is true of no moment, and is counted again.
        if (fresh) return total;
      }
    },

    /** Forgets the kept counts: reports were deleted other than through this repository (a restore). */
    forgetCounts,

    /** Keeps the counts right beside other processes: each forgets its kept counts when another deletes. */
    shareCounts(shared: ChangeNotices): void {
      notices = shared;
      notices.listen(COUNTS_TOPIC, forgetCounts);
      notices.onMissed(forgetCounts);
    },

    /** End time of the oldest and newest matching report (two index seeks); undefined when none matches. */
    async endTimeSpan(filter: FlowReportFilter): Promise<{ first: number; last: number } | undefined> {
      const edge = (order: 'asc' | 'desc') =>
        db
          .selectFrom('flow_reports')
          .select('end_time')
          .where((eb) => conditions(eb, filter))
          .orderBy('end_time', order)
          .limit(1)
          .executeTakeFirst();
      const [first, last] = await Promise.all([edge('asc'), edge('desc')]);
      return first && last ? { first: Number(first.end_time), last: Number(last.end_time) } : undefined;
    },

    /** Subscribers with matching reports, ascending, at most `limit`. */
    async subscribers(filter: FlowReportFilter, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('flow_reports')
        .select('subscriber_id')
        .where((eb) => conditions(eb, filter))
        .groupBy('subscriber_id')
        .orderBy('subscriber_id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.subscriber_id);
    },

    /** Matching reports per protocol, most first (ties by protocol number). */
    async protocolCounts(filter: FlowReportFilter): Promise<{ protocol: number; count: number }[]> {
      const rows = await db
        .selectFrom('flow_reports')
        .select((eb) => ['protocol', eb.fn.countAll<number>().as('count')])
        .where((eb) => conditions(eb, filter, true))
        .groupBy('protocol')
        .orderBy('count', 'desc')
        .orderBy('protocol')
        .execute();
      return rows.map((row) => ({ protocol: row.protocol, count: Number(row.count) }));
    },

    /** The uplink destinations with the most matching reports (ties by address), at most `limit`. */
    async topUplinkDestinations(
      filter: FlowReportFilter,
      limit: number,
    ): Promise<{ ip: string; count: number }[]> {
      const rows = await db
        .selectFrom('flow_reports')
        .select((eb) => ['destination_ip', eb.fn.countAll<number>().as('count')])
        .where((eb) => eb.and([conditions(eb, filter), eb('direction', '=', 'uplink')]))
        .groupBy('destination_ip')
        .orderBy('count', 'desc')
        .orderBy('destination_ip')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ip: row.destination_ip, count: Number(row.count) }));
    },

    dailyTotal,

    /** `protocolCounts` for whole UTC days and no other filter, from the daily counts. */
    async dailyProtocolCounts(window: DayWindow): Promise<{ protocol: number; count: number }[]> {
      const rows = await db
        .selectFrom('flow_report_daily_protocols')
        .select((eb) => ['protocol', eb.fn.sum<number>('reports').as('count')])
        .where('day', '>=', window.from)
        .where('day', '<', window.before)
        .groupBy('protocol')
        .orderBy('count', 'desc')
        .orderBy('protocol')
        .execute();
      return rows.map((row) => ({ protocol: row.protocol, count: Number(row.count) }));
    },

    /** `topUplinkDestinations` for whole UTC days and no other filter, from the daily counts. */
    async dailyTopUplinkDestinations(
      window: DayWindow,
      limit: number,
    ): Promise<{ ip: string; count: number }[]> {
      const rows = await db
        .selectFrom('flow_report_daily_uplink_destinations')
        .select((eb) => ['destination_ip', eb.fn.sum<number>('reports').as('count')])
        .where('day', '>=', window.from)
        .where('day', '<', window.before)
        .groupBy('destination_ip')
        .orderBy('count', 'desc')
        .orderBy('destination_ip')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ip: row.destination_ip, count: Number(row.count) }));
    },

    /** Called inside the caller's transaction, so counts forgotten here cannot be kept again stale. */
    async deleteAll(executor: Executor = db): Promise<number> {
      forgetCounts();
      await notices.sendWithin(executor, COUNTS_TOPIC, null);
      const result = await executor.deleteFrom('flow_reports').executeTakeFirst();
      await executor.deleteFrom('flow_report_buckets').execute();
      await executor.deleteFrom('flow_report_daily_protocols').execute();
      await executor.deleteFrom('flow_report_daily_uplink_destinations').execute();
      return Number(result.numDeletedRows);
    },

    /**
     * Deletes at most `limit` reports that ended before `cutoff`, oldest first, and takes them from the
     * daily counts in the same transaction; returns how many went.
     */
    async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
      return db.transaction().execute(async (trx) => {
        // Inside the transaction, which holds the connection: no count can read between this and the
        // commit, and one that read before cannot keep what it found.
        forgetCounts();
        // PostgreSQL: whole days go with their partitions, and their daily counts with them.
        const dropped = await partitions.dropDaysBefore(trx, cutoff);
        if (dropped.days.length > 0) {
          await notices.sendWithin(trx, COUNTS_TOPIC, null);
          await trx.deleteFrom('flow_report_daily_protocols').where('day', 'in', dropped.days).execute();
          await trx
            .deleteFrom('flow_report_daily_uplink_destinations')
            .where('day', 'in', dropped.days)
            .execute();
          await deleteEmptyBuckets(trx, cutoff);
          return dropped.reports;
        }
        const expired = await trx
          .deleteFrom('flow_reports')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('flow_reports')
              .select('id')
              .where('end_time', '<', cutoff)
              .orderBy('end_time')
              .limit(limit),
          )
          .returning(['end_time', 'protocol', 'direction', 'destination_ip'])
          .execute();
        if (expired.length > 0) await notices.sendWithin(trx, COUNTS_TOPIC, null);
        // The transaction holds the connection the count statements run on, so they are part of it.
        adjustDailyCounts(expired, -1);
        const days = [...new Set(expired.map((report) => utcDay(report.end_time)))];
        if (days.length > 0) {
          await trx
            .deleteFrom('flow_report_daily_protocols')
            .where('day', 'in', days)
            .where('reports', '<=', 0)
            .execute();
          await trx
            .deleteFrom('flow_report_daily_uplink_destinations')
            .where('day', 'in', days)
            .where('reports', '<=', 0)
            .execute();
        }
        await deleteEmptyBuckets(trx, cutoff);
        return expired.length;
      });
    },
  };
}

export type FlowReportsRepository = ReturnType<typeof createFlowReportsRepository>;
