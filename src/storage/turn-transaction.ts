import { sqliteFileOf, withConnection, type Db } from './database.ts';
import { tryWithoutWaiting, tryWriteTransaction } from './row-statement.ts';
import { BUSY_TIMEOUT_MS } from './sqlite-file.ts';

type Outcome = { value: unknown } | { error: unknown };

interface Waiting {
  work: () => unknown;
  since: number;
  settle: (outcome: Outcome) => void;
}

/**
 * SQLite: synchronous writes (prepared statements) asked for in one turn of the event loop run in one
 * write transaction, so a burst of them costs one commit. A statement committing on its own waited for
 * another connection's write lock (the records writer thread's) in SQLite's busy handler, asleep in the
 * service's thread; a group that finds the lock taken is tried again every millisecond without
 * blocking the event loop, in the order the writes were asked for, and fails after SQLite's busy
 * timeout. A write is one statement: one that fails is undone alone by SQLite and fails only its own
 * write; a transaction that fails as a whole (its COMMIT) fails every write of it. A write resolves
 * once its transaction committed (on disk in WAL mode), never before.
 */
export function createTurnTransaction(db: Db): <T>(statement: () => T) => Promise<T> {
  let waiting: Waiting[] = [];
  let scheduled = false;
  /** A group is being written: the next waits for it, so that groups commit in the order asked for. */
  let flushing = false;

  function schedule(delayMs: number): void {
    if (scheduled || flushing) return;
    scheduled = true;
    // flush() settles every write itself and never rejects.
    if (delayMs === 0) setImmediate(() => void flush());
    else setTimeout(() => void flush(), delayMs);
  }

  async function flush(): Promise<void> {
    scheduled = false;
    flushing = true;
    const group = waiting;
    waiting = [];
    let done: { value: Outcome[] } | undefined;
    try {
      const connection = sqliteFileOf(db).connection();
      done = await withConnection(db, () =>
        group.length === 1
          ? tryAlone(group[0]!)
          : tryWriteTransaction(db, () =>
              group.map((write): Outcome => {
                try {
                  return { value: write.work() };
                } catch (error) {
                  // SQLite undoes a failed statement alone; an error that ended the transaction with it
                  // (a full disk, an I/O error) fails the group, or the writes after it would commit alone.
                  if (!connection.inTransaction) throw error;
                  return { error };
                }
              }),
            ),
      );
    } catch (error) {
      // The transaction itself failed (its BEGIN or COMMIT): every write of the group fails with it.
      done = { value: group.map(() => ({ error })) };
    }
    flushing = false;
    if (done !== undefined) group.forEach((write, index) => write.settle(done.value[index]!));
    else {
      // The write lock was taken: the group again, ahead of the writes asked for meanwhile.
      const now = performance.now();
      const again: Waiting[] = [];
      for (const write of group)
        if (now - write.since < BUSY_TIMEOUT_MS) again.push(write);
        else write.settle({ error: new Error('database is locked: not written') });
      waiting = again.concat(waiting);
      if (again.length > 0) return schedule(1);
    }
    if (waiting.length > 0) schedule(0);
  }

  /**
   * A write alone in its turn: its statement commits itself (no BEGIN, COMMIT), which at a few writes a
   * second cost a third more than the statement alone. Undefined when the write lock is taken.
   */
  function tryAlone(write: Waiting): { value: Outcome[] } | undefined {
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

  return async <T>(work: () => T): Promise<T> => {
    const outcome = await new Promise<Outcome>((settle) => {
      waiting.push({ work, since: performance.now(), settle });
      schedule(0);
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.value as T;
  };
}
