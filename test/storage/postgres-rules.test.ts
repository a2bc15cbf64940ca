import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { newProfile } from '../helpers/network.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { ADMIN, createTestApp, initialize, login, userWithRole, type TestApp } from '../helpers/test-app.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

/**
 * Two whole services on one database, as two processes would be: each has its own pool and its own
 * memory, so only the database can keep the check-then-write rules. Their requests are sent at once.
 */
describe('API rules with two services on one PostgreSQL database', { skip }, () => {
  let a: TestApp;
  let b: TestApp;
  let tokenA: string;
  let tokenB: string;
  before(async () => {
    const database = await freshPostgresDatabase();
    const secretKey = randomBytes(32);
    a = await createTestApp({ database, secretKey });
    b = await createTestApp({ database, secretKey });
    tokenA = await initialize(a);
    tokenB = await login(b, ADMIN.email, ADMIN.password);
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  it('create one profile of a name, however many ask at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).request({
          method: 'POST',
          url: '/api/v1/profiles',
          token: i % 2 ? tokenA : tokenB,
          payload: newProfile('same-name'),
        }),
      ),
    );
    const statuses = answers.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409, 409, 409], JSON.stringify(statuses));
  });

  it('give a user no more than 12 API tokens', async () => {
    // 16 at once, 8 per service: one caller's hashing beyond 1 running and 8 waiting is refused with
    // 429 (identity/hashing-queue.ts on two cores), a bound that is not the rule tested here.
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 ? a : b).request({
          method: 'POST',
          url: '/api/v1/users/me/api-tokens',
          token: i % 2 ? tokenA : tokenB,
          payload: { name: `token ${i}` },
        }),
      ),
    );
    assert.equal(answers.filter((r) => r.statusCode === 201).length, 12);
    const others = answers.filter((r) => r.statusCode !== 201 && r.statusCode !== 409);
    assert.deepEqual(
      others.map((r) => `${r.statusCode} ${r.body}`),
      [],
    );
    const stored = await a.db.selectFrom('api_tokens').select('id').execute();
    assert.equal(stored.length, 12);
  });

  it('keep one admin when two admins delete each other through the two services at once', async () => {
    const other = await userWithRole(a, tokenA, 1, 'second-admin@example.com');
    const answers = await Promise.all([
      a.request({ method: 'DELETE', url: '/api/v1/users/second-admin@example.com', token: tokenA }),
      b.request({ method: 'DELETE', url: `/api/v1/users/${ADMIN.email}`, token: other }),
    ]);
    const admins = await a.db.selectFrom('users').select('email').where('role_id', '=', 1).execute();
    assert.equal(admins.length, 1);
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 409]);
  });
});
