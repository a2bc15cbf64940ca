import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../storage/database.ts';
import { writerLocationOf } from '../storage/writer-connection.ts';
import { createBatchingWriter, type BatchingWriterOptions, type BatchStore } from './batching-writer.ts';
import { createRecordsIngestion, type RecordRows } from './ingestion.ts';
import type { KeyMaterialRedactions } from './key-material.ts';
import { createRecordRepositories, createRecordStore } from './record-store.ts';
import { createRecordWriterThread } from './record-writer-thread.ts';
import { createRecordsMetrics } from './records-metrics.ts';

/**
 * Assembles the records pipeline: one repository per record type, the batching writer over them and
 * the ingestion interface in front. The app and the development seed tool build it the same way.
 *
 * On a database file or PostgreSQL the batches are written by the records writer thread, on a connection
 * of its own, so the database work runs beside the service's thread rather than on it (one batch at a
 * time there, so ids commit in order). While a backup or a restore holds
 * the file (`holdFile`), the thread closes its connection and batches are written on the service's
 * connection instead: a backup then sees the writes as its own, and a restore writes them to the restored
 * database. An in-memory database has one connection only, so its batches are always written there.
 */
export function createRecordsPipeline(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The service's metrics; the seed tool and benchmarks run without. */
  metrics?: Metrics;
  writerOptions?: Partial<BatchingWriterOptions>;
  /** What zeroes key material in recorded messages; the service's network side registers into it. */
  redactions?: Pick<KeyMaterialRedactions, 'apply'>;
}) {
  const { db, logger } = deps;
  const repositories = createRecordRepositories(db);
  const inServiceThread = createRecordStore(db, repositories);
  // The writer thread opens a connection of its own to the database; in memory there is none to open,
  // and batches are stored from the service's thread.
  const location = writerLocationOf(db);
  const thread = location === undefined ? undefined : createRecordWriterThread({ location, logger });
  let holds = 0;
  // One batch at a time from this thread: on PostgreSQL two at once run on two connections, and the later
  // batch (higher ids) may commit first, which a reader following a table by id would step over.
  let previous: Promise<unknown> = Promise.resolve();
  const inTurn: BatchStore<RecordRows> = (batch) => {
    const stored = previous.then(() => inServiceThread(batch));
    previous = stored.catch(() => {});
    return stored;
  };
  const store: BatchStore<RecordRows> = (batch) =>
    thread && holds === 0 ? thread.store(batch) : inTurn(batch);
  const measured = deps.metrics && createRecordsMetrics(deps.metrics);
  type WrittenListener = (kinds: readonly (keyof RecordRows)[]) => void;
  const writtenListeners = new Set<WrittenListener>();
  const writer = createBatchingWriter<RecordRows>({
    store,
    logger,
    options: deps.writerOptions,
    onAccepted: measured?.accepted,
    onRetry: measured?.retried,
    onLost: measured?.lost,
    onWritten: (kinds) => writtenListeners.forEach((listener) => listener(kinds)),
  });
  measured?.watch(writer);
  const ingestion = createRecordsIngestion({
    writer,
    clock: deps.clock,
    closeStore: async () => thread?.close(),
    ...(deps.redactions === undefined ? {} : { redactions: deps.redactions }),
  });

  return {
    repositories,
    ingestion,
    /** Calls `listener` after each batch is stored, with its kinds; returns the function that stops it. */
    onWritten(listener: WrittenListener): () => void {
      writtenListeners.add(listener);
      return () => {
        writtenListeners.delete(listener);
      };
    },
    /**
     * Makes the service's connection the only one on the file until the returned release is called:
     * waits for the batch the writer thread is storing, then closes the thread's connection.
     */
    async holdFile(): Promise<() => void> {
      holds += 1;
      try {
        await thread?.release();
      } catch (error) {
        holds -= 1;
        throw error;
      }
      let released = false;
      return () => {
        if (!released) holds -= 1;
        released = true;
      };
    },
  };
}

export type RecordsPipeline = ReturnType<typeof createRecordsPipeline>;
