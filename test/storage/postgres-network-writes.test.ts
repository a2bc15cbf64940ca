import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { systemClock, systemTimers } from '../../src/clock.ts';
import { createNetworkWriteRetries } from '../../src/core/network-write-retries.ts';
import { OverloadedError } from '../../src/errors.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { startSessionService, type SessionService } from '../e2e/session-service.ts';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.ts';
import { onPostgres } from '../helpers/postgres-test-database.ts';
import { until } from '../helpers/until.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file). It stops and
// starts a server, so it starts a cluster of its own rather than use the run's.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && 'no PostgreSQL server installed';

/**
 * The network side while PostgreSQL is down (issue 30, docs/postgresql.md "While the database cannot be
 * used"): registered devices are served from memory, the API answers 503, and the writes no procedure
 * waits for (UE contexts, address leases) are tried again, counted, and land once the server is back.
 */
describe('the network side while PostgreSQL is down', { skip }, () => {
  let cluster: PostgresCluster;
  let s: SessionService;
  const logged: string[] = [];
  before(async () => {
    cluster = await startPostgresCluster();
    cluster.psql('CREATE DATABASE core');
    s = await startSessionService({
      database: cluster.url('core'),
      logger: pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) }),
    });
  });
  after(async () => {
    await s?.close();
    cluster?.stop();
  });

  const storedRecord = async (imsi: string) => {
    const row = await s.t.db
      .selectFrom('ue_contexts')
      .select('record')
      .where('supi', '=', imsi)
      .executeTakeFirst();
    return row === undefined
      ? undefined
      : (JSON.parse(row.record) as { pduSessions: { pduSessionId: number; userPlane: string }[] });
  };
  const leases = async () =>
    (await s.t.db.selectFrom('address_leases').select('address').execute()).map((row) => row.address).sort();
  const retries = async () => (await s.t.core.metrics.read('pmn_network_write_retries_total')) ?? 0;

  it('serves registered devices, answers 503, and writes what changed once the server is back', async () => {
    // Device 1 idle with a session; device 2 connected with one.
    const idle = await s.registered(1);
    const first = await idle.sessions.establish({ pduSessionId: 1, type: 'IPv4' });
    assert.ok(first.outcome === 'accepted');
    const released = idle.ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(idle.ue));
    await released;
    const connected = await s.registered(2);
    const second = await connected.sessions.establish({ pduSessionId: 1, type: 'IPv4' });
    assert.ok(second.outcome === 'accepted');
    await until('both records written', async () => {
      const [one, two] = [await storedRecord(idle.imsi), await storedRecord(connected.imsi)];
      return one?.pduSessions[0]?.userPlane === 'inactive' && two?.pduSessions.length === 1;
    });
    assert.deepEqual(await leases(), [first.session.ipv4, second.session.ipv4].sort());
    const retriesBefore = await retries();

    cluster.stopServer();
    // The idle device comes back with its user plane, from the AMF's and the SMF's memory.
    const outcome = await idle.ue.serviceRequest('data', { uplinkData: [1] });
    if (outcome.outcome !== 'accepted') cluster.startServer();
    assert.equal(outcome.outcome, 'accepted', `${JSON.stringify(outcome)}\n${logged.join('')}`);
    const rule = [...s.rules.sessions.values()].find((r) => r.ipv4 === first.session.ipv4);
    await until('the user plane back', () => rule?.downlink !== undefined);
    // The other releases its session: its address lease ends once the database is back.
    assert.equal((await connected.sessions.release(1)).outcome, 'released');
    // The API cannot read: a clear 503 within the request's time.
    const down = await s.t.request({ method: 'GET', url: '/api/v1/profiles', token: s.token });
    assert.equal(down.statusCode, 503, down.body);
    assert.match(down.json<{ error: string }>().error, /^the database is unavailable \(\w+\); try again$/);
    // The writes of both procedures were refused and wait for their next attempt.
    await until('the writes tried again', async () => (await retries()) >= retriesBefore + 2);

    cluster.startServer();
    await until('the Service Request written', async () => {
      const record = await storedRecord(idle.imsi);
      return record?.pduSessions[0]?.userPlane === 'active';
    });
    await until('the released lease ended', async () => (await leases()).length === 1);
    assert.deepEqual(await leases(), [first.session.ipv4]);
    await until('the session gone from the record', async () => {
      const record = await storedRecord(connected.imsi);
      return record !== undefined && record.pduSessions.length === 0;
    });
    const metrics = await s.t.core.metrics.render();
    assert.match(metrics, /^pmn_network_write_retries_total\{store="ue_contexts"\} [1-9]\d*$/m);
    assert.match(metrics, /^pmn_network_write_retries_total\{store="address_leases"\} [1-9]\d*$/m);
    assert.doesNotMatch(metrics, /^pmn_network_write_failures_total\{/m, 'nothing given up');
  });

  it('serves an idle device after more devices than the AMF holds registered and deregistered', async () => {
    // A service of its own, on a database of its own, whose AMF holds 3 UE contexts.
    cluster.psql('CREATE DATABASE churn');
    const lines: string[] = [];
    const churn = await startSessionService({
      database: cluster.url('churn'),
      amf: { maxUeContexts: 3 },
      logger: pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }),
    });
    try {
      const idle = await churn.registered(1);
      const released = idle.ue.next((e) => (e.type === 'released' ? true : undefined));
      assert.ok(churn.ues.requestRelease(idle.ue));
      await released;
      // Each of these reads its subscription data as it registers: more reads than the AMF holds devices.
      for (let n = 2; n <= 6; n++) {
        const other = await churn.registered(n);
        assert.equal((await other.ue.deregister()).outcome, 'accepted');
      }
      cluster.stopServer();
      let outcome;
      try {
        outcome = await idle.ue.serviceRequest('signalling');
      } finally {
        cluster.startServer();
      }
      assert.equal(outcome.outcome, 'accepted', `${JSON.stringify(outcome)}\n${lines.join('')}`);
    } finally {
      await churn.close();
    }
  });

  it('gives a write up past its bound, counted, with the database error', async () => {
    const metrics = createMetrics();
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const retried = createNetworkWriteRetries({
      metrics,
      clock: systemClock,
      timers: systemTimers,
      logger,
      // Long enough for two attempts on a loaded machine, where one may take most of a second.
      policy: { retryForMs: 3_000 },
    });
    const leases = retried.addressLeases(s.t.core.ports.addressLeases('amf-bound'));
    const leased = await leases.lease('ipv4', '10.77.0.0/24');
    assert.ok(leased.ok);
    cluster.stopServer();
    try {
      const error = await leases.release(leased.address).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof OverloadedError, String(error));
      assert.match(error.message, /^the database is unavailable \(\w+\); try again$/);
    } finally {
      cluster.startServer();
    }
    assert.equal(await metrics.read('pmn_network_write_failures_total'), 1);
    assert.ok(((await metrics.read('pmn_network_write_retries_total')) ?? 0) >= 2);
    // One line as the writes began to fail; none per attempt (the caller logs the write given up).
    assert.equal(lines.length, 1, lines.join('\n'));
    retried.stop();
  });
});
