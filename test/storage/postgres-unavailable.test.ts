import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.ts';
import { onPostgres } from '../helpers/postgres-test-database.ts';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file). It stops and
// starts a server, so it starts a cluster of its own rather than use the run's.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && 'no PostgreSQL server installed';

describe('the API while PostgreSQL is down', { skip }, () => {
  let cluster: PostgresCluster;
  let t: TestApp;
  let token: string;
  before(async () => {
    cluster = await startPostgresCluster();
    cluster.psql('CREATE DATABASE core');
    t = await createTestApp({ database: cluster.url('core') });
    token = await initialize(t);
  });
  after(async () => {
    await t?.close();
    cluster?.stop();
  });

  it('answers 503 with an error and Retry-After, then serves again once the server is back', async () => {
    const read = () => t.request({ method: 'GET', url: '/api/v1/profiles', token });
    assert.equal((await read()).statusCode, 200);
    cluster.stopServer();
    const down = await read();
    assert.equal(down.statusCode, 503, down.body);
    assert.match(down.json<{ error: string }>().error, /^the database is unavailable \(\w+\); try again$/);
    assert.equal(down.headers['retry-after'], '1');
    const write = await t.request({
      method: 'POST',
      url: '/api/v1/networking/data-networks',
      token,
      payload: { name: 'while-down' },
    });
    assert.equal(write.statusCode, 503, write.body);
    cluster.startServer();
    assert.equal((await read()).statusCode, 200);
  });
});
