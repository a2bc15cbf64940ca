import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  SqliteAdapter,
  SqliteDialect,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type KyselyConfig,
} from 'kysely';
import { migrationProvider } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { createSqliteFile, type ConnectionRole, type SqliteFile } from './sqlite-file.ts';

export type Db = Kysely<Database>;

const sqliteFiles = new WeakMap<Db, SqliteFile>();

/** SQLite runs DDL inside transactions; saying so makes Kysely's Migrator apply migrations all or nothing. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class PmnSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  /**
   * Transactions take the write lock when they begin. The records writer thread writes through a
   * connection of its own: a deferred transaction that read and then wrote after the writer committed
   * would fail (SQLITE_BUSY) instead of waiting for the lock.
   */
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

/**
 * Opens (creating when absent) the embedded SQLite database in WAL mode with foreign keys enforced. With
 * `image` (a serialized database), an in-memory copy of it opens instead. `role` says whose connection
 * it is (the service's by default; see `ConnectionRole`).
 */
export function openSqliteDatabase(
  path: string,
  options: Pick<KyselyConfig, 'log'> & { image?: Buffer; role?: ConnectionRole } = {},
): Db {
  if (path !== ':memory:' && !options.image) mkdirSync(dirname(path), { recursive: true });
  const { image, role, ...config } = options;
  const file = createSqliteFile(image ? ':memory:' : path, image, role);
  const db = new Kysely<Database>({ ...config, dialect: new PmnSqliteDialect({ database: file }) });
  sqliteFiles.set(db, file);
  return db;
}

/** The SQLite file under a database from `openSqliteDatabase` (backup, restore and the size metric use it). */
export function sqliteFileOf(db: Db): SqliteFile {
  const file = sqliteFiles.get(db);
  if (!file) throw new Error('the database was not opened by openSqliteDatabase');
  return file;
}

/** The SQLite file under `db` when `openSqliteDatabase` opened it (not a transaction, not a derived instance). */
export function maybeSqliteFileOf(db: Kysely<Database>): SqliteFile | undefined {
  return sqliteFiles.get(db);
}

export class MigrationError extends Error {}

/** Applies every pending migration in one transaction: a failure leaves the schema as it was. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`migration ${failed} failed: ${(error as Error).message}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
