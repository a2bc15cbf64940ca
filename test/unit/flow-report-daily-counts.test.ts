import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRandom, flowPair } from '../../scripts/record-generator.ts';
import { flowReportRow } from '../../src/records/record-inputs.ts';
import { createFlowReportsRepository } from '../../src/resources/flow-reports/flow-reports.repository.ts';
import { migrateToLatest, openSqliteDatabase, type Db } from '../../src/storage/database.ts';
import { writeTransaction } from '../../src/storage/row-statement.ts';
import { DAY_MS } from '../../src/validation/calendar-date.ts';

// The daily counts answer the unfiltered totals and stats; they must always agree with counting the
// reports themselves, through inserts, retention cutting through a day, and clears.
describe('flow report daily counts', () => {
  let db: Db;
  const start = Date.parse('2026-11-10T00:00:00.000Z');
  const days = 6;
  const all = { from: start, before: start + days * DAY_MS };

  before(async () => {
    db = openSqliteDatabase(':memory:');
    await migrateToLatest(db);
  });
  after(() => db.destroy());

  async function assertAgree(repository: ReturnType<typeof createFlowReportsRepository>): Promise<void> {
    for (const window of [all, { from: start + DAY_MS, before: start + 3 * DAY_MS }]) {
      assert.equal(await repository.dailyTotal(window), await repository.count(window));
      for (const protocol of [6, 17, 1, 132]) {
        assert.equal(
          await repository.dailyTotal({ ...window, protocol }),
          await repository.count({ ...window, protocol }),
        );
      }
      assert.deepEqual(await repository.dailyProtocolCounts(window), await repository.protocolCounts(window));
      assert.deepEqual(
        await repository.dailyTopUplinkDestinations(window, 10),
        await repository.topUplinkDestinations(window, 10),
      );
    }
  }

  it('agree with the reports after inserts, retention in the middle of a day, and a clear', async () => {
    const repository = createFlowReportsRepository(db);
    const random = createRandom(42);
    const reports = Array.from({ length: 1500 }, () =>
      flowPair(random, 30, start + Math.floor(random.next() * days * DAY_MS)),
    ).flat();
    await writeTransaction(db, () => repository.insert(reports.map(flowReportRow)), repository.insertReads);
    assert.equal(await repository.dailyTotal(all), 3000);
    await assertAgree(repository);

    const cutoff = start + 2 * DAY_MS + 7 * 3_600_000;
    let deleted = 0;
    for (let chunk = await repository.deleteOlderThan(cutoff, 100); chunk > 0;) {
      deleted += chunk;
      chunk = await repository.deleteOlderThan(cutoff, 100);
    }
    assert.ok(deleted > 0);
    assert.equal(await repository.dailyTotal(all), 3000 - deleted);
    await assertAgree(repository);

    await repository.deleteAll();
    assert.equal(await repository.dailyTotal(all), 0);
    assert.deepEqual(await repository.dailyProtocolCounts(all), []);
    assert.deepEqual(await repository.dailyTopUplinkDestinations(all, 10), []);
  });
});
