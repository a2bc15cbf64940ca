import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { OverloadedError } from '../../src/errors.ts';
import { TRANSACTION_ATTEMPTS } from '../../src/storage/postgres-database.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

describe('a transaction that collides on every run on PostgreSQL', { skip }, () => {
  let storage: Storage;
  before(async () => {
    storage = await openStorage({ path: await freshPostgresDatabase(), poolSize: 2 });
  });
  after(() => storage?.close());

  it('is run again up to the bound, then answered as busy (503), not as a fault (500)', async () => {
    let runs = 0;
    const colliding = storage.db.transaction().execute(async (trx) => {
      runs += 1;
      // The server's own serialization failure, as a write on rows another transaction changed raises.
      await sql`DO $$ BEGIN RAISE EXCEPTION 'collided' USING ERRCODE = 'serialization_failure'; END $$`.execute(
        trx,
      );
    });
    await assert.rejects(colliding, (error: unknown) => {
      assert.ok(error instanceof OverloadedError, String(error));
      assert.equal(error.message, 'the database is busy (40001); try again');
      assert.equal(error.retryAfterSeconds, 1);
      return true;
    });
    assert.equal(runs, TRANSACTION_ATTEMPTS);
  });
});
