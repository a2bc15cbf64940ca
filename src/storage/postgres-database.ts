import { Kysely } from 'kysely';
import postgres from 'postgres';
import type { Db } from './database.ts';
import { DEFAULT_POOL_SIZE } from './database-location.ts';
import { PostgresJsDialect } from './postgres-dialect.ts';
import type { Database } from './schema.ts';

/** Seconds to wait for a connection to the server (each host of a multi-host URL in turn). */
const CONNECT_TIMEOUT_SECONDS = 10;

/** SQLSTATE classes and codes (PostgreSQL docs, Appendix A) worth naming in the one line a failed start prints. */
function describe(error: unknown): string {
  const { message, code } = error as { message?: unknown; code?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? `${text} (SQLSTATE ${code})` : text;
}

/**
 * The service's PostgreSQL database at `url`, through a pool of `poolSize` connections. Integers come
 * back as numbers, as SQLite gives them: `bigint` (timestamps, counts) and `numeric` (sums of bigints)
 * hold byte counts and milliseconds far below 2^53. Connects once before returning, so that a wrong
 * host, database or password fails here with one line naming it (`shown`: the URL without password).
 */
export async function openPostgresDatabase(
  url: string,
  shown: string,
  poolSize = DEFAULT_POOL_SIZE,
): Promise<Db> {
  const asNumber = (to: number) => ({ to, from: [to], serialize: String, parse: Number });
  const sql = postgres(url, {
    max: poolSize,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    types: { int8: asNumber(20), numeric: asNumber(1700) },
    onnotice: () => {},
    connection: { application_name: 'pmn-core' },
  });
  try {
    await sql`select 1`;
  } catch (error) {
    await sql.end({ timeout: 0 });
    throw new Error(`cannot open the PostgreSQL database ${shown}: ${describe(error)}`);
  }
  return new Kysely<Database>({ dialect: new PostgresJsDialect(sql) });
}
