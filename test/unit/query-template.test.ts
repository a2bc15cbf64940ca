import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { integerLiteral, queryTemplate, valuesTemplate } from '../../src/storage/query-template.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';

describe('query templates', () => {
  let storage: Storage;
  before(async () => {
    storage = await openStorage({ path: ':memory:' });
    await storage.db
      .insertInto('data_networks')
      .values(['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((name) => ({ name })))
      .execute();
  });
  after(() => storage.close());

  const build = (p: { from: string; limit: number }) =>
    storage.db
      .selectFrom('data_networks')
      .select(['id', 'name'])
      .where('name', '>=', p.from)
      .where('name', '<>', 'charlie')
      .orderBy('name')
      .limit(p.limit);

  it('answers what the built query answers, for each set of values, constants kept', async () => {
    const run = queryTemplate(['from', 'limit'], build);
    for (const values of [
      { from: 'a', limit: 2 },
      { from: 'c', limit: 10 },
      { from: 'bravo', limit: 1 },
      { from: 'z', limit: 3 },
    ]) {
      assert.deepEqual(await run(storage.db, values), await build(values).execute(), JSON.stringify(values));
    }
  });

  it('runs inside a transaction, seeing its uncommitted rows', async () => {
    const run = queryTemplate(['from', 'limit'], build);
    await storage.db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('data_networks').values({ name: 'foxtrot' }).execute();
        const rows = await run(trx, { from: 'f', limit: 5 });
        assert.deepEqual(
          rows.map((row) => row.name),
          ['foxtrot'],
        );
        throw new Error('roll back');
      })
      .catch(() => undefined);
    assert.deepEqual(await run(storage.db, { from: 'f', limit: 5 }), []);
  });

  it('on the database, waits for a transaction holding the connection and never sees its rows', async () => {
    const run = queryTemplate(['from', 'limit'], build);
    let during: Promise<{ id: number; name: string }[]> | undefined;
    await storage.db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('data_networks').values({ name: 'golf' }).execute();
        // Not awaited here: it waits for this transaction to end, which it does after the throw.
        during = run(storage.db, { from: 'g', limit: 5 });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    assert.deepEqual(await during, []);
    await storage.db.transaction().execute(async (trx) => {
      await trx.insertInto('data_networks').values({ name: 'hotel' }).execute();
    });
    assert.deepEqual(
      (await run(storage.db, { from: 'g', limit: 5 })).map((row) => row.name),
      ['hotel'],
    );
  });

  it('gives rows as values in the selected order, on the database and in a transaction', async () => {
    const values = valuesTemplate<{ from: string; limit: number }, [number, string]>(
      ['from', 'limit'],
      build,
    );
    const objects = queryTemplate(['from', 'limit'], build);
    const expected = (await build({ from: 'a', limit: 3 }).execute()).map((row) => [row.id, row.name]);
    assert.deepEqual(await values(storage.db, { from: 'a', limit: 3 }), expected);
    // The statement is shared by SQL text: a run for objects after one for values still gets objects.
    assert.deepEqual(
      (await objects(storage.db, { from: 'a', limit: 3 })).map((row) => [row.id, row.name]),
      expected,
    );
    await storage.db.transaction().execute(async (trx) => {
      assert.deepEqual(await values(trx, { from: 'a', limit: 3 }), expected);
    });
  });

  it('refuses a template that leaves a named value out of its query', async () => {
    const run = queryTemplate(['from', 'limit'], (p: { from: string; limit: number }) =>
      storage.db.selectFrom('data_networks').select('name').where('name', '>=', p.from).limit(5),
    );
    await assert.rejects(run(storage.db, { from: 'a', limit: 1 }), /parameter limit is not in the query/);
  });

  it('writes literal values into the SQL text, compiled for each, the other values still bound', async () => {
    const page = (p: { from: string; limit: number }) =>
      storage.db
        .selectFrom('data_networks')
        .select('name')
        .where('name', '>=', p.from)
        .orderBy('name')
        .limit(integerLiteral(p.limit));
    assert.deepEqual(
      page({ from: 'a', limit: 7 })
        .compile()
        .sql.match(/limit .*/)?.[0],
      'limit 7',
    );
    assert.deepEqual(page({ from: 'a', limit: 7 }).compile().parameters, ['a']);
    const run = queryTemplate(['from', 'limit'], page, { literals: ['limit'] });
    for (const values of [
      { from: 'a', limit: 2 },
      { from: 'b', limit: 2 },
      { from: 'a', limit: 4 },
      { from: 'c', limit: 1 },
      { from: 'a', limit: 2 },
    ]) {
      assert.deepEqual(await run(storage.db, values), await page(values).execute(), JSON.stringify(values));
    }
  });

  it('writes only a non-negative safe integer into the SQL text', async () => {
    for (const value of [-1, 1.5, Number.NaN, Infinity, 2 ** 53, '1; drop table subscribers' as never])
      assert.throws(() => integerLiteral(value), RangeError, String(value));
    const run = queryTemplate(
      ['limit'],
      (p: { limit: number }) =>
        storage.db.selectFrom('data_networks').select('name').limit(integerLiteral(p.limit)),
      { literals: ['limit'] },
    );
    await assert.rejects(run(storage.db, { limit: -1 }), RangeError);
    assert.equal((await run(storage.db, { limit: 1 })).length, 1);
  });
});
