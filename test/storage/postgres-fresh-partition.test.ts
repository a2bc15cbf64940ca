import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CompiledQuery } from 'kysely';
import { pino } from 'pino';
import postgres from 'postgres';
import type { FlowReportInput } from '../../src/records/record-inputs.ts';
import { utcDay } from '../../src/records/record-windows.ts';
import { createRecordsPipeline, type RecordsPipeline } from '../../src/records/records-pipeline.ts';
import { dayPartition } from '../../src/storage/migrations/0017-flow-report-partitions.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';

const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

const DAY = 86_400_000;
const REPORTS = 20_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function seqScansOfFlowReports(node: PlanNode): string[] {
  const own =
    node['Node Type'] === 'Seq Scan' && node['Relation Name']?.startsWith('flow_reports_')
      ? [node['Relation Name']]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap(seqScansOfFlowReports)];
}

/**
 * A day partition is made by the records writer when the day's first report comes, and PostgreSQL has
 * no statistics of it until autovacuum analyzes it (up to a minute later, at every midnight, while tens of
 * thousands of reports a second go in). A page of flow reports must still read it through its indexes:
 * planned without statistics, the page's rows were looked up by id with a hash join over a Seq Scan of
 * the whole partition (50-80 ms a page at 120,000 reports, which took the server's CPU from the writer).
 */
describe('a page of flow reports from a day partition not yet analyzed', { skip }, () => {
  let storage: Storage;
  let pipeline: RecordsPipeline;
  let admin: postgres.Sql;
  const statements: CompiledQuery[] = [];
  let capturing = false;
  const now = Date.now();

  before(async () => {
    const url = await freshPostgresDatabase();
    storage = await openStorage({
      path: url,
      log: (event) => {
        if (capturing && event.level === 'query') statements.push(event.query);
      },
    });
    admin = postgres(url, { max: 1, onnotice: () => {} });
    // Today's partition as the writer makes it, with autovacuum off so that it stays unanalyzed however
    // long the test takes (the writer's `create table if not exists` then finds it).
    const day = utcDay(now);
    await admin.unsafe(
      `create table ${dayPartition(day)} partition of flow_reports for values from (${day}) to (${day + DAY}) with (autovacuum_enabled = off)`,
    );
    pipeline = createRecordsPipeline({
      db: storage.db,
      clock: { now: () => now },
      logger: pino({ level: 'silent' }),
    });
    const reports: FlowReportInput[] = Array.from({ length: REPORTS }, (_, i) => ({
      subscriberId: `00101${String(i % 100).padStart(10, '0')}`,
      sourceIp: `10.45.${(i >> 8) & 255}.${i & 255}`,
      destinationIp: `93.184.0.${i % 200}`,
      sourcePort: 1024 + (i % 1000),
      destinationPort: 443,
      protocol: 6,
      packets: 1,
      bytes: 100,
      startTime: now - 1000,
      // One burst of one millisecond, as the UPF hands reports over.
      endTime: now,
      direction: i % 2 === 0 ? 'uplink' : 'downlink',
      action: 'allow',
    }));
    for (let at = 0; at < reports.length; at += 1000) {
      const part = reports.slice(at, at + 1000);
      while (!pipeline.ingestion.recordFlowReports(part)) await pipeline.ingestion.whenWritable(part.length);
    }
    await pipeline.ingestion.flush();
    const [stats] = await admin<{ analyzed: boolean }[]>`
      select last_analyze is not null or last_autoanalyze is not null as analyzed
      from pg_stat_user_tables where relname = ${dayPartition(day)}`;
    assert.equal(stats?.analyzed, false, 'the partition is not analyzed');
  });
  after(async () => {
    await pipeline?.ingestion.close();
    await admin?.end();
    await storage?.close();
  });

  for (const [name, filter] of [
    ['unfiltered', {}],
    ['by subscriber', { subscriberId: '001010000000007' }],
  ] as const) {
    it(`plans the page's rows as index lookups, ${name}`, async () => {
      statements.length = 0;
      capturing = true;
      const page = await pipeline.repositories.flowReports.list(
        { from: utcDay(now) - 7 * DAY, before: utcDay(now) + DAY, ...filter },
        100,
        0,
      );
      capturing = false;
      assert.equal(page.length, 100);
      assert.ok(statements.length > 0);
      for (const statement of statements) {
        const [row] = await admin.unsafe<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
          `explain (format json) ${statement.sql}`,
          statement.parameters as never[],
        );
        assert.deepEqual(seqScansOfFlowReports(row?.['QUERY PLAN'][0].Plan as PlanNode), [], statement.sql);
      }
    });
  }
});
