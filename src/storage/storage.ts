import { sql, type KyselyConfig } from 'kysely';
import type { Logger } from 'pino';
import type postgres from 'postgres';
import { localChangeNotices, type ChangeNotices } from './change-notices.ts';
import { migrateToLatest, openSqliteDatabase, sqliteFileOf, type Db } from './database.ts';
import { parseDatabaseLocation } from './database-location.ts';
import { openPostgresChangeNotices } from './postgres-change-notices.ts';
import { openPostgresDatabase } from './postgres-database.ts';
import type { SqliteFile } from './sqlite-file.ts';

export interface StorageOptions {
  /** SQLite database file, `:memory:`, or a PostgreSQL URL (`postgres://...`, see database-location.ts). */
  path: string;
  /** A serialized, migrated database to open in memory instead (SQLite test templates). */
  image?: Buffer;
  /** Connections to PostgreSQL (SQLite has one). */
  poolSize?: number;
  /** Kysely's log of every query (tests read the statements the API runs: postgres-plans.test.ts). */
  log?: KyselyConfig['log'];
  /** Hears what goes wrong with change notices (PostgreSQL); silent when absent. */
  logger?: Logger;
}

/** The database, opened and migrated: the one entry to storage the core uses. */
export interface Storage {
  db: Db;
  /** The SQLite file; undefined on PostgreSQL, which has no file of the service's own. */
  file: SqliteFile | undefined;
  /** Size of the database in bytes (see the `pmn_database_size_bytes` metric). */
  sizeBytes(): Promise<number>;
  /** Changes told to and heard from the other processes on the database (change-notices.ts). */
  notices: ChangeNotices;
  /**
   * Whether other processes may serve from this database at once (PostgreSQL: an AMF set, docs/decisions.md
   * 15); an SQLite file has one process.
   */
  sharedByProcesses: boolean;
  /** Migrations this open applied, in order. */
  migrationsApplied: string[];
  close(): Promise<void>;
}

export async function openStorage(options: StorageOptions): Promise<Storage> {
  const location = parseDatabaseLocation(options.path);
  let db: Db;
  let client: postgres.Sql | undefined;
  if (location.dialect === 'postgres')
    ({ db, client } = await openPostgresDatabase(
      location.url,
      location.shown,
      options.poolSize,
      options.log,
    ));
  else db = openSqliteDatabase(location.path, { image: options.image, log: options.log });
  let notices = localChangeNotices;
  try {
    if (client) {
      const { logger } = options;
      notices = await openPostgresChangeNotices(client, (message, error) =>
        logger?.warn(error === undefined ? {} : { err: error }, message),
      );
    }
    const migrationsApplied = await migrateToLatest(db, location.dialect);
    const file = location.dialect === 'sqlite' ? sqliteFileOf(db) : undefined;
    const sizeBytes = file
      ? () => Promise.resolve(file.sizeBytes())
      : async () =>
          (await sql<{ size: number }>`select pg_database_size(current_database()) as size`.execute(db))
            .rows[0]?.size ?? 0;
    const close = async () => {
      await notices.close();
      await db.destroy();
    };
    return {
      db,
      file,
      sizeBytes,
      notices,
      sharedByProcesses: location.dialect === 'postgres',
      migrationsApplied,
      close,
    };
  } catch (error) {
    await notices.close();
    await db.destroy();
    throw error;
  }
}
