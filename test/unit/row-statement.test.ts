import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Insertable } from 'kysely';
import { migrateToLatest, openSqliteDatabase } from '../../src/storage/database.ts';
import { rowQuery, rowStatement, writeTransaction } from '../../src/storage/row-statement.ts';
import type { RadioLogsTable } from '../../src/storage/tables/records.ts';

type RadioLog = Insertable<RadioLogsTable>;

function radioLog(n: number): RadioLog {
  return {
    timestamp: 1_000 + n,
    level: n % 2 === 0 ? 'info' : 'warn',
    ran_id: `001:01:${String(n).padStart(6, '0')}`,
    event: `event ${n}`,
    direction: n % 3 === 0 ? 'inbound' : 'outbound',
    raw: Buffer.from([n % 256, 7]),
    details: `{"n":${n}}`,
  };
}

// 32 rows go in one statement: counts around and across that size take both statements.
for (const count of [0, 1, 31, 32, 33, 70]) {
  test(`a row statement writes ${count} rows, each column from its own row`, async () => {
    const db = openSqliteDatabase(':memory:');
    await migrateToLatest(db);
    // Columns listed in another order than the table's: placeholders follow the columns, not the list.
    const insert = rowStatement<RadioLog>(
      db,
      ['details', 'raw', 'direction', 'event', 'ran_id', 'level', 'timestamp'],
      (rows) => db.insertInto('radio_logs').values(rows),
    );
    const expected = Array.from({ length: count }, (_, n) => radioLog(n));
    await writeTransaction(db, () => insert(expected));

    const stored = await db.selectFrom('radio_logs').selectAll().orderBy('id').execute();
    assert.deepEqual(
      stored.map(({ id: _id, ...row }) => row),
      expected,
    );
    await db.destroy();
  });
}

test('a row query runs only inside a writeTransaction that lists it, on SQLite as on PostgreSQL', async () => {
  // PostgreSQL reads only the listed queries as the transaction begins; SQLite failing the same way keeps a
  // read missing from the list from passing every SQLite test.
  const db = openSqliteDatabase(':memory:');
  await migrateToLatest(db);
  const count = rowQuery(
    db,
    db.selectFrom('radio_logs').select((eb) => eb.fn.countAll<number>().as('n')),
  );
  let counted: number | undefined;
  await writeTransaction(db, () => (counted = Number(count()[0]?.n)), [count]);
  assert.equal(counted, 0);
  await assert.rejects(
    writeTransaction(db, () => void count()),
    /lists it among its reads/,
  );
  assert.throws(() => count(), /lists it among its reads/);
  await db.destroy();
});
