import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openSqliteDatabase, sqliteFileOf, withConnection } from '../../src/storage/database.ts';

// The database's one connection, shared by Kysely and the synchronous work of `withConnection`.
const dir = mkdtempSync(join(tmpdir(), 'pmn-with-connection-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('withConnection', () => {
  it('runs at once on a free connection, before the caller awaits', async () => {
    const db = openSqliteDatabase(':memory:');
    let ran = false;
    const done = withConnection(db, () => {
      ran = true;
      return 7;
    });
    assert.equal(ran, true);
    assert.equal(await done, 7);
    await db.destroy();
  });

  it('waits for a Kysely transaction to end, then serves the waiters in order', async () => {
    const db = openSqliteDatabase(':memory:');
    await sql`create table t (n integer)`.execute(db);
    const order: string[] = [];
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await sql`insert into t values (1)`.execute(trx);
      order.push('transaction wrote');
      await committed;
    });
    while (order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const count = () => (sqliteFileOf(db).prepare('select count(*) as n from t').get() as { n: number }).n;
    const waiters = [1, 2, 3].map((n) =>
      withConnection(db, () => {
        order.push(`waiter ${n} saw ${count()}`);
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['transaction wrote'], 'nothing ran inside the open transaction');
    commit();
    await Promise.all([transaction, ...waiters]);
    assert.deepEqual(order, ['transaction wrote', 'waiter 1 saw 1', 'waiter 2 saw 1', 'waiter 3 saw 1']);
    await db.destroy();
  });

  it('passes the work’s error on and frees the connection', async () => {
    const db = openSqliteDatabase(':memory:');
    await assert.rejects(
      withConnection(db, () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(await withConnection(db, () => 'free again'), 'free again');
    await db.destroy();
  });

  it('leaves the file closed on destroy when only withConnection used it (the WAL goes)', async () => {
    const path = join(dir, 'direct.db');
    const db = openSqliteDatabase(path);
    await withConnection(db, () => sqliteFileOf(db).prepare('create table t (n integer)').run());
    assert.equal(existsSync(`${path}-wal`), true);
    await db.destroy();
    assert.equal(existsSync(`${path}-wal`), false);
  });
});
