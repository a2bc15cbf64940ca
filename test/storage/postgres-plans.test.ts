import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql, type CompiledQuery } from 'kysely';
import { pino } from 'pino';
import postgres from 'postgres';
import { createCore, type Core } from '../../src/core/create-core.ts';
import { buildHttpApp } from '../../src/http/build-http-app.ts';
import { createSubscribersRepository } from '../../src/resources/subscribers/subscribers.repository.ts';
import { dayPartition } from '../../src/storage/migrations/0017-flow-report-partitions.ts';
import { openStorage } from '../../src/storage/storage.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { initialize, type TestApp } from '../helpers/test-app.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

/** Rows in each large table: enough that a scan of the whole table costs the planner more than an index. */
const ROWS = 30_000;
const LARGE = [
  'subscribers',
  'audit_logs',
  'radio_events',
  'subscriber_logs',
  'radio_logs',
  'flow_reports',
  'subscriber_usage',
];
const DAY = 86_400_000;
/** Days the records span: the flow reports' default window (8 days) holds a small part of them. */
const SPAN_DAYS = 90;
/** Days the flow reports span: a few thousand a day partition (migration 0017), most in the default 8-day window. */
const FLOW_SPAN_DAYS = 10;
const NOW = Date.now();
const IMSI = '001010000000007';
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A value for each filter of each paginated list, by list and by name. A list or filter without one fails
 * the test: a new one is then planned here too.
 */
const SAMPLES: Record<string, string> = {
  actor: 'admin@example.com',
  start: isoDay(NOW - DAY),
  end: isoDay(NOW),
  radio: 'gnb-1',
  data_network: 'internet',
  msisdn: '15550000007',
  protocol: 'NGAP',
  direction: 'inbound',
  message_type: 'Message7',
  imsi: IMSI,
  // An hour of the days the records span: a window that selects a small part.
  timestamp_from: new Date(NOW - DAY / 24).toISOString(),
  timestamp_to: new Date(NOW).toISOString(),
  event: 'Event 7',
  ran_id: '001:01:000007',
  order: 'oldest',
  // The timeline's kinds: its state changes and sessions, from the subscriber events' own table.
  kinds: 'state,session',
  subscriber_id: IMSI,
  source: '10.45.0.7',
  destination: '93.184.0.7',
  action: 'drop',
};
/**
 * Filters that read a whole table by design, on SQLite too, each with its reason. The test names any
 * other that does.
 */
const UNINDEXED: Record<string, string> = {
  // Filters without an index of their own read the window (flow-reports.repository.ts, docs/records.md):
  // SQLite through its window index, PostgreSQL the window's day partitions, which it holds whole.
  '/api/v1/flow-reports direction': 'read from the window: its day partitions',
  '/api/v1/flow-reports action': 'read from the window: its day partitions',
  '/api/v1/flow-reports destination':
    'a destination with many reports is walked through the window newest first: its day partitions',
};

/** Values whose meaning differs by list. */
const BY_LIST: Record<string, Record<string, string>> = {
  '/api/v1/flow-reports': { protocol: '17', direction: 'uplink', group_by: 'subscriber' },
  '/api/v1/sms': { direction: 'mobile-originated', status: 'queued' },
};

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows': number;
  Plans?: PlanNode[];
}

/**
 * Share of a table a filter must select before reading all of it is fair: an index then saves little (a
 * count of every inbound radio event reads them all, from the table or from an index, on either database).
 */
const UNSELECTIVE = 0.2;

/** Rows from which a table (or a partition of one) is large: below, reading all of it is as cheap as an index. */
const LARGE_ROWS = 2_000;

/** The Seq Scans of large tables that keep less than UNSELECTIVE of their rows (`sizes`: rows by table). */
function seqScans(node: PlanNode, sizes: Map<string, number>): string[] {
  const relation = node['Relation Name'] ?? '';
  const size = sizes.get(relation) ?? 0;
  const own =
    node['Node Type'] === 'Seq Scan' &&
    LARGE.some((table) => relation.startsWith(table)) &&
    size >= LARGE_ROWS &&
    node['Plan Rows'] < UNSELECTIVE * size
      ? [`${relation} (${node['Plan Rows']} of ${size} rows estimated)`]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => seqScans(child, sizes))];
}

/**
 * Every paginated list of the API, unfiltered and with each of its filters, on PostgreSQL with large
 * tables: each statement it runs is EXPLAINed, and none may read a large table from end to end (a Seq
 * Scan) to keep a small part of it; on SQLite the same lists are read through their indexes
 * (docs/records.md). The sample values select a small part where the filter can (one subscriber, one
 * message type, an hour); a filter that selects most of a table (a direction) may read all of it.
 */
describe('the paginated lists on PostgreSQL read large tables through indexes', { skip }, () => {
  let url: string;
  let core: Core;
  let t: Pick<TestApp, 'request'>;
  let token: string;
  let routes: { method: string; url: string }[];
  let admin: postgres.Sql;
  const sizes = new Map<string, number>();
  let capturing = false;
  const statements: CompiledQuery[] = [];

  before(async () => {
    url = await freshPostgresDatabase();
    core = await createCore({
      storage: {
        path: url,
        poolSize: 2,
        log: (event) => {
          if (capturing && event.level === 'query') statements.push(event.query);
        },
      },
      logger: pino({ level: 'silent' }),
      scryptCost: { N: 1024, r: 8, p: 1 },
      secretKey: randomBytes(32),
      backgroundJobs: false,
    });
    const built = await buildHttpApp(core, {});
    core.lifecycle.add({ name: 'http', stop: () => built.app.close() });
    await core.start();
    routes = built.routes;
    t = {
      request: ({ token: bearer, headers, ...rest }) =>
        built.app.inject({
          ...rest,
          headers: { ...headers, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        }),
    };
    token = await initialize(t as TestApp);
    admin = postgres(url, { max: 1, onnotice: () => {} });
    const rows = `generate_series(1, ${ROWS}) i`;
    const time = `(${NOW} - (i::bigint * ${Math.floor((SPAN_DAYS * DAY) / ROWS)}))`;
    const flowTime = `(${NOW} - (i::bigint * ${Math.floor((FLOW_SPAN_DAYS * DAY) / ROWS)}))`;
    const imsi = `'00101' || lpad(i::text, 10, '0')`;
    // Flow reports go into day partitions (migration 0017), which the records writer makes as it writes.
    const firstDay = NOW - (NOW % DAY) - (FLOW_SPAN_DAYS + 1) * DAY;
    for (let day = firstDay; day <= NOW; day += DAY) {
      await admin.unsafe(
        `create table ${dayPartition(day)} partition of flow_reports for values from (${day}) to (${day + DAY})`,
      );
    }
    await admin
      .unsafe(
        `
      insert into subscribers (imsi, profile_id, key_sealed, opc_sealed, sequence_number, created_at, msisdn)
        select ${imsi}, (select min(id) from profiles), 'k', 'o', '000000000001', ${time}, '1555' || lpad(i::text, 7, '0') from ${rows};
      insert into audit_logs (timestamp, level, actor, action, ip, details)
        select ${time}, 'info', 'user' || (i % 100) || '@example.com', 'create_subscriber', '127.0.0.1', '' from ${rows};
      insert into radio_events (timestamp, protocol, message_type, direction, raw, details, imsi, radio)
        select ${time}, case when i % 10 = 0 then 'NAS' else 'NGAP' end, 'Message' || (i % 50),
          case when i % 2 = 0 then 'inbound' else 'outbound' end, '\\x00',
          '{"radio":"gnb-' || (i % 20) || '"}', ${imsi}, 'gnb-' || (i % 20) from ${rows};
      insert into subscriber_logs (timestamp, imsi, event, direction, raw, details)
        select ${time}, ${imsi}, 'Event ' || (i % 40), case when i % 2 = 0 then 'inbound' else 'outbound' end,
          '\\x00', '{}' from ${rows};
      insert into radio_logs (timestamp, level, ran_id, event, direction, raw, details)
        select ${time}, 'info', '001:01:' || lpad(to_hex(i % 500), 6, '0'), 'Event ' || (i % 40),
          case when i % 2 = 0 then 'inbound' else 'outbound' end, '\\x00', '{}' from ${rows};
      insert into flow_reports (bucket, subscriber_id, source_ip, destination_ip, source_port, destination_port,
          protocol, packets, bytes, start_time, end_time, direction, action)
        select i / 8192, ${imsi}, '10.45.' || (i / 256 % 256) || '.' || (i % 256), '93.184.0.' || (i % 200),
          1024 + i % 1000, case when i % 3 = 0 then 53 else 443 end, case when i % 3 = 0 then 17 else 6 end,
          1, 100, ${flowTime} - 1000, ${flowTime}, case when i % 2 = 0 then 'uplink' else 'downlink' end, 'allow'
        from ${rows};
      insert into flow_report_buckets (bucket, first_end_time, last_end_time)
        select bucket, min(end_time), max(end_time) from flow_reports group by bucket;
      insert into subscriber_usage (imsi, day, uplink_bytes, downlink_bytes)
        select ${imsi}, ${NOW - (NOW % DAY)} - (i % 30)::bigint * ${DAY}, 1, 1 from ${rows} on conflict do nothing;
    `,
      )
      .simple();
    await admin.unsafe('vacuum analyze');
    const tables = await admin<{ name: string; rows: number }[]>`
      select relname as name, reltuples::bigint as rows from pg_class where relkind = 'r'`;
    for (const { name, rows: count } of tables) sizes.set(name, Number(count));
  });
  after(async () => {
    await admin?.end();
    await core?.stop();
  });

  it('plans no Seq Scan of a large table for any list, unfiltered or filtered', async () => {
    const lists = routes.filter(
      (route) =>
        route.method === 'GET' && !route.url.includes('events/stream') && route.url.startsWith('/api/'),
    );
    const findings: string[] = [];
    const missing: string[] = [];
    let planned = 0;
    for (const route of lists) {
      const path = route.url.replace('{imsi}', IMSI).replace(':imsi', IMSI);
      if (/[{:]/.test(path)) continue;
      // Paginated: the OpenAPI document names its page parameters.
      const parameters = await listParameters(route.url);
      if (parameters === undefined) continue;
      for (const filter of [undefined, ...parameters]) {
        let query = 'per_page=100';
        if (filter !== undefined) {
          const value = BY_LIST[path]?.[filter] ?? SAMPLES[filter];
          if (value === undefined) {
            missing.push(`${path} ${filter}`);
            continue;
          }
          query += `&${filter}=${encodeURIComponent(value)}`;
        }
        statements.length = 0;
        capturing = true;
        const response = await t.request({ method: 'GET', url: `${path}?${query}`, token });
        capturing = false;
        assert.equal(response.statusCode, 200, `${path}?${query}: ${response.body}`);
        for (const statement of statements) {
          if (!/^\s*(select|with)\b/i.test(statement.sql)) continue;
          const [row] = await admin.unsafe<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
            `explain (format json) ${statement.sql}`,
            statement.parameters as never[],
          );
          planned += 1;
          const scans = seqScans(row?.['QUERY PLAN'][0].Plan as PlanNode, sizes);
          if (scans.length > 0 && (filter === undefined || !UNINDEXED[`${path} ${filter}`]))
            findings.push(`${path}?${query}: Seq Scan on ${scans.join(', ')}: ${statement.sql}`);
        }
      }
    }
    assert.deepEqual(missing, [], 'a filter without a sample value');
    assert.ok(planned > 50, `${planned} statements planned`);
    assert.deepEqual(findings, []);
  });

  it('plans the subscriber page once and reuses it (a generic plan through the IMSI index)', async () => {
    // One connection: pg_prepared_statements shows its own session's statements only.
    const storage = await openStorage({ path: url, poolSize: 1 });
    try {
      const subscribers = createSubscribersRepository(storage.db);
      // As the list runs them: the same page size and skip from many start IMSIs (list-positions.ts).
      const runs = 20;
      for (let i = 0; i < runs; i++) {
        const from = `00101${String(i * 1_000).padStart(10, '0')}`;
        assert.equal((await subscribers.pageWithCount(from, 100, 8))?.rows.length, 100);
        assert.equal((await subscribers.list({ imsiFrom: from }, 100, 8)).length, 100);
      }
      const { rows } = await sql<{ name: string; statement: string; generic: number; custom: number }>`
        select name, statement, generic_plans::int as generic, custom_plans::int as custom
        from pg_prepared_statements where statement like '%from "subscribers"%order by "page"."imsi"%'`.execute(
        storage.db,
      );
      assert.equal(rows.length, 2, JSON.stringify(rows));
      await sql`set plan_cache_mode = force_generic_plan`.execute(storage.db);
      for (const row of rows) {
        // PostgreSQL plans a statement's first 5 runs for their values (custom plans), then keeps one
        // plan for any values (generic) when it costs no more: every later run skips the planner.
        assert.equal(row.generic + row.custom, runs, row.statement);
        assert.ok(row.custom <= 5, `${row.custom} custom plans of ${runs} runs: ${row.statement}`);
        // The plan kept (forced here) is the index path, never a read of the whole table.
        const { rows: explained } = await sql<{
          'QUERY PLAN': [{ Plan: PlanNode }];
        }>`explain (format json) execute ${sql.id(row.name)}(${sql.lit(IMSI)})`.execute(storage.db);
        const plan = explained[0]?.['QUERY PLAN'][0].Plan as PlanNode;
        assert.deepEqual(seqScans(plan, sizes), [], row.statement);
        assert.match(JSON.stringify(plan), /"Index Name":"[^"]*subscribers[^"]*imsi/, row.statement);
      }
    } finally {
      await storage.close();
    }
  });

  /** The query parameters of a paginated list route (it has `per_page`), but the page's own. */
  let openapi: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> | undefined;
  async function listParameters(route: string): Promise<string[] | undefined> {
    if (!openapi) {
      const response = await t.request({ method: 'GET', url: '/api/v1/openapi.json', token });
      openapi = response.json<{ paths: typeof openapi }>().paths;
    }
    const path = route.replace(/:(\w+)/g, '{$1}');
    const query = (openapi?.[path]?.get?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    if (!query.includes('per_page')) return undefined;
    return query.filter((name) => name !== 'page' && name !== 'per_page');
  }
});
