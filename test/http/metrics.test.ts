import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import { sql } from 'kysely';
import { sqliteFileOf } from '../../src/storage/database.ts';
import { onPostgres } from '../helpers/postgres-test-database.ts';
import { flowReport } from '../helpers/records.ts';
import {
  createApiToken,
  createTestApp,
  initialize,
  manualClock,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

const DAY_MS = 86_400_000;

/** The value of the sample `name{labels}` in a Prometheus text exposition, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]] as const),
    );
    if (Object.entries(labels).every(([key, value]) => found.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}

describe('GET /api/v1/metrics', () => {
  const clock = manualClock();
  let t: TestApp;
  let admin: string;
  let readOnly: string;
  /** A read-only user's API token: it does not expire when the test moves the clock. */
  let apiToken: string;

  before(async () => {
    t = await createTestApp({ clock });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly);
    apiToken = await createApiToken(t, readOnly, 'prometheus');
  });
  after(() => t.close());

  const scrape = async (token = apiToken) => {
    const response = await t.request({ method: 'GET', url: '/api/v1/metrics', token });
    assert.equal(response.statusCode, 200, response.body);
    return response.body;
  };

  it('answers any authenticated role in the Prometheus text format', async () => {
    for (const token of [admin, readOnly, await userWithRole(t, admin, ROLE.networkManager)]) {
      const response = await t.request({ method: 'GET', url: '/api/v1/metrics', token });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
      assert.match(response.body, /^# HELP pmn_http_requests_total /m);
      assert.match(response.body, /^# TYPE pmn_http_requests_total counter$/m);
    }
  });

  it('answers 401 without credentials', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/metrics' });
    assert.equal(response.statusCode, 401);
  });

  it('can be scraped with an API token, as Prometheus does', async () => {
    assert.match(await scrape(apiToken), /pmn_http_requests_total/);
  });

  it('counts requests by route template, method and status, never by concrete URL', async () => {
    const url = '/api/v1/users/someone.private@example.com';
    const before = sample(await scrape(), 'pmn_http_requests_total', {
      route: '/api/v1/users/:email',
      method: 'GET',
      status: '404',
    });
    assert.equal((await t.request({ method: 'GET', url, token: admin })).statusCode, 404);
    const text = await scrape();
    const after = sample(text, 'pmn_http_requests_total', {
      route: '/api/v1/users/:email',
      method: 'GET',
      status: '404',
    });
    assert.equal(after, (before ?? 0) + 1);
    assert.doesNotMatch(text, /someone\.private/);
  });

  it('labels requests that match no route as unmatched', async () => {
    await t.request({ method: 'GET', url: '/api/v1/no-such-thing/12345' });
    const text = await scrape();
    assert.ok((sample(text, 'pmn_http_requests_total', { route: 'unmatched', status: '404' }) ?? 0) >= 1);
    assert.doesNotMatch(text, /no-such-thing/);
  });

  it('observes request latency in a histogram by route template and method', async () => {
    await t.request({ method: 'GET', url: '/api/v1/status' });
    const text = await scrape();
    const labels = { route: '/api/v1/status', method: 'GET' };
    const count = sample(text, 'pmn_http_request_duration_seconds_count', labels) ?? 0;
    assert.ok(count >= 1);
    assert.equal(sample(text, 'pmn_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' }), count);
    assert.ok((sample(text, 'pmn_http_request_duration_seconds_sum', labels) ?? -1) >= 0);
  });

  it('includes the Node.js process metrics', async () => {
    const text = await scrape();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      assert.ok(sample(text, name) !== undefined, name);
    }
  });

  it('reports connected radios, registered subscribers and active sessions from the network state', async () => {
    const state = t.networkState;
    t.network.radioConnected({
      id: '001:01:00000a',
      name: 'gnb-metrics',
      address: '10.0.0.9:38412',
      ranNodeType: 'gNB',
      supportedTais: [],
    });
    t.network.subscriberRegistered('001010000000077', 'gnb-metrics', {
      radioAccessTypes: ['5G'],
      imei: '356938035643809',
      cipheringAlgorithm: 'NEA2',
      integrityAlgorithm: 'NIA2',
    });
    t.network.sessionEstablished('001010000000077', {
      id: 1,
      radioAccessType: '5G',
      status: 'active',
      ipType: 'IPv4',
      ipv4Address: '10.45.0.2',
      ipv6Prefix: '',
      dataNetwork: 'internet',
      slice: { sst: 1, sd: '' },
      ambrUplink: '1 Gbps',
      ambrDownlink: '1 Gbps',
    });
    const text = await scrape();
    assert.equal(sample(text, 'pmn_radio_connections_total'), 1);
    assert.equal(sample(text, 'pmn_registrations_total'), 1);
    assert.equal(sample(text, 'pmn_pdu_sessions_established_total'), 1);
    assert.equal(sample(text, 'pmn_radios_connected'), 1);
    assert.equal(sample(text, 'pmn_subscribers_registered'), 1);
    assert.equal(sample(text, 'pmn_sessions_active'), 1);
    assert.doesNotMatch(text, /001010000000077/, 'no IMSI in any label');
    state.subscriberRemoved('001010000000077');
    t.network.radioDisconnected('001:01:00000a');
    const after = await scrape();
    assert.deepEqual(
      ['pmn_radios_connected', 'pmn_subscribers_registered', 'pmn_sessions_active'].map((n) =>
        sample(after, n),
      ),
      [0, 0, 0],
    );
    t.network.subscriberDeregistered('001010000000077');
    t.network.sessionReleased('001010000000077', 1);
    const counted = await scrape();
    assert.equal(sample(counted, 'pmn_deregistrations_total'), 1);
    assert.equal(sample(counted, 'pmn_pdu_sessions_released_total'), 1);
    assert.equal(sample(counted, 'pmn_registrations_total'), 1, 'a counter never goes down');
  });

  it('reports the database size in bytes', async () => {
    const measured = async () =>
      onPostgres
        ? ((await sql<{ size: number }>`select pg_database_size(current_database()) as size`.execute(t.db))
            .rows[0]?.size ?? 0)
        : sqliteFileOf(t.db).sizeBytes();
    // The database grows while the test reads it (the AMF set's heartbeat writes every few seconds):
    // the metric is the size at some moment between the two reads around it.
    const before = await measured();
    const size = sample(await scrape(), 'pmn_database_size_bytes') ?? 0;
    const after = await measured();
    assert.ok(size >= before && size <= after, `${before} <= ${size} <= ${after}`);
    assert.ok(size > 0);
  });

  it('counts the records retention deletes, by record type', async () => {
    const retention = t.backgroundJobs.find((job) => job.name === 'retention');
    assert.ok(retention);
    await retention.job(new AbortController().signal);
    const labels = { record_type: 'audit_logs' };
    const before = sample(await scrape(), 'pmn_retention_deleted_records_total', labels);
    assert.equal(typeof before, 'number', 'the series exists once retention has run');

    const total = (await t.request({ method: 'GET', url: '/api/v1/logs/audit', token: admin })).json<{
      result: { total_count: number };
    }>().result.total_count;
    // Every audit entry so far falls out of the 90-day window.
    clock.advance(91 * DAY_MS);
    await retention.job(new AbortController().signal);
    const after = sample(await scrape(apiToken), 'pmn_retention_deleted_records_total', labels);
    assert.equal(after, (before ?? 0) + total);
  });

  it('counts the records the pipeline accepts and exposes its queue, by record type', async () => {
    const labels = { record_type: 'flow_reports' };
    const before = sample(await scrape(), 'pmn_records_ingested_total', labels) ?? 0;
    assert.equal(t.records.recordFlowReports([flowReport(), flowReport({ sourcePort: 40001 })]), true);
    // The queue is written within milliseconds: once flushed, its depth is known (the writer's unit
    // test checks the depth while records wait).
    await t.records.flush();
    const text = await scrape();
    assert.equal(sample(text, 'pmn_records_ingested_total', labels), before + 2);
    assert.equal(sample(text, 'pmn_records_queue_depth', labels), 0);
  });

  it('feeds every panel of the Grafana dashboard in deploy/', async () => {
    const dashboard = JSON.parse(
      readFileSync(new URL('../../deploy/grafana-dashboard.json', import.meta.url), 'utf8'),
    ) as { panels: { targets?: { expr: string }[] }[] };
    const queried = new Set(
      dashboard.panels
        .flatMap((panel) => panel.targets ?? [])
        .flatMap((target) => [...target.expr.matchAll(/\b((?:pmn|process|nodejs)_\w+)\{/g)].map((m) => m[1])),
    );
    const exposed = new Set(
      [...(await scrape()).matchAll(/^# TYPE (\w+) (\w+)$/gm)].flatMap((m) =>
        m[2] === 'histogram' ? [`${m[1]}_bucket`, `${m[1]}_sum`, `${m[1]}_count`] : [m[1]],
      ),
    );
    assert.ok(queried.size > 10);
    for (const name of queried) {
      if (name !== undefined) assert.ok(exposed.has(name), `${name} is not exposed`);
    }
  });
});
