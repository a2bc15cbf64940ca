import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** How long a statement waits for another connection's write lock before SQLITE_BUSY (milliseconds). */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * What a connection is for: the service's own (every query and transaction of the service), or the records
 * writer thread's (docs/records.md), which only inserts records.
 */
export type ConnectionRole = 'service' | 'records-writer';

/**
 * WAL pages after which a commit checkpoints (SQLite's `wal_autocheckpoint`), by role. A checkpoint copies
 * the WAL's pages into the database file and syncs both: on the service's thread it blocked the event
 * loop for those writes and two fsyncs. The records writer commits most of the pages and checkpoints at
 * SQLite's default; the service's connection, which commits far more often (one small SQN transaction
 * per event-loop turn), was the one whose commit crossed the mark most of the time. It now checkpoints
 * only as a backstop, when the WAL has grown well past the writer's mark (no writer thread: a backup
 * holding the file, or no records yet).
 */
export const CHECKPOINT_PAGES: Readonly<Record<ConnectionRole, number>> = {
  service: 4000,
  'records-writer': 1000,
};

/**
 * Opens one connection with the settings the service relies on: WAL, foreign keys, a busy timeout. An
 * `image` (a serialized database) opens as an in-memory copy of it.
 */
export function openSqliteConnection(
  path: string,
  image?: Buffer,
  role: ConnectionRole = 'service',
): SQLite.Database {
  if (!image && path !== ':memory:') keepPrivate(path);
  const sqlite = image ? new SQLite(image) : new SQLite(path);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES[role]}`);
    // A statement that may write several rows keeps a journal of its own (to undo just itself on a
    // constraint failure): every page it touches is copied there, and past 64 KiB that journal spills
    // into a temporary file. Each 32-row insert of the records writer wrote that file, 4 KiB a page:
    // three write calls in four. In memory it costs a copy. (Only there: the service's connection keeps
    // its large sorts and groupings in temporary files rather than in its heap.)
    if (role === 'records-writer') sqlite.pragma('temp_store = MEMORY');
  } catch (error) {
    // Not a database after all (the first statement reads the file): do not leak the connection.
    sqlite.close();
    throw error;
  }
  return sqlite;
}

/**
 * Makes the database file readable and writable by its owner only (0600), creating it so when absent:
 * it holds sealed secrets and every record. SQLite gives the `-wal` and `-shm` files the mode of the
 * database file; ones left from before are narrowed too.
 */
function keepPrivate(path: string): void {
  if (process.platform === 'win32') return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/**
 * The SQLite file under the service's Kysely instance. Kysely (and so every repository) talks to this
 * object, and whatever needs the better-sqlite3 connection itself (backup, the records writer's
 * transactions) asks it for the live one at each use, never keeping it, so that a restore can close the
 * connection, swap the file and open the new one while every service keeps the Kysely instance it was
 * built with.
 * `reopen` must only be called while the caller holds Kysely's single connection (no query or
 * transaction can be running) and synchronously, so nothing sees the file half-swapped.
 */
export interface SqliteFile extends SqliteDatabase {
  /** A prepared statement, kept by SQL text (better-sqlite3's, so `raw` mode is at hand). */
  prepare(sql: string): SQLite.Statement;
  /** The path the connection was opened on (`:memory:` for an in-memory database). */
  readonly path: string;
  /** The live better-sqlite3 connection, for the operations Kysely does not offer (online backup). */
  connection(): SQLite.Database;
  /** A consistent copy of the database into `path`, through SQLite's online backup, while it serves. */
  backupTo(path: string): Promise<void>;
  /** The whole database as one buffer (a template for fast test databases). */
  serialize(): Buffer;
  /** Size of the database in bytes (pages in use and free pages; the WAL is not counted). */
  sizeBytes(): number;
  /** Closes the connection, runs `swap` (which replaces the file at `path`) and opens `path` again. */
  reopen(swap: () => void): void;
}

/**
 * The SQL as SQLite is given it: each bare `LIMIT ?` (Kysely writes one for every `.limit(value)`) becomes
 * `LIMIT ? + 0`. SQLite (3.53 here) reads the value bound to a bare `LIMIT ?` while it plans, and so marks
 * the statement to be prepared again whenever that parameter is bound: at every run, since every run
 * binds its values. For a page of 100 subscribers that was a second compilation each time, about 20 µs of
 * its 80 (a probe on `sqlite3Reprepare` counted one a page). `? + 0` is the same number to the query and an
 * expression to the planner, so the statement stays prepared; the parameters keep their order.
 */
export const withBoundLimits = (sql: string): string => sql.replace(/\b(limit) \?/gi, '$1 ? + 0');

/** Distinct SQL texts kept prepared; the API's queries are a few hundred at most. */
const STATEMENT_CACHE_SIZE = 500;

export function createSqliteFile(path: string, image?: Buffer, role: ConnectionRole = 'service'): SqliteFile {
  let sqlite = openSqliteConnection(path, image, role);
  // Kysely prepares every query it runs, and for the short queries the API makes, preparing costs more
  // than running (11 µs of a 4 µs lookup). Statements are kept by SQL text, least recently used dropped
  // first. Reuse is safe because the driver runs each to completion (`all` or `run`) before the next
  // query; only Kysely's `stream()`, which nothing here uses, holds a statement open across queries.
  const statements = new Map<string, SQLite.Statement>();

  return {
    path,
    connection: () => sqlite,
    prepare(query: string): SQLite.Statement {
      let statement = statements.get(query);
      if (statement) {
        statements.delete(query);
      } else {
        statement = sqlite.prepare(withBoundLimits(query));
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value ?? '');
      }
      statements.set(query, statement);
      return statement;
    },
    close: () => sqlite.close(),
    serialize: () => sqlite.serialize(),
    backupTo: async (target) => {
      // The copy holds what the database holds: private from its first byte.
      closeSync(openSync(target, 'wx', 0o600));
      await sqlite.backup(target);
    },
    sizeBytes: () =>
      Number(sqlite.pragma('page_count', { simple: true })) *
      Number(sqlite.pragma('page_size', { simple: true })),
    reopen(swap: () => void): void {
      statements.clear();
      sqlite.close();
      try {
        swap();
      } finally {
        // Whether or not the swap happened, the service needs a connection on whatever file is there now.
        sqlite = openSqliteConnection(path, undefined, role);
      }
    },
  };
}
