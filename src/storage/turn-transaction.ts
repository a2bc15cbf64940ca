import { sqliteFileOf, withConnection, type Db } from './database.ts';
import { tryWriteTransaction } from './row-statement.ts';
import { BUSY_TIMEOUT_MS } from './sqlite-file.ts';

type Outcome = { value: unknown } | { error: unknown };

interface Waiting {
  work: () => unknown;
  since: number;
  settle: (outcome: Outcome) => void;
}

/**
 * SQLite: synchronous writes (prepared statements) asked for in one turn of the event loop run in one
 * write transaction, so a burst of them costs one commit: each commit appends the pages it touched to
 * the WAL, which was most of a short message's store CPU when each statement committed alone. Each
 * write runs in a savepoint of its own, so one that throws takes back only its own statements; a
 * transaction that fails as a whole (its COMMIT) fails every write of it. A write resolves once its
 * transaction committed (on disk in WAL mode), never before. While another connection (the records
 * writer thread) holds the write lock, the group is tried again every millisecond without blocking
 * the event loop, and fails after SQLite's busy timeout.
 */
export function createTurnTransaction(db: Db): <T>(work: () => T) => Promise<T> {
  let waiting: Waiting[] = [];
  let scheduled = false;

  function schedule(delayMs: number): void {
    if (scheduled) return;
    scheduled = true;
    // flush() settles every write itself and never rejects.
    if (delayMs === 0) setImmediate(() => void flush());
    else setTimeout(() => void flush(), delayMs);
  }

  async function flush(): Promise<void> {
    scheduled = false;
    const group = waiting;
    waiting = [];
    let done: { value: Outcome[] } | undefined;
    try {
      const file = sqliteFileOf(db);
      done = await withConnection(db, () =>
        tryWriteTransaction(db, () =>
          group.map((write): Outcome => {
            // A savepoint of its own through prepared statements: better-sqlite3's nested
            // `transaction()` builds a wrapper per call, which cost more than the write.
            file.prepare('savepoint turn_write').run();
            try {
              const value = write.work();
              file.prepare('release turn_write').run();
              return { value };
            } catch (error) {
              file.prepare('rollback to turn_write').run();
              file.prepare('release turn_write').run();
              return { error };
            }
          }),
        ),
      );
    } catch (error) {
      return group.forEach((write) => write.settle({ error }));
    }
    if (done !== undefined) return group.forEach((write, index) => write.settle(done.value[index]!));
    const now = performance.now();
    for (const write of group) {
      if (now - write.since < BUSY_TIMEOUT_MS) waiting.push(write);
      else write.settle({ error: new Error('database is locked: not written') });
    }
    if (waiting.length > 0) schedule(1);
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
