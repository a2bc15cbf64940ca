import { migrateToLatest, openSqliteDatabase, sqliteFileOf, type Db } from './database.ts';
import type { SqliteFile } from './sqlite-file.ts';

export interface StorageOptions {
  /** SQLite database file, or `:memory:`. */
  path: string;
  /** A serialized, migrated database to open in memory instead (test templates). */
  image?: Buffer;
}

/** The embedded database, opened and migrated: the one entry to storage the core uses. */
export interface Storage {
  db: Db;
  file: SqliteFile;
  /** Migrations this open applied, in order. */
  migrationsApplied: string[];
  close(): Promise<void>;
}

export async function openStorage(options: StorageOptions): Promise<Storage> {
  const db = openSqliteDatabase(options.path, { image: options.image });
  try {
    const migrationsApplied = await migrateToLatest(db);
    return { db, file: sqliteFileOf(db), migrationsApplied, close: () => db.destroy() };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
