import { maybeSqliteFileOf, openSqliteDatabase, type Db } from './database.ts';
import { parseDatabaseLocation } from './database-location.ts';
import { openPostgresDatabase, postgresUrlOf } from './postgres-database.ts';

/**
 * Where a writer running beside the service (the records writer thread, docs/records.md) opens a
 * connection of its own to the service's database: the SQLite file's path or the PostgreSQL URL.
 * Undefined for an in-memory database, whose one connection is the service's.
 */
export function writerLocationOf(db: Db): string | undefined {
  const file = maybeSqliteFileOf(db);
  if (file) return file.path === ':memory:' ? undefined : file.path;
  return postgresUrlOf(db);
}

/**
 * A connection of the writer's own at `location` (from `writerLocationOf`), on a database the service
 * has migrated: SQLite's writer role (sqlite-file.ts), or a pool of one PostgreSQL connection, so its
 * transactions commit one after another in the order they were asked.
 */
export async function openWriterConnection(location: string): Promise<Db> {
  const parsed = parseDatabaseLocation(location);
  if (parsed.dialect === 'sqlite') return openSqliteDatabase(parsed.path, { role: 'records-writer' });
  return (await openPostgresDatabase(parsed.url, parsed.shown, 1)).db;
}
