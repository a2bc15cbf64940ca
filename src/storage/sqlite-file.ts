import SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Opens one connection with the settings the service relies on: WAL, foreign keys, a busy timeout. */
export function openSqliteConnection(path: string): SQLite.Database {
  const sqlite = new SQLite(path);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
  } catch (error) {
    // Not a database after all (the first statement reads the file): do not leak the connection.
    sqlite.close();
    throw error;
  }
  return sqlite;
}

/**
 * The SQLite file under the service's Kysely instance. Kysely (and so every repository) talks to this
 * object, never to the better-sqlite3 connection directly, so that a restore can close the connection,
 * swap the file and open the new one while every service keeps the Kysely instance it was built with.
 * `reopen` must only be called while the caller holds Kysely's single connection (no query or
 * transaction can be running) and synchronously, so nothing sees the file half-swapped.
 */
export interface SqliteFile extends SqliteDatabase {
  /** The path the connection was opened on (`:memory:` for an in-memory database). */
  readonly path: string;
  /** The live better-sqlite3 connection, for the operations Kysely does not offer (online backup). */
  connection(): SQLite.Database;
  /** Size of the database in bytes (pages in use and free pages; the WAL is not counted). */
  sizeBytes(): number;
  /** Closes the connection, runs `swap` (which replaces the file at `path`) and opens `path` again. */
  reopen(swap: () => void): void;
}

export function createSqliteFile(path: string): SqliteFile {
  let sqlite = openSqliteConnection(path);

  return {
    path,
    connection: () => sqlite,
    prepare: (query: string): SqliteStatement => sqlite.prepare(query),
    close: () => sqlite.close(),
    sizeBytes: () =>
      Number(sqlite.pragma('page_count', { simple: true })) *
      Number(sqlite.pragma('page_size', { simple: true })),
    reopen(swap: () => void): void {
      sqlite.close();
      try {
        swap();
      } finally {
        // Whether or not the swap happened, the service needs a connection on whatever file is there now.
        sqlite = openSqliteConnection(path);
      }
    },
  };
}
