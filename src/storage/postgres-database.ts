import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, type KyselyConfig, type TransactionBuilder } from 'kysely';
import postgres from 'postgres';
import { OverloadedError } from '../errors.ts';
import type { Db } from './database.ts';
import { DEFAULT_POOL_SIZE } from './database-location.ts';
import { PostgresJsDialect } from './postgres-dialect.ts';
import { runInTransaction } from './postgres-transaction-context.ts';
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
 * libpq's `read-write` (the libpq docs, `target_session_attrs`) takes a server that is not in hot standby
 * and whose transactions are read-write by default. Postgres.js checks the second only, and so connects
 * to a hot standby (read-write by default, refusing writes): after a failover, to the standby that was
 * not promoted. Its `primary` checks the first, and a primary whose transactions are read-only by
 * default refuses writes with 25006, which answers 503 like a standby (postgres-dialect.ts).
 */
function sessionAttributes(url: string): { target_session_attrs?: 'primary' } {
  return /[?&]target_session_attrs=read-write(?:&|$)/.test(url) ? { target_session_attrs: 'primary' } : {};
}

/**
 * The service's PostgreSQL database at `url`, through a pool of `poolSize` connections. Integers come
 * back as numbers, as SQLite gives them: `bigint` (timestamps, counts) and `numeric` (sums of bigints)
 * hold byte counts and milliseconds far below 2^53. Connects once before returning, so that a wrong
 * host, database or password fails here with one line naming it (`shown`: the URL without password).
 * Returns the driver's client beside Kysely for LISTEN (postgres-change-notices.ts).
 */
export async function openPostgresDatabase(
  url: string,
  shown: string,
  poolSize = DEFAULT_POOL_SIZE,
  log?: KyselyConfig['log'],
): Promise<{ db: Db; client: postgres.Sql }> {
  const asNumber = (to: number) => ({ to, from: [to], serialize: String, parse: Number });
  const sql = postgres(url, {
    ...sessionAttributes(url),
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
  const db = new SerializableKysely({ dialect: new PostgresJsDialect(sql), ...(log ? { log } : {}) });
  urls.set(db, url);
  clients.set(db, sql);
  return { db, client: sql };
}

const clients = new WeakMap<Db, postgres.Sql>();

/**
 * The driver's client under a database from `openPostgresDatabase`: turn-transaction.ts sends a group's
 * statements on one of its transactions at once (Kysely's transactions send them one after another).
 */
export function postgresClientOf(db: Db): postgres.Sql | undefined {
  return clients.get(db);
}

const urls = new WeakMap<Db, string>();

/** The URL a database from `openPostgresDatabase` was opened with (a writer opens its own connection there). */
export function postgresUrlOf(db: Db): string | undefined {
  return urls.get(db);
}

/** SQLSTATEs after which a transaction may simply run again: serialization_failure, deadlock_detected. */
const RETRYABLE = new Set(['40001', '40P01']);
/** Runs of one transaction before its serialization failure is given to the caller. */
export const TRANSACTION_ATTEMPTS = 16;
/** Seconds a client is told to wait after a transaction collided on every run. */
const BUSY_RETRY_AFTER_SECONDS = 1;
/** The longest pause between two runs (milliseconds); pauses grow from 2 ms, doubling, each random below its bound. */
const MAX_PAUSE_MS = 100;

/**
 * Transactions run SERIALIZABLE and run again (bounded, with a short random pause) when PostgreSQL
 * aborts one for a conflict with another. The services check a rule and then write (the last admin,
 * duplicate names, the 12-token limit, references between configuration rows) inside one transaction,
 * which on SQLite holds the only write lock; SERIALIZABLE gives every such transaction the same outcome
 * on PostgreSQL as if they ran one after the other, whatever their number of connections or processes.
 * A callback may therefore run more than once: it must not act outside the database before it returns
 * (the services publish their changes after the commit). Row statements called inside it join it
 * (postgres-transaction-context.ts).
 */
class SerializableKysely extends Kysely<Database> {
  override transaction(): TransactionBuilder<Database> {
    const builder = super.transaction().setIsolationLevel('serializable');
    const retrying = Object.create(builder) as TransactionBuilder<Database>;
    retrying.execute = async (callback) => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await builder.execute((trx) => runInTransaction(trx, callback));
        } catch (error) {
          const code = (error as { code?: unknown } | null)?.code;
          if (typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
          // Still colliding after every run: too many writers on the same rows now, which a client may
          // try again later (503), not a fault of the request or of the service (500).
          if (attempt >= TRANSACTION_ATTEMPTS)
            throw new OverloadedError(`the database is busy (${code}); try again`, BUSY_RETRY_AFTER_SECONDS);
          // Apart, so the transactions that collided do not collide again at once.
          await sleep(Math.random() * Math.min(MAX_PAUSE_MS, 2 ** attempt));
        }
      }
    };
    return retrying;
  }
}
