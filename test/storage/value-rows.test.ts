import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { valuesTemplate } from '../../src/storage/query-template.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';

/**
 * A values template's rows are its selected columns in order, on both dialects: on PostgreSQL the driver
 * gives them as arrays (postgres-dialect.ts, `valueRows`), as SQLite's raw mode does. Rows read as
 * objects keep one of two columns of one name, and the values came out one short and out of place.
 */
describe('values templates: rows as arrays on both dialects', () => {
  let storage: Storage;
  before(async () => {
    storage = await openStorage({
      path: onPostgres ? await freshPostgresDatabase() : ':memory:',
      poolSize: 2,
    });
    await storage.db
      .insertInto('data_networks')
      .values(['alpha', 'bravo', 'charlie'].map((name) => ({ name })))
      .execute();
  });
  after(() => storage.close());

  // Each data network beside the next one: two columns named `name`.
  const pairs = valuesTemplate<{ from: string }, [string, number, string]>(['from'], (p) =>
    storage.db
      .selectFrom('data_networks as a')
      .innerJoin('data_networks as b', (join) => join.on((eb) => eb('b.id', '=', eb('a.id', '+', 1))))
      .select(['a.name', 'b.id', 'b.name'])
      .where('a.name', '>=', p.from)
      .orderBy('a.name'),
  );

  it('gives every selected column in order, two of one name both', async () => {
    const [first] = await storage.db.selectFrom('data_networks').select('id').orderBy('id').execute();
    const bravo = (first?.id ?? 0) + 1;
    assert.deepEqual(await pairs(storage.db, { from: 'a' }), [
      ['alpha', bravo, 'bravo'],
      ['bravo', bravo + 1, 'charlie'],
    ]);
  });

  // Kysely's SQLite driver gives objects in a transaction: the mark is PostgreSQL's driver's.
  it('does so inside a PostgreSQL transaction too', { skip: !onPostgres && 'PostgreSQL only' }, async () => {
    const rows = await storage.db.transaction().execute((trx) => pairs(trx, { from: 'b' }));
    assert.deepEqual(
      rows.map(([a, , b]) => [a, b]),
      [['bravo', 'charlie']],
    );
  });
});
