import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import type { ConfigurationChange } from '../../src/network/ports/configuration-events.ts';
import { NOTICE_CHANNEL } from '../../src/storage/postgres-change-notices.ts';
import { created, newProfile, omit } from '../helpers/network.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { flowReport, IMSI_1 } from '../helpers/records.ts';
import {
  ADMIN,
  createApiToken,
  createTestApp,
  initialize,
  login,
  manualClock,
  result,
  type TestApp,
} from '../helpers/test-app.ts';
import { until as waitUntil } from '../helpers/until.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

/** Asks `probe` until it answers true; 20 s of wall time at most, far above the 1 s the notices take. */
const eventually = (what: string, probe: () => Promise<boolean> | boolean) =>
  waitUntil(`seen by the other service: ${what}`, probe, () => '', { everyMs: 25 });

/**
 * Two whole services on one database, as two processes would be: each has its own pool, its own memory
 * and its own LISTEN connection. What one changes, the other must stop serving from memory.
 */
describe(
  'changes made through one service are seen by another on the same PostgreSQL database',
  { skip },
  () => {
    let a: TestApp;
    let b: TestApp;
    let adminA: string;
    before(async () => {
      const database = await freshPostgresDatabase();
      const secretKey = randomBytes(32);
      a = await createTestApp({ database, secretKey, clock: manualClock() });
      b = await createTestApp({ database, secretKey, clock: manualClock() });
      adminA = await initialize(a);
    });
    after(async () => {
      await a?.close();
      await b?.close();
    });

    const me = (t: TestApp, token: string) => t.request({ method: 'GET', url: '/api/v1/users/me', token });

    it('a revoked API token', async () => {
      const token = await createApiToken(a, adminA, 'revoked');
      // B verifies it once and keeps its digest in memory.
      assert.equal((await me(b, token)).statusCode, 200);
      assert.equal((await me(b, token)).statusCode, 200);
      const listed = await a.request({ method: 'GET', url: '/api/v1/users/me/api-tokens', token: adminA });
      const id = listed
        .json<{ result: { items: { id: number; name: string }[] } }>()
        .result.items.find((item) => item.name === 'revoked')?.id;
      const revoked = await a.request({
        method: 'DELETE',
        url: `/api/v1/users/me/api-tokens/${id}`,
        token: adminA,
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      await eventually('the token revoked', async () => (await me(b, token)).statusCode === 401);
    });

    it('a rotated signing secret', async () => {
      const rotated = await a.request({ method: 'POST', url: '/api/v1/auth/rotate-secret', token: adminA });
      assert.equal(rotated.statusCode, 200, rotated.body);
      // A bearer token signed with the new secret: B verified with the old one until it reads the new.
      adminA = await login(a, ADMIN.email, ADMIN.password);
      await eventually('the new signing secret', async () => (await me(b, adminA)).statusCode === 200);
    });

    it('a configuration change the network functions react to', async () => {
      const heard: ConfigurationChange[] = [];
      const stop = b.core.configuration.subscribe((change) => heard.push(change));
      try {
        await created(a, adminA, '/api/v1/profiles', newProfile('shared'));
        const payload = omit(newProfile('shared', { mtu: 1280 }), 'name');
        const edited = await a.request({
          method: 'PUT',
          url: '/api/v1/profiles/shared',
          token: adminA,
          payload,
        });
        assert.equal(edited.statusCode, 200, edited.body);
        await eventually('the profile edit', () =>
          heard.some((c) => c.resource === 'profile' && c.change === 'changed' && c.name === 'shared'),
        );
        assert.deepEqual(heard.slice(0, 2), [
          { resource: 'profile', change: 'created', name: 'shared' },
          { resource: 'profile', change: 'changed', name: 'shared' },
        ]);
      } finally {
        stop();
      }
    });

    it('a count kept in memory (flow reports deleted through the other service)', async () => {
      // Filtered by subscriber: counted from the reports and kept (the daily counts answer a bare window).
      const url = `/api/v1/flow-reports?subscriber_id=${IMSI_1}`;
      const count = async (t: TestApp) =>
        result<{ total_count: number }>(await t.request({ method: 'GET', url, token: adminA })).total_count;
      assert.equal(a.records.recordFlowReports([flowReport(), flowReport(), flowReport()]), true);
      await a.records.flush();
      // B counts them and keeps the count.
      assert.equal(await count(b), 3);
      const cleared = await a.request({ method: 'DELETE', url: '/api/v1/flow-reports', token: adminA });
      assert.equal(cleared.statusCode, 200, cleared.body);
      await eventually('the reports deleted', async () => (await count(b)) === 0);
    });

    it('ignores a malformed notice and keeps hearing the well-formed ones', async () => {
      const heard: ConfigurationChange[] = [];
      const stop = b.core.configuration.subscribe((change) => heard.push(change));
      try {
        // Sent straight to the channel, as a confused or hostile client of the database could.
        for (const payload of [
          'not json',
          'null',
          '{"n":[]}',
          '{"o":"elsewhere","n":"not a list"}',
          '{"o":"elsewhere","n":[42,["configuration",{"resource":"nothing","change":"created","name":"x"}],["configuration",null],["signing-secret",{"x":1}]]}',
        ])
          await sql`select pg_notify(${NOTICE_CHANNEL}, ${payload})`.execute(a.db);
        await created(a, adminA, '/api/v1/profiles', newProfile('after-garbage'));
        await eventually('the profile created after the malformed notices', () =>
          heard.some((c) => c.resource === 'profile' && c.name === 'after-garbage'),
        );
        assert.deepEqual(heard, [{ resource: 'profile', change: 'created', name: 'after-garbage' }]);
        assert.equal((await me(b, adminA)).statusCode, 200);
      } finally {
        stop();
      }
    });

    it('forgets what it kept when its listening connection was lost, since notices may have been missed', async () => {
      const token = await createApiToken(a, adminA, 'missed');
      assert.equal((await me(b, token)).statusCode, 200);
      // Deleted with no notice at all, as if it had been sent while B was not listening; then B's
      // listening connection is lost, and it listens again.
      await a.db.deleteFrom('api_tokens').where('name', '=', 'missed').execute();
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and query ilike 'listen %'`.execute(a.db);
      await eventually(
        'the token deleted while not listening',
        async () => (await me(b, token)).statusCode === 401,
      );
    });
  },
);
