// The writes of one turn of the event loop in one SQLite transaction (storage/turn-transaction.ts): they
// commit in the order they were asked for, also when the connection and the write lock were taken.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { sqliteFileOf } from '../../src/storage/database.ts';
import { openStorage } from '../../src/storage/storage.ts';
import { turnTransactionOf } from '../../src/storage/turn-transaction.ts';

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('turn transactions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-turn-transaction-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('commits writes in the order asked for while the connection, then the write lock, were taken', async () => {
    const path = join(dir, 'order.db');
    const storage = await openStorage({ path, poolSize: 1 });
    const other = new SQLite(path);
    try {
      const file = sqliteFileOf(storage.db);
      file.connection().exec('create table test_order (id integer primary key autoincrement, name text)');
      const write = turnTransactionOf(storage.db);
      const insert = (name: string) => () =>
        file.prepare('insert into test_order (name) values (?)').run(name);

      // A query of the service holds the connection; another connection (the records writer) the lock.
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const holding = storage.db.connection().execute(async (connection) => {
        await sql`select 1`.execute(connection);
        await gate;
      });
      await turns(2);
      other.exec('begin immediate');
      const first = write(insert('first'));
      await turns(2);
      // Asked for as the connection comes free: the first group finds the lock taken after this one came.
      release();
      const second = write(insert('second'));
      await holding;
      await turns(5);
      other.exec('commit');
      await Promise.all([first, second]);

      const names = file.prepare('select name from test_order order by id').all() as { name: string }[];
      assert.deepEqual(
        names.map((row) => row.name),
        ['first', 'second'],
      );
    } finally {
      other.close();
      await storage.close();
    }
  });

  it('gives up on each write of a group at its own time while the write lock is taken, with its error', async () => {
    const path = join(dir, 'give-up.db');
    const storage = await openStorage({ path, poolSize: 1 });
    const other = new SQLite(path);
    try {
      const file = sqliteFileOf(storage.db);
      file.connection().exec('create table test_give_up (name text)');
      const write = turnTransactionOf(storage.db);
      const insert = (name: string) => () =>
        file.prepare('insert into test_give_up (name) values (?)').run(name);
      other.exec('begin immediate');
      const impatient = write(insert('impatient'), { giveUpMs: 20, notWritten: 'the impatient write' });
      const patient = write(insert('patient'));
      await assert.rejects(impatient, /database is locked: the impatient write/);
      other.exec('commit');
      await patient;
      const names = file.prepare('select name from test_give_up').all() as { name: string }[];
      assert.deepEqual(
        names.map((row) => row.name),
        ['patient'],
      );
    } finally {
      other.close();
      await storage.close();
    }
  });

  it('is one per database: the writes of every caller in a turn share one transaction', async () => {
    const storage = await openStorage({ path: join(dir, 'one.db'), poolSize: 1 });
    try {
      assert.equal(turnTransactionOf(storage.db), turnTransactionOf(storage.db));
    } finally {
      await storage.close();
    }
  });
});
