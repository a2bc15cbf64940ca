import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  SqliteAdapter,
  SqliteDialect,
  sql,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type KyselyConfig,
} from 'kysely';
import { migrationProviderFor, VACUUM_AFTER, type SqlDialect } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { createSqliteFile, type ConnectionRole, type SqliteFile } from './sqlite-file.ts';

export type Db = Kysely<Database>;

const sqliteFiles = new WeakMap<Db, SqliteFile>();
const connectionLocks = new WeakMap<Db, ConnectionLock>();

/**
 * The lock on the database's one connection, first come first served. Kysely's own (its SQLite driver's
 * mutex) wakes every waiter at each release and all but one wait again: with a registration burst queued
 * on the connection, a promise per waiter per release (about 12 KB of allocation per registration). And
 * synchronous work (`withConnection`) takes a free connection without waiting for a turn of the event loop.
 */
class ConnectionLock {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  tryAcquire(): boolean {
    if (this.#held) return false;
    this.#held = true;
    return true;
  }

  acquire(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the connection to the next waiter, if any, without freeing it in between. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

/** SQLite runs DDL inside transactions; saying so makes Kysely's Migrator apply migrations all or nothing. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class PmnSqliteDialect extends SqliteDialect {
  constructor(
    config: ConstructorParameters<typeof SqliteDialect>[0],
    private readonly lock: ConnectionLock,
  ) {
    super(config);
  }

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
    // Kysely's own mutex then never has a waiter: this lock serves them in order.
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    driver.acquireConnection = async () => {
      await this.lock.acquire();
      return acquire();
    };
    driver.releaseConnection = async (connection: DatabaseConnection) => {
      await release(connection);
      this.lock.release();
    };
    return driver;
  }
}

/**
 * Kysely over the SQLite file. Kysely closes the file only if it opened a connection: work that runs on
 * the file directly (`withConnection`, e.g. the records writer thread's) never makes it do so.
 */
class FileKysely extends Kysely<Database> {
  constructor(
    config: KyselyConfig,
    private readonly file: SqliteFile,
  ) {
    super(config);
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    this.file.close();
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
  const lock = new ConnectionLock();
  const db = new FileKysely({ ...config, dialect: new PmnSqliteDialect({ database: file }, lock) }, file);
  sqliteFiles.set(db, file);
  connectionLocks.set(db, lock);
  return db;
}

/**
 * Runs synchronous `work` (prepared statements on the SQLite file) while holding the database's one
 * connection, so that no Kysely query or transaction interleaves: at once when the connection is free,
 * else when its turn comes.
 */
export function withConnection<T>(db: Db, work: () => T): Promise<T> {
  const lock = connectionLocks.get(db);
  if (!lock) throw new Error('the database was not opened by openSqliteDatabase');
  const run = (): T => {
    try {
      return work();
    } finally {
      lock.release();
    }
  };
  if (!lock.tryAcquire()) return lock.acquire().then(run);
  // The executor runs at once: a free connection is used without waiting for a turn of the event loop.
  return new Promise((resolve) => resolve(run()));
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

class MigrationError extends Error {}

/** Applies every pending migration in one transaction: a failure leaves the schema as it was. */
export async function migrateToLatest(db: Db, dialect: SqlDialect = 'sqlite'): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProviderFor(dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`migration ${failed} failed: ${(error as Error).message}`);
  }
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  // After the migrations' transaction: VACUUM cannot run inside one. (SQLite only: see migration 0011.)
  if (dialect === 'sqlite' && applied.some((name) => VACUUM_AFTER.has(name))) await sql`VACUUM`.execute(db);
  return applied;
}
