import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { openSqliteDatabase } from '../../src/storage/database.ts';
import { flowReport, radioEvent } from '../helpers/records.ts';
import { requestRestore, takeBackup } from '../helpers/backup.ts';
import { createTestApp, initialize, manualClock, type TestApp } from '../helpers/test-app.ts';

/** Reports with distinct source ports, so each one is a row of its own. */
function reports(count: number, firstPort: number) {
  return Array.from({ length: count }, (_, n) => flowReport({ sourcePort: firstPort + n }));
}

/** Flow reports in the file, read by a connection of the test's own. */
function reportsInFile(path: string): number {
  const sqlite = new SQLite(path, { readonly: true });
  try {
    return Number(sqlite.prepare('SELECT count(*) FROM flow_reports').pluck().get());
  } finally {
    sqlite.close();
  }
}

// On a database file, records are written by the records writer thread on a connection of its own;
// backups and restores take the file from it (src/records/records-pipeline.ts).
describe('records on a database file', () => {
  let dir: string;
  let t: TestApp;
  let admin: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pmn-writer-thread-'));
    t = await createTestApp({ database: join(dir, 'core.db'), clock: manualClock() });
    admin = await initialize(t);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function listedReports(): Promise<number> {
    const response = await t.request({ method: 'GET', url: '/api/v1/flow-reports?per_page=1', token: admin });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ result: { total_count: number } }>().result.total_count;
  }

  async function clear(): Promise<void> {
    const response = await t.request({ method: 'DELETE', url: '/api/v1/flow-reports', token: admin });
    assert.equal(response.statusCode, 200, response.body);
  }

  it('writes accepted records, in batches across transactions, where the API reads them', async () => {
    await clear();
    for (let batch = 0; batch < 5; batch += 1)
      assert.equal(t.records.recordFlowReports(reports(1000, 1000)), true);
    await t.records.flush();
    assert.equal(await listedReports(), 5000);
    assert.equal(reportsInFile(join(dir, 'core.db')), 5000);
  });

  it('keeps taking records during a backup, which holds every record written before it', async () => {
    await clear();
    t.records.recordFlowReports(reports(300, 1000));
    await t.records.flush();
    const backup = t.request({ method: 'POST', url: '/api/v1/backup', token: admin });
    t.records.recordFlowReports(reports(200, 2000));
    const response = await backup;
    assert.equal(response.statusCode, 200, response.body);
    await t.records.flush();
    assert.equal(await listedReports(), 500);

    const copy = join(dir, 'copy.db');
    writeFileSync(copy, response.rawPayload);
    const copied = reportsInFile(copy);
    assert.ok(copied >= 300 && copied <= 500, `the backup holds ${copied} reports`);
  });

  it('restores while records arrive, then writes them to the restored database', async () => {
    await clear();
    t.records.recordFlowReports(reports(100, 1000));
    await t.records.flush();
    const backup = await takeBackup(t, admin);
    t.records.recordFlowReports(reports(50, 2000));
    await t.records.flush();
    assert.equal(await listedReports(), 150);

    // The writer thread has the file open: the restore must have it close its connection first, or it
    // would find the file in use (409) and the thread would go on writing to the replaced file.
    const restoring = requestRestore(t, admin, backup);
    t.records.recordFlowReports(reports(25, 3000));
    const restored = await restoring;
    assert.equal(restored.statusCode, 200, restored.body);
    t.records.recordFlowReports(reports(10, 4000));
    await t.records.flush();
    // The 50 reports after the backup are gone with the restore and the 10 after it are in the restored
    // database. The 25 offered while the restore ran went to the old file or to the restored one, whole.
    const listed = await listedReports();
    assert.ok(listed === 110 || listed === 135, `${listed} reports listed`);
    assert.equal(reportsInFile(join(dir, 'core.db')), listed);
  });

  it('writes every accepted record to the file when the service closes', async () => {
    const path = join(dir, 'closing.db');
    const closing = await createTestApp({ database: path, clock: manualClock() });
    for (let batch = 0; batch < 20; batch += 1) closing.records.recordFlowReports(reports(1000, 1000));
    await closing.close();
    // SQLite removes the WAL when the last connection to the file closes.
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.startsWith('closing.db-')),
      [],
      'every connection closed',
    );
    assert.equal(reportsInFile(path), 20_000);
  });

  // In this file rather than a file of its own: each test file pays for a process that loads the
  // service and, on a database file, a writer thread that loads its own modules.
  it('writes every accepted record when the core stops, before the database closes', async () => {
    const path = join(dir, 'stopping.db');
    const { records, close } = await createTestApp({ database: path });
    for (let i = 0; i < 3; i += 1) assert.equal(records.recordRadioEvent(radioEvent()), true);
    assert.equal(records.recordFlowReports([flowReport(), flowReport()]), true);

    await close();

    const db = openSqliteDatabase(path);
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
