import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { wireAmfSet } from '../../src/core/amf-set.wiring.ts';
import type { CoreWiring } from '../../src/core/wiring.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { localChangeNotices } from '../../src/storage/change-notices.ts';
import { migrateToLatest, openSqliteDatabase, type Db } from '../../src/storage/database.ts';
import { manualClock } from '../helpers/test-app.ts';

// A page of subscribers asks which members are live peers before it reads their views: the member rows
// are read at most once a second for that, not once a page.
describe('AMF set wiring: the members as read a moment ago', () => {
  let reads = 0;
  const db: Db = openSqliteDatabase(':memory:', {
    log: (event) => {
      if (event.level === 'query' && /from "amf_set_members"/.test(event.query.sql)) reads += 1;
    },
  });
  before(() => migrateToLatest(db));
  after(() => db.destroy());

  const wiring = (): CoreWiring => ({
    retention: undefined as never,
    metrics: createMetrics(),
    notices: localChangeNotices,
    onRestored: () => {},
    onFileHold: () => {},
    job: () => {},
    component: () => {},
  });

  it('reads the rows once for every caller within a second, again after it, and again after a failed read', async () => {
    const clock = manualClock();
    const set = wireAmfSet(wiring(), { db, clock });
    reads = 0;
    await Promise.all([set.recentMembers(), set.recentMembers()]);
    clock.advance(999);
    await set.recentMembers();
    assert.equal(reads, 1);
    clock.advance(1);
    await set.recentMembers();
    assert.equal(reads, 2);
    // members() itself always reads (GET /api/v1/amf-set, the gone rows' job).
    await set.members();
    assert.equal(reads, 3);
  });

  it('does not keep a failed read: the next caller within the second reads again', async () => {
    const clock = manualClock();
    const fresh = openSqliteDatabase(':memory:');
    try {
      const set = wireAmfSet(wiring(), { db: fresh, clock });
      await assert.rejects(set.recentMembers(), /amf_set_members/);
      await migrateToLatest(fresh);
      assert.deepEqual(await set.recentMembers(), []);
    } finally {
      await fresh.destroy();
    }
  });
});
