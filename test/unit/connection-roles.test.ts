import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type SQLite from 'better-sqlite3';
import {
  CHECKPOINT_PAGES,
  openSqliteConnection,
  type ConnectionRole,
} from '../../src/storage/sqlite-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'pmn-roles-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** WAL pages the file holds room for (frames of a 4 KiB page and its 24-byte header). */
function walPages(path: string): number {
  return Math.floor(statSync(`${path}-wal`).size / (4096 + 24));
}

/** Commits `pages` pages of new rows, 50 a transaction, through `connection`. */
function commitPages(connection: SQLite.Database, pages: number): void {
  const insert = connection.prepare('insert into filler (bytes) values (randomblob(4000))');
  for (let done = 0; done < pages; done += 50) {
    connection.transaction(() => {
      for (let row = 0; row < 50; row += 1) insert.run();
    })();
  }
}

function opened(name: string, role: ConnectionRole): { path: string; connection: SQLite.Database } {
  const path = join(dir, `${name}.db`);
  const connection = openSqliteConnection(path, undefined, role);
  connection.exec('create table filler (id integer primary key, bytes blob not null)');
  return { path, connection };
}

// src/storage/sqlite-file.ts, ConnectionRole: the records writer thread's connection checkpoints, the
// service's only as a backstop, so a checkpoint's copies and fsyncs do not run on the event loop.
describe('connection roles', () => {
  it("the service's connection lets the WAL grow past the writer's mark without checkpointing", () => {
    const { path, connection } = opened('service', 'service');
    commitPages(connection, 2000);
    // No checkpoint: the WAL holds every page committed (2,000 rows of a page each, and the B-tree's).
    assert.ok(walPages(path) >= 2000, `WAL of ${walPages(path)} pages`);
    assert.ok(walPages(path) < CHECKPOINT_PAGES.service + 100);
    connection.close();
  });

  it("the records writer's connection checkpoints at its mark, and the WAL starts over", () => {
    const { path, connection } = opened('writer', 'records-writer');
    commitPages(connection, 2000);
    // Checkpointed near 1,000 pages, after which the next transaction wrote from the WAL's start again.
    assert.ok(walPages(path) < CHECKPOINT_PAGES['records-writer'] + 100, `WAL of ${walPages(path)} pages`);
    connection.close();
  });

  it("only the records writer's connection keeps temporary files (statement journals) in memory", () => {
    const service = opened('temp-service', 'service').connection;
    const writer = opened('temp-writer', 'records-writer').connection;
    // 0: the build's default (files); 2: memory.
    assert.equal(service.pragma('temp_store', { simple: true }), 0);
    assert.equal(writer.pragma('temp_store', { simple: true }), 2);
    service.close();
    writer.close();
  });
});
