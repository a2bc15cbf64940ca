import { sql } from 'kysely';
import { migrateToLatest, openSqliteDatabase, sqliteFileOf, type Db } from './database.ts';
import { parseDatabaseLocation } from './database-location.ts';
import { openPostgresDatabase } from './postgres-database.ts';
import type { SqliteFile } from './sqlite-file.ts';

export interface StorageOptions {
  /** SQLite database file, `:memory:`, or a PostgreSQL URL (`postgres://...`, see database-location.ts). */
  path: string;
  /** A serialized, migrated database to open in memory instead (SQLite test templates). */
  image?: Buffer;
  /** Connections to PostgreSQL (SQLite has one). */
  poolSize?: number;
}

/** The database, opened and migrated: the one entry to storage the core uses. */
export interface Storage {
  db: Db;
  /** The SQLite file; undefined on PostgreSQL, which has no file of the service's own. */
  file: SqliteFile | undefined;
  /** Size of the database in bytes (see the `pmn_database_size_bytes` metric). */
  sizeBytes(): Promise<number>;
  /** Migrations this open applied, in order. */
  migrationsApplied: string[];
  close(): Promise<void>;
}

export async function openStorage(options: StorageOptions): Promise<Storage> {
  const location = parseDatabaseLocation(options.path);
  const db =
    location.dialect === 'postgres'
      ? await openPostgresDatabase(location.url, location.shown, options.poolSize)
      : openSqliteDatabase(location.path, { image: options.image });
  try {
    const migrationsApplied = await migrateToLatest(db, location.dialect);
    const file = location.dialect === 'sqlite' ? sqliteFileOf(db) : undefined;
    const sizeBytes = file
      ? () => Promise.resolve(file.sizeBytes())
      : async () =>
          (await sql<{ size: number }>`select pg_database_size(current_database()) as size`.execute(db))
            .rows[0]?.size ?? 0;
    return { db, file, sizeBytes, migrationsApplied, close: () => db.destroy() };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
