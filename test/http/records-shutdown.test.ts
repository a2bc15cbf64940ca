import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../src/storage/database.ts';
import { flowReport, radioEvent } from '../helpers/records.ts';
import { createTestApp } from '../helpers/test-app.ts';

describe('records on shutdown', () => {
  it('writes every accepted record when the core stops, before the database closes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmn-shutdown-'));
    const database = join(dir, 'core.db');
    const { records, close } = await createTestApp({ database });
    for (let i = 0; i < 3; i += 1) assert.equal(records.recordRadioEvent(radioEvent()), true);
    assert.equal(records.recordFlowReports([flowReport(), flowReport()]), true);

    await close();

    const db = openSqliteDatabase(database);
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
    rmSync(dir, { recursive: true, force: true });
  });
});
