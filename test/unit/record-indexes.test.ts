import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createFlowReportsRepository } from '../../src/resources/flow-reports/flow-reports.repository.ts';
import { createRadioEventsRepository } from '../../src/resources/radio-events/radio-events.repository.ts';
import { createRadioLogsRepository } from '../../src/resources/radio-logs/radio-logs.repository.ts';
import { createSubscriberLogsRepository } from '../../src/resources/subscriber-logs/subscriber-logs.repository.ts';
import { createSubscriberUsageRepository } from '../../src/resources/subscriber-usage/subscriber-usage.repository.ts';
import { migrateToLatest, openSqliteDatabase, sqliteFileOf, type Db } from '../../src/storage/database.ts';
import { writeTransaction } from '../../src/storage/row-statement.ts';

// Every list filter is backed by an index: the query planner answers each filtered list, count and
// aggregate from an index, and a single-filter page comes out of its index newest first, without a
// full sort (ties on the time may be put in id order: "TEMP B-TREE FOR LAST TERM OF ORDER BY").
// Flow reports filtered by subscriber or address are the exception by design (migration 0005): their
// indexes lead with a bucket, so the page sorts that key's matches, and the small table of bucket
// spans (one row per 8,192 reports) is read whole to pick the buckets.
describe('record indexes', () => {
  let captured: { sql: string; parameters: readonly unknown[] }[] = [];
  const db: Db = openSqliteDatabase(':memory:', {
    log: (event) => {
      if (event.level === 'query')
        captured.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  const sqlite = sqliteFileOf(db).connection();
  before(() => migrateToLatest(db));
  after(() => db.destroy());

  type Plan = { id: number; parent: number; detail: string }[];

  async function plans(run: () => Promise<unknown>): Promise<Plan[]> {
    captured = [];
    await run();
    return captured.map(
      ({ sql, parameters }) => sqlite.prepare(`explain query plan ${sql}`).all(...parameters) as Plan,
    );
  }

  const text = (plan: Plan) => plan.map((step) => step.detail).join(' | ');

  /**
   * Every table access goes through an index; for a page, the step that picks the rows (the id
   * subquery where there is one) needs no full sort. Sorting the page's own rows afterwards is free.
   */
  function assertIndexed(plan: Plan, ordered: boolean): void {
    // `SEARCH t` alone is the highest id, read from the end of the table's B-tree.
    for (const step of plan.filter((s) => /^(SCAN|SEARCH) (?!flow_report_buckets\b)\S+ /.test(s.detail))) {
      assert.match(step.detail, /USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/, text(plan));
    }
    if (!ordered) return;
    const picking = plan.find((step) => step.detail.startsWith('LIST SUBQUERY'))?.id ?? 0;
    const sorts = plan.filter(
      (step) => step.parent === picking && step.detail === 'USE TEMP B-TREE FOR ORDER BY',
    );
    assert.deepEqual(sorts, [], text(plan));
  }

  /** The index the step that picks the rows reads: the first index the plan reads. */
  async function indexOf(run: () => Promise<unknown>): Promise<string> {
    const search = (await plans(run))
      .flat()
      .find((step) => /^(SCAN|SEARCH) \S+ USING (COVERING )?INDEX /.test(step.detail));
    return /INDEX (\S+)/.exec(search?.detail ?? '')?.[1] ?? 'none';
  }

  const window = { from: 0, before: 1 };
  const logFilters = [{}, { direction: 'inbound' as const }, { event: 'x' }, { from: 0 }, { to: 1 }];

  const cases: { name: string; run: () => Promise<unknown>; ordered: boolean }[] = [];
  const radioEvents = createRadioEventsRepository(db);
  for (const filter of [
    ...logFilters,
    { protocol: 'NGAP' },
    { messageType: 'x' },
    { imsi: '001010000000001' },
  ]) {
    cases.push({
      name: `radio events ${JSON.stringify(filter)}`,
      run: () => radioEvents.list(filter, 25, 0),
      ordered: true,
    });
    cases.push({
      name: `radio events count ${JSON.stringify(filter)}`,
      run: () => radioEvents.count(filter),
      ordered: false,
    });
  }
  // The pcapng export's walk: NGAP always, oldest first after a position (radio-events-export.ts).
  for (const filter of [
    {},
    { direction: 'inbound' as const },
    { messageType: 'x' },
    { to: 1 },
    { imsi: '001010000000001' },
  ]) {
    cases.push({
      name: `radio events export ${JSON.stringify(filter)}`,
      run: () => radioEvents.listOldestAfter({ ...filter, protocol: 'NGAP' }, { timestamp: 0, id: 0 }, 1000),
      ordered: true,
    });
  }
  const subscriberLogs = createSubscriberLogsRepository(db);
  for (const filter of [...logFilters, { imsi: '001010000000001' }]) {
    cases.push({
      name: `subscriber logs ${JSON.stringify(filter)}`,
      run: () => subscriberLogs.list(filter, 25, 0),
      ordered: true,
    });
    cases.push({
      name: `subscriber logs count ${JSON.stringify(filter)}`,
      run: () => subscriberLogs.count(filter),
      ordered: false,
    });
  }
  const radioLogs = createRadioLogsRepository(db);
  for (const filter of [...logFilters, { ranId: '001:01:000001' }]) {
    cases.push({
      name: `radio logs ${JSON.stringify(filter)}`,
      run: () => radioLogs.list(filter, 25, 0),
      ordered: true,
    });
    cases.push({
      name: `radio logs count ${JSON.stringify(filter)}`,
      run: () => radioLogs.count(filter),
      ordered: false,
    });
  }
  const flowReports = createFlowReportsRepository(db);
  for (const extra of [
    {},
    { subscriberId: '001010000000001' },
    { protocol: 6 },
    { source: { ip: '10.45.0.2' } },
    { source: { ip: '10.45.0.2', port: 4000 } },
    { source: { port: 4000 } },
    { destination: { ip: '8.8.8.8' } },
    { destination: { port: 443 } },
    { direction: 'uplink' as const },
    { action: 'drop' as const },
  ]) {
    const filter = { ...window, ...extra };
    const label = JSON.stringify(extra);
    const keyed = 'subscriberId' in extra || 'ip' in (extra.source ?? extra.destination ?? {});
    cases.push({
      name: `flow reports ${label}`,
      run: () => flowReports.list(filter, 25, 0),
      ordered: !keyed,
    });
    cases.push({ name: `flow reports count ${label}`, run: () => flowReports.count(filter), ordered: false });
    cases.push({
      name: `flow reports stats ${label}`,
      run: () => flowReports.protocolCounts(filter),
      ordered: false,
    });
    cases.push({
      name: `flow reports top destinations ${label}`,
      run: () => flowReports.topUplinkDestinations(filter, 10),
      ordered: false,
    });
    cases.push({
      name: `flow reports span ${label}`,
      run: () => flowReports.endTimeSpan(filter),
      ordered: false,
    });
  }
  const usage = createSubscriberUsageRepository(db);
  for (const filter of [
    { from: 0, to: 1 },
    { from: 0, to: 1, imsi: '001010000000001' },
  ]) {
    cases.push({
      name: `usage by day ${JSON.stringify(filter)}`,
      run: () => usage.byDay(filter),
      ordered: false,
    });
    cases.push({
      name: `usage by subscriber ${JSON.stringify(filter)}`,
      run: () => usage.bySubscriber(filter),
      ordered: false,
    });
  }
  cases.push({
    name: 'retention of flow reports',
    run: () => flowReports.deleteOlderThan(1, 1000),
    ordered: false,
  });
  cases.push({ name: 'retention of usage', run: () => usage.deleteOlderThan(1, 1000), ordered: false });

  it('lets the most selective flow filter choose the index: subscriber, then address, then protocol', async () => {
    const by = (extra: object) => indexOf(() => flowReports.count({ ...window, ...extra }));
    assert.equal(await by({ subscriberId: 'x', protocol: 17 }), 'flow_reports_bucket_subscriber_id_end_time');
    assert.equal(
      await by({ subscriberId: 'x', destination: { ip: '8.8.8.8' } }),
      'flow_reports_bucket_subscriber_id_end_time',
    );
    assert.equal(
      await by({ destination: { ip: '8.8.8.8', port: 53 }, protocol: 17 }),
      'flow_reports_bucket_destination_ip_end_time_direction_destination_port',
    );
    assert.equal(await by({ protocol: 17 }), 'flow_reports_protocol_end_time');
    assert.equal(
      await by({ protocol: 17, direction: 'uplink' }),
      'flow_reports_end_time_id_protocol_direction_action_source_port_destination_port',
    );
    assert.equal(
      await indexOf(() => flowReports.list({ ...window, subscriberId: 'x', protocol: 17 }, 25, 0)),
      'flow_reports_bucket_subscriber_id_end_time',
    );
  });

  it('counts a filter counted before from the reports added since, by id', async () => {
    const filter = { ...window, destination: { ip: '8.8.8.8', port: 53 } };
    await flowReports.count(filter);
    const report = {
      subscriber_id: '001010000000001',
      source_ip: '10.45.0.2',
      destination_ip: '8.8.8.8',
      source_port: 4000,
      destination_port: 53,
      protocol: 17,
      packets: 1,
      bytes: 80,
      start_time: 0,
      end_time: 0,
      direction: 'uplink' as const,
      action: 'allow' as const,
    };
    await writeTransaction(db, () => flowReports.insert([report]), flowReports.insertReads);
    const [, again] = await plans(() => flowReports.count(filter));
    assert.match(
      text(again ?? []),
      /^SEARCH flow_reports USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)$/,
    );
    await flowReports.deleteAll();
  });

  for (const { name, run, ordered } of cases) {
    it(`reads ${name} through an index`, async () => {
      const found = await plans(run);
      assert.ok(found.length > 0);
      for (const plan of found) assertIndexed(plan, ordered);
    });
  }
});
