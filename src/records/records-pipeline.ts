import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { RadioRegistry } from '../network/radio-registry.ts';
import type { Db } from '../storage/database.ts';
import { createBatchingWriter, type BatchingWriterOptions } from './batching-writer.ts';
import { createRecordsIngestion, type RecordRows } from './ingestion.ts';
import { createRecordRepositories, createRecordStore } from './record-store.ts';

/**
 * Assembles the records pipeline: one repository per record type, the batching writer over them and
 * the ingestion interface in front. The app and the development seed tool build it the same way.
 */
export function createRecordsPipeline(deps: {
  db: Db;
  radios: RadioRegistry;
  clock: Clock;
  logger: Logger;
  writerOptions?: Partial<BatchingWriterOptions>;
}) {
  const { db } = deps;
  const repositories = createRecordRepositories(db);
  const writer = createBatchingWriter<RecordRows>({
    store: createRecordStore(db, repositories),
    logger: deps.logger,
    options: deps.writerOptions,
  });
  const ingestion = createRecordsIngestion({ writer, radios: deps.radios, clock: deps.clock });
  return { repositories, ingestion };
}

export type RecordsPipeline = ReturnType<typeof createRecordsPipeline>;
