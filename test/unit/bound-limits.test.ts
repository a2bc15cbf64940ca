import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { valuesTemplate } from '../../src/storage/query-template.ts';
import { withBoundLimits } from '../../src/storage/sqlite-file.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';

describe('bound limits', () => {
  let storage: Storage;
  before(async () => {
    storage = await openStorage({ path: ':memory:' });
    await storage.db
      .insertInto('data_networks')
      .values(['alpha', 'bravo', 'charlie', 'delta'].map((name) => ({ name })))
      .execute();
  });
  after(() => storage.close());

  it('turns each bare LIMIT ? into LIMIT ? + 0, the parameters in their order, and nothing else', () => {
    assert.equal(
      withBoundLimits('select * from (select a from t limit ? offset ?) limit ?'),
      'select * from (select a from t limit ? + 0 offset ?) limit ? + 0',
    );
    assert.equal(withBoundLimits('SELECT a FROM t LIMIT ?'), 'SELECT a FROM t LIMIT ? + 0');
    assert.equal(withBoundLimits('select a from t limit 5'), 'select a from t limit 5');
    assert.equal(withBoundLimits('select sublimit ? from t'), 'select sublimit ? from t');
  });

  it('answers the rows each limit asks for, through Kysely and through a template', async () => {
    const page = (p: { from: string; limit: number; offset: number }) =>
      storage.db
        .selectFrom('data_networks')
        .select('name')
        .where('name', '>=', p.from)
        .orderBy('name')
        .limit(p.limit)
        .offset(p.offset);
    const run = valuesTemplate<{ from: string; limit: number; offset: number }, [name: string]>(
      ['from', 'limit', 'offset'],
      page,
    );
    for (const [values, names] of [
      [{ from: 'b', limit: 2, offset: 0 }, ['bravo', 'charlie']],
      [{ from: 'a', limit: 1, offset: 1 }, ['bravo']],
      [{ from: 'a', limit: 3, offset: 2 }, ['charlie', 'delta']],
      [{ from: 'a', limit: 0, offset: 0 }, []],
      [{ from: 'a', limit: -1, offset: 3 }, ['delta']],
    ] as const) {
      const rows = await page(values).execute();
      assert.deepEqual(
        rows.map((row) => row.name),
        names,
        JSON.stringify(values),
      );
      assert.deepEqual(
        await run(storage.db, values),
        names.map((name) => [name]),
        JSON.stringify(values),
      );
    }
  });
});
