import type { CompiledQuery, QueryResult } from 'kysely';
import type postgres from 'postgres';
import { OverloadedError } from '../errors.ts';
import { sqliteFileOf, withConnection, type Db } from './database.ts';
import { postgresClientOf } from './postgres-database.ts';
import { unavailable } from './postgres-dialect.ts';
import { tryWithoutWaiting, tryWriteTransaction } from './row-statement.ts';
import { BUSY_TIMEOUT_MS } from './sqlite-file.ts';
import type { Executor } from './transaction.ts';
import { AGAIN, createTurnQueue } from './turn-queue.ts';

type Outcome = { value: unknown } | { error: unknown };

/** How a write is kept apart from the other writes of its transaction, and what it says when it gives up. */
export interface TurnWriteOptions {
  /**
   * The write's statements:
   * - `'one'`: one statement. SQLite undoes a failed statement alone, so it needs no savepoint; alone in
   *   its turn it commits itself (no BEGIN, COMMIT: at a few writes a second a third of its cost).
   * - `'reads-then-one'`: reads, then one writing statement (a row read and its next value stored): no
   *   savepoint either, but always in a transaction, so that what it read holds until it commits (no
   *   other connection or process writes in between).
   * - `'many'` (the default): several writing statements. A savepoint of its own when it shares the
   *   transaction, so that one failing takes back its own statements and nobody else's.
   */
  statements?: 'one' | 'reads-then-one' | 'many';
  /** What was not done, in the error of a write that gave up waiting for the write lock. */
  notWritten?: string;
  /** How long it waits for the write lock before it gives up (milliseconds; SQLite's busy timeout). */
  giveUpMs?: number;
}

/** Runs `work` (synchronous prepared statements) in the database's turn transaction; resolves once committed. */
type TurnTransaction = <T>(work: () => T, options?: TurnWriteOptions) => Promise<T>;

/** Where a PostgreSQL turn write sends its statement: the database, or the group's transaction. */
export type QueryRunner = Pick<Executor, 'executeQuery'>;

/**
 * PostgreSQL: runs `work` (one statement, sent on the runner it is given) in the database's turn
 * transaction; resolves once committed.
 */
type PostgresTurnTransaction = <T>(
  work: (runner: QueryRunner) => Promise<T>,
  options?: Pick<TurnWriteOptions, 'notWritten'>,
) => Promise<T>;

interface TurnWrite<Work> {
  work: Work;
  statements: NonNullable<TurnWriteOptions['statements']>;
  notWritten: string;
  giveUpMs: number;
  since: number;
}

/**
 * Writes a group (the writes of a turn, in the order asked for): an outcome for each, or undefined when
 * it cannot begin now (SQLite's write lock taken), to be tried again. Never rejects.
 */
type GroupWriter<Work> = (group: readonly TurnWrite<Work>[]) => Promise<Outcome[] | undefined>;

/**
 * PostgreSQL groups written at once, each on a connection of its own: a commit waits for its WAL flush,
 * and the server flushes the commits waiting together in one (a group at a time made the next wait for
 * that flush: bench/sms-store.ts at 16 messages at a time, twice the wall time of single statements).
 */
const POSTGRES_GROUPS_AT_ONCE = 4;

const turnTransactions = new WeakMap<Db, TurnTransaction>();
const postgresTurnTransactions = new WeakMap<Db, PostgresTurnTransaction>();

/**
 * The turn transaction of an SQLite database, one per database: every store's writes of one turn of
 * the event loop share its commit (the SQN generations and UE contexts of a registration burst, the
 * messages of an SMS burst). PostgreSQL's is `postgresTurnTransactionOf`.
 */
export function turnTransactionOf(db: Db): TurnTransaction {
  let transaction = turnTransactions.get(db);
  if (transaction === undefined) {
    transaction = createTurnWrites(sqliteGroupWriter(db));
    turnTransactions.set(db, transaction);
  }
  return transaction;
}

/**
 * The turn transaction of a PostgreSQL database, one per database: the one-statement writes asked for
 * in one turn of the event loop (and while the previous group commits) run in one transaction, in the
 * order asked for, and commit once: under load one commit (one WAL flush) for many. A write alone commits itself (no
 * BEGIN, COMMIT). A statement that fails aborts the transaction for all: the group is rolled back and
 * its writes run again one by one, each committing itself, so only the failing one fails, as on
 * SQLite; a failure of the database (the connection lost, a standby, OverloadedError) fails every
 * write of the group. Each write resolves once committed.
 */
export function postgresTurnTransactionOf(db: Db): PostgresTurnTransaction {
  let transaction = postgresTurnTransactions.get(db);
  if (transaction === undefined) {
    transaction = createTurnWrites(postgresGroupWriter(db), POSTGRES_GROUPS_AT_ONCE);
    postgresTurnTransactions.set(db, transaction);
  }
  return transaction;
}

/**
 * The writes asked for in one turn of the event loop (and, while `groupsAtOnce` groups are written,
 * until one is done) form a group that `writeGroup` writes in one transaction, on the storage's turn
 * queue (src/storage/turn-queue.ts). With one group at a time (SQLite: one connection, one writer)
 * groups commit in the order asked for; with more, a group's writes may commit before an earlier
 * group's (each write resolves only once its own committed). A group that finds the write lock taken is
 * tried again a millisecond later, ahead of the writes asked for meanwhile, but for the writes past
 * their give-up time: those fail.
 */
function createTurnWrites<Work>(writeGroup: GroupWriter<Work>, groupsAtOnce = 1) {
  const queue = createTurnQueue<TurnWrite<Work>, unknown>(
    async (group) => {
      const done = await writeGroup(group);
      if (done !== undefined) return done;
      const now = performance.now();
      return group.map((write) =>
        now - write.since < write.giveUpMs
          ? AGAIN
          : { error: new Error(`database is locked: ${write.notWritten}`) },
      );
    },
    { groupsAtOnce, againAfterMs: 1 },
  );
  return <T>(work: Work, options: TurnWriteOptions = {}): Promise<T> =>
    queue({
      work,
      statements: options.statements ?? 'many',
      notWritten: options.notWritten ?? 'not written',
      giveUpMs: options.giveUpMs ?? BUSY_TIMEOUT_MS,
      since: performance.now(),
    }) as Promise<T>;
}

/**
 * SQLite: synchronous writes (prepared statements) asked for in one turn of the event loop run in one
 * write transaction, so a burst of them costs one commit. A statement committing on its own waited for
 * another connection's write lock (the records writer thread's) in SQLite's busy handler, asleep in the
 * service's thread; a group that finds the lock taken is tried again every millisecond without
 * blocking the event loop, in the order the writes were asked for, and each write fails after its
 * give-up time (SQLite's busy timeout). A write that fails fails alone (see `TurnWriteOptions`); a
 * transaction that fails as a whole (its COMMIT, or an error that ended it) fails every write of it. A
 * write resolves once its transaction committed (on disk in WAL mode), never before. Use the
 * database's own (`turnTransactionOf`); a second one would commit apart.
 */
function sqliteGroupWriter(db: Db): GroupWriter<() => unknown> {
  return async (group) => {
    try {
      const done = await withConnection(db, () =>
        group.length === 1 && group[0]!.statements === 'one'
          ? tryAlone(group[0]!)
          : tryWriteTransaction(db, () => group.map((write) => inGroup(write, group.length > 1))),
      );
      return done?.value;
    } catch (error) {
      // The transaction itself failed (its BEGIN or COMMIT, or a lone write): every write of it fails.
      return group.map(() => ({ error }));
    }
  };

  /** A write inside the group's transaction; `shared` when other writes are in it too. */
  function inGroup(write: TurnWrite<() => unknown>, shared: boolean): Outcome {
    const file = sqliteFileOf(db);
    // Alone in the transaction a write needs no savepoint: its error rolls the transaction back.
    if (write.statements !== 'many' || !shared) {
      try {
        return { value: write.work() };
      } catch (error) {
        // An error that ended the transaction with it (a full disk, an I/O error) fails the group, or
        // the writes after it would commit alone; a lone write's error rolls its transaction back.
        if (!shared || !file.connection().inTransaction) throw error;
        return { error };
      }
    }
    // Through prepared statements: better-sqlite3's nested `transaction()` builds a wrapper per call.
    file.prepare('savepoint turn_write').run();
    try {
      const value = write.work();
      file.prepare('release turn_write').run();
      return { value };
    } catch (error) {
      if (!file.connection().inTransaction) throw error;
      file.prepare('rollback to turn_write').run();
      file.prepare('release turn_write').run();
      return { error };
    }
  }

  /** A one-statement write alone in its turn: it commits itself. Undefined when the write lock is taken. */
  function tryAlone(write: TurnWrite<() => unknown>): { value: Outcome[] } | undefined {
    let failure: { error: unknown } | undefined;
    const done = tryWithoutWaiting(db, () => {
      try {
        return write.work();
      } catch (error) {
        // SQLITE_BUSY goes to tryWithoutWaiting (tried again); any other error is the write's own.
        if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
        failure = { error };
        return undefined;
      }
    });
    if (done === undefined) return undefined;
    return { value: [failure ?? { value: done.value }] };
  }
}

/** The outcome of a write, never a rejection (also when it throws before its statement is sent). */
async function outcomeOf(write: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { value: await write() };
  } catch (error) {
    return { error };
  }
}

/** A statement of the group failed: the transaction is rolled back (thrown out of it) and the writes run alone. */
class StatementFailed extends Error {}

/** PostgreSQL: see `postgresTurnTransactionOf`. */
function postgresGroupWriter(db: Db): GroupWriter<(runner: QueryRunner) => Promise<unknown>> {
  const client = postgresClientOf(db);
  if (client === undefined) throw new Error('the database was not opened by openPostgresDatabase');
  return async (group) => {
    if (group.length === 1) return [await outcomeOf(() => group[0]!.work(db))];
    try {
      // READ COMMITTED, as each statement ran alone before: one statement's view, no serialization
      // failures between groups. Sent at once: the driver pipelines them on the transaction's
      // connection, in this order (one round trip for the group, where Kysely's would take one each).
      return await client.begin(async (transaction) => {
        const runner = runnerOn(transaction);
        const outcomes = await Promise.all(group.map((write) => outcomeOf(() => write.work(runner))));
        // The first failure is the statement's own; those after it only found the transaction aborted.
        const failed = outcomes.find((outcome) => 'error' in outcome);
        if (failed !== undefined)
          throw 'error' in failed && failed.error instanceof OverloadedError
            ? failed.error
            : new StatementFailed();
        return outcomes;
      });
    } catch (error) {
      // The database failed (unreachable, a standby, its BEGIN or COMMIT): every write of the group.
      if (!(error instanceof StatementFailed))
        return group.map(() => ({ error: unavailable(error) ?? error }));
    }
    // Rolled back: each again alone, in order, so only the failing one fails.
    const outcomes: Outcome[] = [];
    for (const write of group) outcomes.push(await outcomeOf(() => write.work(db)));
    return outcomes;
  };
}

/** Statements on a transaction of the driver's, each sent when asked for; failures as Kysely's are. */
function runnerOn(transaction: postgres.TransactionSql): QueryRunner {
  return {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      try {
        const parameters = query.parameters as postgres.ParameterOrJSON<never>[];
        return { rows: [...(await transaction.unsafe(query.sql, parameters, { prepare: true }))] as R[] };
      } catch (error) {
        throw unavailable(error) ?? error;
      }
    },
  };
}
