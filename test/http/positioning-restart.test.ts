import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { created, imsi, newSubscriber } from '../helpers/network.ts';
import {
  connectIn,
  lastPoint,
  nrCell,
  openSession,
  provisionCell,
  session,
  supi,
} from '../helpers/location.ts';
import { restoreBackup, takeBackup } from '../helpers/backup.ts';
import { ADMIN, createTestApp, initialize, login, manualClock, type TestApp } from '../helpers/test-app.ts';

// Sessions live in the database: they go on across a restart and follow a restore.
const HARBOUR = nrCell('000000101');
const QUAY = nrCell('000000102');
const QUAY_POINT = { lat: 53.54, lon: 9.98 };

const secretKey = randomBytes(32);
let dir: string;
let databases = 0;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'pmn-positioning-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

type ManualClock = ReturnType<typeof manualClock>;

async function advance(t: TestApp, clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await t.positioning.settled();
}

/**
 * A service that ran on a database file of its own and stopped: subscriber 1, in the harbour cell, has a
 * periodic (every 10 s) and a triggered session, subscriber 2 a periodic one; it closed 4 s into the
 * periodic rhythm. `start` starts it again on the same file and clock.
 */
async function stoppedWithSessions() {
  const clock = manualClock();
  const database = join(dir, `core-${++databases}.db`);
  const start = () => createTestApp({ database, secretKey, clock, timers: clock });
  const t = await start();
  const token = await initialize(t);
  for (const n of [1, 2]) await created(t, token, '/api/v1/subscribers', newSubscriber(n));
  await provisionCell(t, token, HARBOUR, { latitude: 53.5461, longitude: 9.9661 });
  await provisionCell(t, token, QUAY, { latitude: QUAY_POINT.lat, longitude: QUAY_POINT.lon });
  connectIn(t, 1, HARBOUR);
  const periodic = await openSession(t, token, {
    request_type: 'periodic',
    supi: supi(1),
    interval_seconds: 10,
  });
  const triggered = await openSession(t, token, { request_type: 'triggered', supi: supi(1) });
  const orphaned = await openSession(t, token, {
    request_type: 'periodic',
    supi: supi(2),
    interval_seconds: 10,
  });
  await advance(t, clock, 4000);
  const timersBeforeClose = clock.pendingTimers();
  await t.close();
  return { clock, database, start, periodic, triggered, orphaned, timersBeforeClose };
}

describe('positioning sessions across a restart', () => {
  it('stops every timer when the app closes', async () => {
    const stopped = await stoppedWithSessions();
    assert.equal(stopped.timersBeforeClose, 2);
    assert.equal(stopped.clock.pendingTimers(), 0);
  });

  it('restores the active sessions at start, keeping the periodic rhythm', async () => {
    const { clock, database, start, periodic, triggered, orphaned } = await stoppedWithSessions();
    // While the process was stopped, subscriber 2 went (as another process sharing the file would do).
    const file = new SQLite(database);
    file.prepare('DELETE FROM subscribers WHERE imsi = ?').run(imsi(2));
    file.close();

    const t = await start();
    try {
      const token = await login(t, ADMIN.email, ADMIN.password);
      assert.equal((await session(t, token, periodic)).status, 0);
      assert.equal((await session(t, token, triggered)).status, 0);
      assert.equal((await session(t, token, orphaned)).status, 2, 'its subscriber is gone');
      assert.equal(clock.pendingTimers(), 1);

      // The device registers again after the restart, in another cell.
      connectIn(t, 1, QUAY);
      await t.positioning.settled();
      assert.deepEqual(await lastPoint(t, token, triggered), QUAY_POINT, 'triggered by the new cell');
      await advance(t, clock, 5999);
      assert.notDeepEqual(await lastPoint(t, token, periodic), QUAY_POINT, 'not before its time');
      await advance(t, clock, 1);
      assert.deepEqual(await lastPoint(t, token, periodic), QUAY_POINT, '10 s after the last evaluation');
    } finally {
      await t.close();
    }
  });

  it('catches up at once on an evaluation missed while stopped', async () => {
    const { clock, start, periodic } = await stoppedWithSessions();
    clock.advance(3_600_000);
    const t = await start();
    try {
      const token = await login(t, ADMIN.email, ADMIN.password);
      connectIn(t, 1, HARBOUR);
      const before = (await session(t, token, periodic)).updated_at;
      await advance(t, clock, 0);
      const evaluated = await session(t, token, periodic);
      assert.ok(evaluated.updated_at > before, 'evaluated at start');
      assert.equal(evaluated.last_result?.locationEstimate.point.lat, 53.5461);
    } finally {
      await t.close();
    }
  });
});

describe('positioning sessions across a restore', () => {
  it('follows the restored database: its active sessions run, the others stop', async () => {
    const clock = manualClock();
    const t = await createTestApp({ database: join(dir, 'restore.db'), secretKey, clock, timers: clock });
    try {
      const token = await initialize(t);
      await created(t, token, '/api/v1/subscribers', newSubscriber(1));
      await provisionCell(t, token, QUAY, { latitude: QUAY_POINT.lat, longitude: QUAY_POINT.lon });
      const kept = await openSession(t, token, {
        request_type: 'periodic',
        supi: supi(1),
        interval_seconds: 10,
      });
      const backup = await takeBackup(t, token);
      const cancel = await t.request({
        method: 'DELETE',
        url: `/api/beta/positioning/sessions/${kept}`,
        token,
      });
      assert.equal(cancel.statusCode, 204);
      const later = await openSession(t, token, {
        request_type: 'periodic',
        supi: supi(1),
        interval_seconds: 10,
      });
      assert.equal(t.positioning.pendingTimers, 1);

      await restoreBackup(t, token, backup);
      assert.equal((await session(t, token, kept)).status, 0);
      const gone = await t.request({ method: 'GET', url: `/api/beta/positioning/sessions/${later}`, token });
      assert.equal(gone.statusCode, 404);
      assert.equal(t.positioning.pendingTimers, 1, 'the restored session’s timer only');

      connectIn(t, 1, QUAY);
      await advance(t, clock, 10_000);
      assert.deepEqual(await lastPoint(t, token, kept), QUAY_POINT);
    } finally {
      await t.close();
    }
  });
});
