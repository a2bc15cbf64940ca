import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createRecordsPipeline, type RecordsPipeline } from '../../src/records/records-pipeline.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';

/**
 * The records pipeline against the test run's database (PostgreSQL with PMN_TEST_DB=postgres, else an
 * in-memory SQLite): what goes in comes back out, value for value.
 */
describe(`records written on ${onPostgres ? 'PostgreSQL' : 'SQLite'}`, () => {
  let storage: Storage;
  let now = 1_001_542.75;
  let pipeline: RecordsPipeline;
  before(async () => {
    storage = await openStorage({ path: onPostgres ? await freshPostgresDatabase() : ':memory:' });
    pipeline = createRecordsPipeline({
      db: storage.db,
      clock: { now: () => now },
      logger: pino({ level: 'silent' }),
    });
  });
  after(async () => {
    await pipeline.ingestion.close();
    await storage.close();
  });

  it('stores a record timed by a clock with a fraction of a millisecond, in whole milliseconds', async () => {
    // A manual clock moved by SCTP's jittered timers has fractions; PostgreSQL's bigint refused one, and
    // the records writer then lost the whole batch it was in.
    now = 1_001_542.75;
    pipeline.ingestion.recordRadioLog({
      ranId: '001:01:00000a',
      event: 'SCTP Association Down',
      direction: 'inbound',
      raw: new Uint8Array(),
    });
    pipeline.ingestion.recordSubscriberLog({
      imsi: '001010000000001',
      event: 'Registration accept',
      direction: 'outbound',
      raw: new Uint8Array([1]),
    });
    await pipeline.ingestion.flush();
    const radio = await pipeline.repositories.radioLogs.list({}, 10, 0);
    const subscriber = await pipeline.repositories.subscriberLogs.list({}, 10, 0);
    assert.deepEqual(
      [...radio, ...subscriber].map((log) => log.timestamp),
      [1_001_542, 1_001_542],
    );
  });
});
