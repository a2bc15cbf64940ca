import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Batch, BatchStore } from './batching-writer.ts';
import type { RecordRows } from './ingestion.ts';

export interface WriterThreadData {
  /** The database: an SQLite file's path or a PostgreSQL URL (storage/writer-connection.ts). */
  location: string;
}

/** Requests to the thread: store a batch, release the database file (close), or close for good. */
type Request = { type: 'store'; batch: Batch<RecordRows> } | { type: 'release' } | { type: 'close' };

export type ToWriterThread = Request & { id: number };

/** The answer to each request, by id. */
export type FromWriterThread = { id: number; ok: true } | { id: number; ok: false; message: string };

const WORKER_URL = new URL(
  `./record-writer.worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/**
 * The service runs from TypeScript sources through tsx (`node --import tsx`), whose loader a worker
 * thread of Node 20 does not inherit: the thread registers it before loading its module.
 */
function workerSource(): string {
  const load = `import(${JSON.stringify(WORKER_URL.href)})`;
  if (!WORKER_URL.pathname.endsWith('.ts')) return load;
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return `import(${tsx}).then(({ register }) => { register(); return ${load}; })`;
}

/**
 * The records writer thread, as the batching writer's store: each batch is handed to a worker thread
 * that writes it on its own connection to the database (record-writer.worker.ts), so the service's
 * thread keeps serving requests while the rows are built and written (SQLite's inserts; PostgreSQL's
 * COPY text and its socket writes). One request runs at a time in the thread, in order.
 * The thread starts with the first request and again after it failed; an idle thread does not keep the
 * process alive.
 */
export function createRecordWriterThread(deps: { location: string; logger: Logger }) {
  const { location, logger } = deps;
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  function failAll(error: Error): void {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  }

  function start(): Worker {
    const started = new Worker(workerSource(), {
      eval: true,
      workerData: { location } satisfies WriterThreadData,
    });
    started.on('message', (reply: FromWriterThread) => {
      const request = pending.get(reply.id);
      pending.delete(reply.id);
      if (pending.size === 0) started.unref();
      if (reply.ok) request?.resolve();
      else request?.reject(new Error(reply.message));
    });
    started.on('error', (error) => {
      logger.error({ err: error }, 'records writer thread failed');
      if (worker === started) worker = undefined;
      failAll(error);
    });
    started.on('exit', (code) => {
      if (worker === started) worker = undefined;
      failAll(new Error(`records writer thread exited (code ${code})`));
    });
    return started;
  }

  function send(request: Request): Promise<void> {
    worker ??= start();
    const target = worker;
    const id = nextId++;
    return new Promise<void>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      target.ref();
      target.postMessage({ ...request, id });
    });
  }

  return {
    store: ((batch) => send({ type: 'store', batch })) as BatchStore<RecordRows>,

    /** Closes the thread's connection (after the batch it is writing); the next batch opens it again. */
    async release(): Promise<void> {
      if (worker) await send({ type: 'release' });
    },

    /** Closes the connection and ends the thread. */
    async close(): Promise<void> {
      const closing = worker;
      if (!closing) return;
      const exited = new Promise((resolve) => closing.once('exit', resolve));
      await send({ type: 'close' });
      closing.ref();
      await exited;
    },
  };
}
