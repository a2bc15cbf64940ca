/**
 * The records writer thread (docs/records.md): stores the batches the service's batching writer hands
 * it, on a connection of its own to the database (an SQLite file, or one PostgreSQL connection), so that
 * building and writing the rows runs on a core of its own. Messages are handled one at a time, in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Batch } from './batching-writer.ts';
import type { RecordRows } from './ingestion.ts';
import { createRecordRepositories, createRecordStore } from './record-store.ts';
import type { FromWriterThread, ToWriterThread, WriterThreadData } from './record-writer-thread.ts';
import type { Db } from '../storage/database.ts';
import { openWriterConnection } from '../storage/writer-connection.ts';

const port = parentPort;
if (!port) throw new Error('the records writer runs as a worker thread');
const { location } = workerData as WriterThreadData;

let db: Db | undefined;
let store: ((batch: Batch<RecordRows>) => Promise<void>) | undefined;

async function open(): Promise<NonNullable<typeof store>> {
  // Kept only once open: a database that cannot be reached now fails this batch, and the next opens again.
  const opened = await openWriterConnection(location);
  db = opened;
  store = createRecordStore(opened, createRecordRepositories(opened));
  return store;
}

async function close(): Promise<void> {
  const closing = db;
  db = undefined;
  store = undefined;
  await closing?.destroy();
}

/** Runs one request; the connection opens on the first batch after a release. */
async function handle(message: ToWriterThread): Promise<void> {
  if (message.type === 'store') await (store ?? (await open()))(message.batch);
  else await close();
}

let queue = Promise.resolve();
port.on('message', (message: ToWriterThread) => {
  queue = queue.then(async () => {
    let reply: FromWriterThread;
    try {
      await handle(message);
      reply = { id: message.id, ok: true };
    } catch (error) {
      reply = { id: message.id, ok: false, message: (error as Error).message };
    }
    port.postMessage(reply);
    if (message.type === 'close') port.close();
  });
});
