import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createRandom, flowPair } from '../../scripts/record-generator.ts';
import { flowReportRow } from '../../src/records/record-inputs.ts';
import {
  BUCKET_REPORTS,
  createFlowReportsRepository,
  type FlowReportFilter,
} from '../../src/resources/flow-reports/flow-reports.repository.ts';
import { migrateToLatest, openSqliteDatabase, type Db } from '../../src/storage/database.ts';
import { writeTransaction } from '../../src/storage/row-statement.ts';
import type { NewFlowReport } from '../../src/storage/tables/records.ts';
import { DAY_MS } from '../../src/validation/calendar-date.ts';

// Filters by subscriber or address search each bucket whose span can hold the window (migration 0005).
// Whatever buckets the reports landed in, and late reports in a newer bucket, those filters must find
// exactly the reports a plain scan finds, in the same order, also after retention.
describe('flow report buckets', () => {
  let db: Db;
  const start = Date.parse('2026-11-10T00:00:00.000Z');
  const inserted: (NewFlowReport & { id: number })[] = [];

  before(async () => {
    db = openSqliteDatabase(':memory:');
    await migrateToLatest(db);
  });
  after(() => db.destroy());

  const matches = (report: NewFlowReport, filter: FlowReportFilter) =>
    report.end_time >= filter.from &&
    report.end_time < filter.before &&
    (filter.subscriberId === undefined || report.subscriber_id === filter.subscriberId) &&
    (filter.source?.ip === undefined || report.source_ip === filter.source.ip) &&
    (filter.destination?.ip === undefined || report.destination_ip === filter.destination.ip);

  it('finds every matching report across buckets, late reports included, before and after retention', async () => {
    const repository = createFlowReportsRepository(db);
    const random = createRandom(7);
    // Three batches; between them the id sequence jumps a whole bucket, so the reports spread over
    // several buckets, and the last batch ends on the first days again (late reports).
    for (const [batch, firstDay] of [
      [0, 0],
      [1, 2],
      [2, 0],
    ] as const) {
      const reports = Array.from({ length: 300 }, () =>
        flowPair(random, 8, start + Math.floor((firstDay + random.next() * 2) * DAY_MS)),
      )
        .flat()
        .map(flowReportRow);
      await writeTransaction(db, () => repository.insert(reports), repository.insertReads);
      const { rows } = await sql<{
        id: number;
      }>`select id from flow_reports order by id desc limit ${reports.length}`.execute(db);
      rows
        .reverse()
        .forEach((row, index) => inserted.push({ ...(reports[index] as NewFlowReport), id: row.id }));
      if (batch < 2) {
        await sql`update sqlite_sequence set seq = seq + ${BUCKET_REPORTS} where name = 'flow_reports'`.execute(
          db,
        );
      }
    }
    const buckets = await db.selectFrom('flow_reports').select('bucket').distinct().execute();
    assert.ok(buckets.length >= 2, `reports in ${buckets.length} bucket(s)`);

    const sample = inserted[0] as NewFlowReport;
    const filters: FlowReportFilter[] = [];
    for (const window of [
      { from: start, before: start + 4 * DAY_MS },
      { from: start + DAY_MS, before: start + 2 * DAY_MS },
    ]) {
      filters.push(
        { ...window, subscriberId: sample.subscriber_id },
        { ...window, source: { ip: sample.source_ip } },
        { ...window, destination: { ip: sample.destination_ip } },
        { ...window, destination: { ip: '8.8.8.8' } },
      );
    }
    const check = async (remaining: (NewFlowReport & { id: number })[]) => {
      for (const filter of filters) {
        const expected = remaining
          .filter((report) => matches(report, filter))
          .sort((a, b) => b.end_time - a.end_time || b.id - a.id);
        assert.ok(expected.length > 0, JSON.stringify(filter));
        assert.equal(await repository.count(filter), expected.length, JSON.stringify(filter));
        // Without a count the key index picks the page; a count as large as the window makes the
        // repository walk the window instead: both must give the same page.
        for (const matches of [undefined, remaining.length]) {
          const page = await repository.list(filter, 25, 5, matches);
          assert.deepEqual(
            page.map((report) => report.id),
            expected.slice(5, 30).map((report) => report.id),
            JSON.stringify({ filter, matches }),
          );
        }
      }
    };
    await check(inserted);

    const cutoff = start + DAY_MS + 6 * 3_600_000;
    while ((await repository.deleteOlderThan(cutoff, 200)) > 0);
    await check(inserted.filter((report) => report.end_time >= cutoff));
  });

  it('keeps counts exact as reports arrive after them, and forgets them when reports are cleared', async () => {
    const fresh = openSqliteDatabase(':memory:');
    await migrateToLatest(fresh);
    const repository = createFlowReportsRepository(fresh);
    const random = createRandom(11);
    const window = { from: start, before: start + 2 * DAY_MS };
    const all: NewFlowReport[] = [];
    const add = async (pairs: number) => {
      const reports = Array.from({ length: pairs }, () =>
        flowPair(random, 4, start + Math.floor(random.next() * 3 * DAY_MS)),
      )
        .flat()
        .map(flowReportRow);
      await writeTransaction(fresh, () => repository.insert(reports), repository.insertReads);
      all.push(...reports);
    };
    const filters: FlowReportFilter[] = [
      { ...window, destination: { ip: '8.8.8.8', port: 53 } },
      { ...window, destination: { port: 443 } },
      { ...window, subscriberId: flowReportRow(flowPair(createRandom(11), 4, start)[0]!).subscriber_id },
    ];
    const plain = (filter: FlowReportFilter) =>
      all.filter(
        (report) =>
          matches(report, filter) &&
          (filter.destination?.port === undefined || report.destination_port === filter.destination.port),
      ).length;

    await add(200);
    for (const filter of filters) assert.equal(await repository.count(filter), plain(filter));
    for (let round = 0; round < 3; round += 1) {
      await add(100);
      for (const filter of filters) {
        assert.ok(plain(filter) > 0, JSON.stringify(filter));
        assert.equal(await repository.count(filter), plain(filter), JSON.stringify(filter));
      }
    }
    await repository.deleteAll();
    for (const filter of filters) assert.equal(await repository.count(filter), 0);
    await fresh.destroy();
  });
});
