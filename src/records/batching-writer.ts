import type { Logger } from 'pino';
import { systemClock, type Clock, type Timers } from '../clock.ts';
import { createRetry, RETRY_POLICY } from '../retry.ts';

export interface BatchingWriterOptions {
  /** Records that may wait in the queue; beyond it `offer` refuses (back-pressure). */
  capacity: number;
  /** Records written in one transaction at most. */
  batchSize: number;
  /** How long a record that finds the writer idle may wait for others before its batch is written anyway. */
  maxDelayMs: number;
  /**
   * How long the records that arrived while a batch was written wait for others before the next batch
   * (unless a full batch waits). Under a steady flow this sets the rate of transactions: each one rewrites
   * in the WAL every page it touches (each table's and index's last pages, at least), so a transaction
   * every few milliseconds cost the writer several page writes per record (docs/records.md).
   */
  busyDelayMs: number;
  /**
   * How long a batch whose transaction fails is tried again before its records are given up: long
   * enough for a database failover (a standby promoted) or a restarted server, bounded so that a
   * database gone for good does not hold the queue (which then refuses new records) forever. The
   * pauses between the attempts are the service's retry policy's (src/retry.ts).
   */
  retryForMs: number;
}

const DEFAULT_WRITER_OPTIONS: BatchingWriterOptions = {
  capacity: 50_000,
  batchSize: 2_000,
  maxDelayMs: 5,
  busyDelayMs: 50,
  retryForMs: RETRY_POLICY.retryForMs,
};

/** A batch: the records of each kind, in the order they were offered. */
export type Batch<Rows extends object> = Map<keyof Rows, Rows[keyof Rows][]>;

/** Stores one batch as one transaction, all or nothing. */
export type BatchStore<Rows extends object> = (batch: Batch<Rows>) => Promise<void>;

/** Batches handed to the store at once: one being written, the next one waiting beside it. */
const MAX_WRITES_IN_FLIGHT = 2;

/** Unlike the service's timers these keep the process alive: a tool's records wait for their retry. */
const retryTimers: Timers = {
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

interface Entry<Rows extends object> {
  kind: keyof Rows;
  rows: Rows[keyof Rows][];
}

/**
 * The one writer of the records pipeline. Records of every kind wait in one bounded FIFO queue and are
 * written in group commits: a transaction holds up to `batchSize` records and starts when that many are
 * waiting, or `maxDelayMs` after the first one arrived at an idle writer, or `busyDelayMs` after the last
 * transaction when records came while it was written; while one is written, the next full batch is
 * handed to the store too (see `pump`). When the queue is full, `offer` refuses the records and says so;
 * `whenWritable` resolves once the writer has taken enough records off the queue.
 * `close` refuses new records and returns when everything accepted before it is written.
 */
export function createBatchingWriter<Rows extends object>(deps: {
  store: BatchStore<Rows>;
  logger: Logger;
  options?: Partial<BatchingWriterOptions>;
  /** Told of every accepted offer (the records metrics count them). */
  onAccepted?: (kind: keyof Rows, records: number) => void;
  /** Told after each batch is stored, with the kinds it held (the live event stream reads those). */
  onWritten?: (kinds: readonly (keyof Rows)[]) => void;
  /** Told of each failed transaction that will be tried again, with its records (the metrics count them). */
  onRetry?: (records: number) => void;
  /** Told of the records of each kind given up after `retryForMs` of failures. */
  onLost?: (kind: keyof Rows, records: number) => void;
  /** The retries' pauses and their bound; the batching delays stay on the event loop's timers. */
  clock?: Clock;
  timers?: Timers;
}) {
  const { store, logger, onAccepted, onWritten, onRetry, onLost } = deps;
  const { clock = systemClock, timers = retryTimers } = deps;
  const { capacity, batchSize, maxDelayMs, busyDelayMs, retryForMs } = {
    ...DEFAULT_WRITER_OPTIONS,
    ...deps.options,
  };
  /** The queue; slots before `head` are taken and emptied, and dropped from time to time. */
  const entries: (Entry<Rows> | undefined)[] = [];
  let head = 0;
  let queued = 0;
  const queuedByKind = new Map<keyof Rows, number>();
  let timer: NodeJS.Timeout | undefined;
  let writing = 0;
  let closed = false;
  let roomWaiters: { records: number; wake: () => void }[] = [];
  const idleWaiters: (() => void)[] = [];
  if (batchSize > capacity) throw new RangeError('batchSize must not exceed capacity');

  /** Takes up to `batchSize` records off the front of the queue, splitting an entry when needed. */
  function take(): Batch<Rows> {
    const batch: Batch<Rows> = new Map();
    let budget = batchSize;
    while (budget > 0 && head < entries.length) {
      const entry = entries[head] as Entry<Rows>;
      const rows = entry.rows.length <= budget ? entry.rows : entry.rows.slice(0, budget);
      if (rows === entry.rows) {
        // Emptied at once: a taken entry kept its records alive until the slots were dropped.
        entries[head] = undefined;
        head += 1;
      } else entry.rows = entry.rows.slice(budget);
      const list = batch.get(entry.kind);
      if (list) for (const row of rows) list.push(row);
      // The offered array is copied before later entries are appended to it; a split part is new already.
      else batch.set(entry.kind, rows === entry.rows ? rows.slice() : rows);
      budget -= rows.length;
      queued -= rows.length;
      queuedByKind.set(entry.kind, (queuedByKind.get(entry.kind) ?? 0) - rows.length);
    }
    if (head > 1024 && head * 2 > entries.length) {
      entries.splice(0, head);
      head = 0;
    }
    return batch;
  }

  const retry = createRetry({ clock, timers, policy: { retryForMs } });

  /** Stores a batch (all or nothing), tried again on any failure until `retryForMs`; never rejects. */
  async function write(batch: Batch<Rows>): Promise<void> {
    const count = [...batch.values()].reduce((sum, rows) => sum + rows.length, 0);
    const attempt = async () => {
      await store(batch);
      onWritten?.([...batch.keys()]);
    };
    await retry
      .run(attempt, {
        retrying(error, attempts) {
          // One line per batch: a database down for a minute must not log every attempt.
          if (attempts === 1) logger.warn({ err: error, records: count }, 'records writer failed; retrying');
          onRetry?.(count);
        },
        gaveUp(error, attempts) {
          logger.error(
            { err: error, records: count, attempts },
            `records writer gave up: ${count} records lost`,
          );
          for (const [kind, rows] of batch) onLost?.(kind, rows.length);
        },
      })
      // Given up: told to the hooks above, and the writer goes on.
      .catch(() => {});
  }

  /**
   * Starts writes: one whenever records wait and none is being written, and a second beside it when a
   * full batch waits. A store that runs elsewhere (the writer thread) then always has the next batch at
   * hand and never waits for this thread to notice that the last one is done.
   */
  function pump(): void {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    while (queued > 0 && writing < MAX_WRITES_IN_FLIGHT && (writing === 0 || queued >= batchSize)) {
      writing += 1;
      void write(take()).then(written);
    }
    // Taking a batch made room in the queue.
    if (roomWaiters.length === 0) return;
    const ready = roomWaiters.filter((waiter) => queued + waiter.records <= capacity);
    roomWaiters = roomWaiters.filter((waiter) => !ready.includes(waiter));
    for (const { wake } of ready) wake();
  }

  function written(): void {
    writing -= 1;
    if (queued === 0 && writing === 0) {
      for (const wake of idleWaiters.splice(0)) wake();
    }
    if (queued >= batchSize || idleWaiters.length > 0) {
      // Lets requests and new records in between batches.
      setImmediate(pump);
    } else if (queued > 0 && writing === 0 && !timer) {
      // Records keep coming: they wait for others (`busyDelayMs`) rather than make one small transaction
      // per write.
      timer = setTimeout(pump, busyDelayMs);
    }
  }

  async function flush(): Promise<void> {
    if (queued === 0 && writing === 0) return;
    const idle = new Promise<void>((wake) => idleWaiters.push(wake));
    pump();
    await idle;
  }

  return {
    /**
     * Queues rows of one kind, all or none. Returns false, queueing nothing, when they do not fit in the
     * queue: the caller decides to wait (`whenWritable`) or drop them.
     */
    offer<K extends keyof Rows>(kind: K, rows: Rows[K][]): boolean {
      if (closed) throw new Error('records pipeline is closed');
      if (rows.length > capacity) {
        throw new RangeError(`a batch of ${rows.length} records exceeds the queue capacity of ${capacity}`);
      }
      if (rows.length === 0) return true;
      if (queued + rows.length > capacity) return false;
      entries.push({ kind, rows });
      queued += rows.length;
      queuedByKind.set(kind, (queuedByKind.get(kind) ?? 0) + rows.length);
      onAccepted?.(kind, rows.length);
      if (queued >= batchSize) pump();
      else if (!timer && writing === 0) timer = setTimeout(pump, maxDelayMs);
      return true;
    },

    /** Records accepted and waiting in the queue (not yet handed to the store). */
    get depth(): number {
      return queued;
    },

    /** `depth` by kind, for every kind offered so far. */
    depthByKind(): ReadonlyMap<keyof Rows, number> {
      return queuedByKind;
    },

    /** Resolves once `records` more records fit in the queue. */
    whenWritable(records = 1): Promise<void> {
      if (records > capacity) throw new RangeError(`${records} records never fit in the queue`);
      if (queued + records <= capacity) return Promise.resolve();
      return new Promise((wake) => roomWaiters.push({ records, wake }));
    },

    /** Resolves when every record accepted before the call is written. */
    flush,

    /** Refuses new records from now on and writes everything already accepted. */
    async close(): Promise<void> {
      closed = true;
      await flush();
    },
  };
}

export type BatchingWriter<Rows extends object> = ReturnType<typeof createBatchingWriter<Rows>>;
