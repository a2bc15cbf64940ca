import { open } from 'node:fs/promises';
import { InvalidError } from '../errors.ts';
import { migrateToLatest, openSqliteDatabase, sqliteFileOf, type Db } from './database.ts';
import { recountDerived } from './derived-counts.ts';
import { migrationProvider } from './migrations/index.ts';

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

interface SchemaObject {
  type: string;
  name: string;
  sql: string | null;
}

/** Tables, indexes, triggers and views, without SQLite's own (sqlite_sequence, sqlite_stat1, ...). */
function schemaOf(db: Db): SchemaObject[] {
  return sqliteFileOf(db)
    .connection()
    .prepare(
      "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name",
    )
    .all() as SchemaObject[];
}

let expectedSchema: Promise<SchemaObject[]> | undefined;

/** The schema this version's migrations build, from an empty database (computed once). */
function schemaOfThisVersion(): Promise<SchemaObject[]> {
  expectedSchema ??= (async () => {
    const empty = openSqliteDatabase(':memory:');
    try {
      await migrateToLatest(empty);
      return schemaOf(empty);
    } finally {
      sqliteFileOf(empty).close();
    }
  })();
  return expectedSchema;
}

function describeDifference(found: SchemaObject[], expected: SchemaObject[]): string | undefined {
  const key = (o: SchemaObject) => `${o.type} ${o.name}`;
  const expectedByKey = new Map(expected.map((o) => [key(o), o]));
  const foundByKey = new Map(found.map((o) => [key(o), o]));
  for (const object of found) {
    const twin = expectedByKey.get(key(object));
    if (!twin) return `it has a ${key(object)} this version does not define`;
    if (twin.sql !== object.sql) return `its ${key(object)} is defined differently`;
  }
  const missing = expected.find((o) => !foundByKey.has(key(o)));
  return missing && `it lacks the ${key(missing)}`;
}

async function hasSqliteHeader(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    const { bytesRead } = await file.read(header, 0, header.length, 0);
    return bytesRead === header.length && header.equals(SQLITE_HEADER);
  } finally {
    await file.close();
  }
}

/**
 * Checks that the SQLite file at `path` is a PMN Core database this version can run on, and migrates it
 * to this version's schema: an intact SQLite file, whose migration history holds only migrations this
 * version knows, whose schema after migrating is exactly the one this version builds, and whose rows keep
 * their foreign keys. Throws InvalidError saying what is wrong otherwise. The file is changed (migrated,
 * its kept counts recomputed) only once every check before migrating has passed; callers work on a copy.
 */
export async function prepareRestorableDatabase(path: string): Promise<void> {
  if (!(await hasSqliteHeader(path))) throw new InvalidError('file is not an SQLite database');
  let candidate: Db;
  try {
    candidate = openSqliteDatabase(path);
  } catch (error) {
    throw new InvalidError(`file is not a usable SQLite database: ${(error as Error).message}`);
  }
  try {
    const sqlite = sqliteFileOf(candidate).connection();
    let integrity: unknown;
    try {
      integrity = sqlite.pragma('quick_check', { simple: true });
    } catch (error) {
      throw new InvalidError(`file is a damaged SQLite database: ${(error as Error).message}`);
    }
    if (integrity !== 'ok') throw new InvalidError(`file is a damaged SQLite database: ${String(integrity)}`);

    const hasHistory = sqlite
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'kysely_migration'")
      .get();
    if (!hasHistory) throw new InvalidError('file is not a PMN Core database: it has no migration history');
    const applied = sqlite
      .prepare('SELECT name FROM kysely_migration ORDER BY name')
      .pluck()
      .all() as string[];
    const known = await migrationProvider.getMigrations();
    const unknown = applied.find((name) => !(name in known));
    if (unknown !== undefined) {
      throw new InvalidError(
        `database comes from a newer PMN Core: this version does not know its migration "${unknown}"`,
      );
    }

    try {
      await migrateToLatest(candidate);
    } catch (error) {
      throw new InvalidError(`database cannot be migrated to this version: ${(error as Error).message}`);
    }
    const difference = describeDifference(schemaOf(candidate), await schemaOfThisVersion());
    if (difference) throw new InvalidError(`database schema is not this version's: ${difference}`);
    const broken = sqlite.prepare('PRAGMA foreign_key_check').get() as { table: string } | undefined;
    if (broken) throw new InvalidError(`database has rows in ${broken.table} whose references are missing`);
    recountDerived(sqlite);
  } finally {
    // Closed directly: Kysely's destroy skips a driver no query has started, and some checks run raw.
    sqliteFileOf(candidate).close();
  }
}
