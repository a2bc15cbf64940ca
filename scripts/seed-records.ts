import { parseArgs } from 'node:util';
import pino from 'pino';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config/config.ts';
import { createRecordsPipeline } from '../src/records/records-pipeline.ts';
import { migrateToLatest, openSqliteDatabase } from '../src/storage/database.ts';
import { seedRecords } from './record-generator.ts';

/**
 * Development data: `npm run seed:records -- --radio-events N --flows N --subscribers N --days D
 * [--subscriber-logs N] [--radio-logs N] [--db PATH] [--seed N]`. Writes plausible records through the
 * records ingestion interface into the database at PATH (default: the configured one, as `npm start`
 * would open it). A command-line tool only: nothing in the API reaches it.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'radio-events': { type: 'string', default: '10000' },
      flows: { type: 'string', default: '100000' },
      subscribers: { type: 'string', default: '100' },
      days: { type: 'string', default: '7' },
      'subscriber-logs': { type: 'string' },
      'radio-logs': { type: 'string' },
      seed: { type: 'string', default: '1' },
      db: { type: 'string' },
      config: { type: 'string' },
    },
    strict: true,
  });
  const count = (name: keyof typeof values, min: number): number => {
    const value = Number(values[name]);
    if (!Number.isSafeInteger(value) || value < min)
      throw new Error(`--${name} must be an integer >= ${min}`);
    return value;
  };
  const radioEvents = count('radio-events', 0);
  const counts = {
    radioEvents,
    flows: count('flows', 0),
    subscribers: count('subscribers', 1),
    days: count('days', 1),
    subscriberLogs:
      values['subscriber-logs'] === undefined ? Math.floor(radioEvents / 10) : count('subscriber-logs', 0),
    radioLogs: values['radio-logs'] === undefined ? Math.floor(radioEvents / 100) : count('radio-logs', 0),
  };
  const path = values.db ?? loadConfig(values.config ? ['--config', values.config] : [], process.env).db;

  const logger = pino({ level: 'info' });
  const db = openSqliteDatabase(path);
  await migrateToLatest(db);
  const { ingestion } = createRecordsPipeline({
    db,
    clock: systemClock,
    logger,
    // A bulk load: larger transactions than the live pipeline uses.
    writerOptions: { capacity: 100_000, batchSize: 10_000 },
  });
  const started = performance.now();
  logger.info({ db: path, ...counts }, 'seeding records');
  await seedRecords(ingestion, counts, {
    now: systemClock.now(),
    seed: count('seed', 0),
    onProgress: (done) => logger.info(`queued ${done}`),
  });
  await ingestion.close();
  await db.destroy();
  logger.info({ seconds: Math.round((performance.now() - started) / 100) / 10 }, 'records seeded');
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
