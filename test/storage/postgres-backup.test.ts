import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';
const TOOLS =
  /PostgreSQL database are PostgreSQL's own: pg_dump and pg_restore, or base backups \(pg_basebackup\) with point-in-time recovery/;

describe('backup and restore on PostgreSQL', { skip }, () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await createTestApp({ database: await freshPostgresDatabase() });
    token = await initialize(t);
  });
  after(() => t?.close());

  it("answer 409 naming PostgreSQL's own tools", async () => {
    const backup = await t.request({ method: 'POST', url: '/api/v1/backup', token });
    assert.equal(backup.statusCode, 409, backup.body);
    assert.match(backup.json<{ error: string }>().error, TOOLS);
    const boundary = 'pmn-boundary';
    const restore = await t.request({
      method: 'POST',
      url: '/api/v1/restore',
      token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="core.db"\r\ncontent-type: application/octet-stream\r\n\r\nx\r\n--${boundary}--\r\n`,
    });
    assert.equal(restore.statusCode, 409, restore.body);
    assert.match(restore.json<{ error: string }>().error, TOOLS);
  });
});
