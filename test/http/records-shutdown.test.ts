import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { migrateToLatest, openSqliteDatabase } from '../../src/storage/database.ts';
import { flowReport, radioEvent } from '../helpers/records.ts';

describe('records on shutdown', () => {
  it('writes every accepted record when the app closes, before the database does', async () => {
    const db = openSqliteDatabase(':memory:');
    await migrateToLatest(db);
    const { app, records } = await buildApp({
      db,
      logger: pino({ level: 'silent' }),
      secretKey: randomBytes(32),
    });
    for (let i = 0; i < 3; i += 1) assert.equal(records.recordRadioEvent(radioEvent()), true);
    assert.equal(records.recordFlowReports([flowReport(), flowReport()]), true);

    await app.close();

    const count = async (table: 'radio_events' | 'flow_reports') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal(await count('radio_events'), 3);
    assert.equal(await count('flow_reports'), 2);
    assert.throws(() => records.recordRadioEvent(radioEvent()), /records pipeline is closed/);
    await db.destroy();
  });
});
