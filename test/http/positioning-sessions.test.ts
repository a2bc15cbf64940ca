import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { created, errorOf, imsi, newSubscriber } from '../helpers/network.ts';
import {
  connectIn,
  lastPoint,
  locationRequest,
  nrCell,
  openSession,
  provisionCell,
  session,
  supi,
} from '../helpers/location.ts';
import {
  createApiToken,
  createTestApp,
  initialize,
  manualClock,
  result,
  type TestApp,
} from '../helpers/test-app.ts';

const START = Date.parse('2026-11-22T10:00:00.000Z');
const clock = manualClock(START);
let t: TestApp;
let token: string;

const HARBOUR = nrCell('000000101');
const QUAY = nrCell('000000102');
const UNPROVISIONED = nrCell('0000001ff');
const HARBOUR_POINT = { lat: 53.5461, lon: 9.9661 };
const QUAY_POINT = { lat: 53.54, lon: 9.98 };

before(async () => {
  t = await createTestApp({ clock, timers: clock });
  // An API token: these tests move the clock by hours and days, past a bearer token's 15 minutes.
  token = await createApiToken(t, await initialize(t), 'positioning tests');
  for (let n = 1; n <= 30; n += 1) await created(t, token, '/api/v1/subscribers', newSubscriber(n));
  await provisionCell(t, token, HARBOUR, { latitude: HARBOUR_POINT.lat, longitude: HARBOUR_POINT.lon });
  await provisionCell(t, token, QUAY, { latitude: QUAY_POINT.lat, longitude: QUAY_POINT.lon });
});
after(() => t.close());

/** Moves the clock and waits for the evaluations its timers started. */
async function advance(ms: number): Promise<void> {
  clock.advance(ms);
  await t.positioning.settled();
}

const cancel = (id: string) =>
  t.request({ method: 'DELETE', url: `/api/beta/positioning/sessions/${id}`, token });

const list = (query: string) =>
  t.request({ method: 'GET', url: `/api/beta/positioning/sessions${query}`, token });

const seconds = (ms: number) => Math.floor(ms / 1000);

describe('GET /api/beta/positioning/sessions', () => {
  it('lists a subscriber’s sessions as an array, newest first, without last_result', async () => {
    connectIn(t, 1, HARBOUR);
    const first = await openSession(t, token, { request_type: 'periodic', supi: supi(1) });
    await advance(1000);
    const second = await openSession(t, token, { request_type: 'triggered', supi: supi(1) });
    await openSession(t, token, { request_type: 'triggered', supi: supi(2) });
    const response = await list(`?supi=${supi(1)}`);
    assert.equal(response.statusCode, 200, response.body);
    const items = result<Record<string, unknown>[]>(response);
    assert.deepEqual(
      items.map((item) => item.id),
      [second, first],
    );
    assert.deepEqual(items[0], {
      id: second,
      supi: supi(1),
      session_type: 2,
      method: 'cell_id',
      status: 0,
      created_at: seconds(clock.now()),
      updated_at: seconds(clock.now()),
    });
    await cancel(first);
    await cancel(second);
  });

  it('answers an empty array for a subscriber without sessions, known or not', async () => {
    assert.deepEqual(result(await list(`?supi=${supi(3)}`)), []);
    assert.deepEqual(result(await list('?supi=imsi-999999999999999')), []);
  });

  it('answers 400 without supi or with a malformed one', async () => {
    assert.equal(errorOf(await list(''), 400), 'query parameter supi is required');
    assert.equal(
      errorOf(await list(`?supi=${imsi(1)}`), 400),
      'query parameter supi must be "imsi-" followed by 15 digits',
    );
  });
});

describe('GET /api/beta/positioning/sessions/{id}', () => {
  it('answers the session with the estimate it holds in last_result', async () => {
    connectIn(t, 2, HARBOUR);
    const id = await openSession(t, token, { request_type: 'periodic', supi: supi(2) });
    const response = await t.request({ method: 'GET', url: `/api/beta/positioning/sessions/${id}`, token });
    assert.deepEqual(result(response), {
      id,
      supi: supi(2),
      session_type: 1,
      method: 'cell_id',
      status: 0,
      created_at: seconds(clock.now()),
      updated_at: seconds(clock.now()),
      last_result: {
        locationEstimate: { shape: 'POINT_UNCERTAINTY_CIRCLE', point: HARBOUR_POINT, uncertainty: 0 },
        positioningDataList: [
          { method: 'CELLID', mode: 'CONVENTIONAL', usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' },
        ],
        ncgi: { plmnId: { mcc: '001', mnc: '01' }, nrCellId: '000000101' },
      },
    });
    await cancel(id);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await t.request({ method: 'GET', url: '/api/beta/positioning/sessions/nothing', token });
    assert.equal(errorOf(response, 404), 'positioning session nothing not found');
  });
});

describe('DELETE /api/beta/positioning/sessions/{id}', () => {
  it('cancels an active session: 204 with no body, status 3, updated_at the time of the cancel', async () => {
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(3) });
    await advance(5000);
    const response = await cancel(id);
    assert.equal(response.statusCode, 204, response.body);
    assert.equal(response.body, '');
    const cancelled = await session(t, token, id);
    assert.deepEqual([cancelled.status, cancelled.updated_at], [3, seconds(clock.now())]);
  });

  it('answers 404 for an unknown id', async () => {
    assert.equal(errorOf(await cancel('nothing'), 404), 'positioning session nothing not found');
  });

  it('answers 409 for a session that is no longer active', async () => {
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(3) });
    await cancel(id);
    assert.equal(errorOf(await cancel(id), 409), `positioning session ${id} is not active (cancelled)`);
  });
});

describe('positioning sessions: periodic', () => {
  it('estimates at creation, then every 60 seconds by default, following the subscriber', async () => {
    connectIn(t, 4, HARBOUR);
    const id = await openSession(t, token, { request_type: 'periodic', supi: supi(4) });
    const createdAt = seconds(clock.now());
    assert.deepEqual(await lastPoint(t, token, id), HARBOUR_POINT);
    t.network.subscriberSeen(imsi(4), 'gnb-1', QUAY);
    await advance(59_999);
    assert.deepEqual(await lastPoint(t, token, id), HARBOUR_POINT, 'not before the interval');
    await advance(1);
    const evaluated = await session(t, token, id);
    assert.deepEqual(evaluated.last_result?.locationEstimate.point, QUAY_POINT);
    assert.deepEqual([evaluated.created_at, evaluated.updated_at], [createdAt, createdAt + 60]);
    t.network.subscriberSeen(imsi(4), 'gnb-1', HARBOUR);
    await advance(60_000);
    assert.deepEqual(await lastPoint(t, token, id), HARBOUR_POINT);
    await cancel(id);
  });

  it('uses interval_seconds', async () => {
    connectIn(t, 5, HARBOUR);
    const id = await openSession(t, token, { request_type: 'periodic', supi: supi(5), interval_seconds: 5 });
    t.network.subscriberSeen(imsi(5), 'gnb-1', QUAY);
    await advance(5000);
    assert.deepEqual(await lastPoint(t, token, id), QUAY_POINT);
    await cancel(id);
  });

  it('completes (1) after report_count estimates, the one at creation included, and leaves no timer', async () => {
    connectIn(t, 6, HARBOUR);
    const timers = t.positioning.pendingTimers;
    const id = await openSession(t, token, {
      request_type: 'periodic',
      supi: supi(6),
      interval_seconds: 10,
      report_count: 3,
    });
    assert.equal(t.positioning.pendingTimers, timers + 1);
    await advance(10_000);
    assert.equal((await session(t, token, id)).status, 0);
    await advance(10_000);
    const done = await session(t, token, id);
    assert.deepEqual([done.status, done.updated_at], [1, seconds(clock.now())]);
    assert.equal(t.positioning.pendingTimers, timers);
    assert.equal(errorOf(await cancel(id), 409), `positioning session ${id} is not active (completed)`);
  });

  it('completes at creation when report_count is 1 and the subscriber can be located', async () => {
    connectIn(t, 7, HARBOUR);
    const timers = clock.pendingTimers();
    const id = await openSession(t, token, { request_type: 'periodic', supi: supi(7), report_count: 1 });
    const done = await session(t, token, id);
    assert.deepEqual([done.status, done.last_result?.locationEstimate.point], [1, HARBOUR_POINT]);
    assert.equal(clock.pendingTimers(), timers);
  });

  it('counts only evaluations that produced an estimate, and waits while the subscriber cannot be located', async () => {
    const id = await openSession(t, token, {
      request_type: 'periodic',
      supi: supi(8),
      interval_seconds: 10,
      report_count: 2,
    });
    await advance(10_000);
    const waiting = await session(t, token, id);
    assert.deepEqual([waiting.status, waiting.last_result], [0, null], 'not connected');
    connectIn(t, 8, UNPROVISIONED);
    await advance(10_000);
    assert.equal(await lastPoint(t, token, id), null, 'cell without position');
    t.network.subscriberSeen(imsi(8), 'gnb-1', HARBOUR);
    await advance(10_000);
    assert.deepEqual(await lastPoint(t, token, id), HARBOUR_POINT);
    assert.equal((await session(t, token, id)).status, 0, 'one estimate of two');
    await advance(10_000);
    assert.equal((await session(t, token, id)).status, 1);
  });

  it('stops its timer when cancelled: nothing is evaluated afterwards', async () => {
    connectIn(t, 9, HARBOUR);
    const timers = clock.pendingTimers();
    const id = await openSession(t, token, { request_type: 'periodic', supi: supi(9), interval_seconds: 10 });
    assert.equal(clock.pendingTimers(), timers + 1);
    await locationRequest(t, token, { request_type: 'cancel', session_id: id });
    assert.equal(clock.pendingTimers(), timers);
    const cancelled = await session(t, token, id);
    t.network.subscriberSeen(imsi(9), 'gnb-1', QUAY);
    await advance(60_000);
    assert.deepEqual(await session(t, token, id), cancelled);
  });
});

describe('positioning sessions: triggered', () => {
  it('estimates when the serving cell changes, not on a timer', async () => {
    connectIn(t, 10, HARBOUR);
    const timers = clock.pendingTimers();
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(10) });
    assert.equal(clock.pendingTimers(), timers, 'no timer');
    assert.deepEqual(await lastPoint(t, token, id), HARBOUR_POINT);
    await advance(3_600_000);
    const unchanged = await session(t, token, id);
    t.network.subscriberSeen(imsi(10), 'gnb-1', QUAY);
    await t.positioning.settled();
    const moved = await session(t, token, id);
    assert.deepEqual(moved.last_result?.locationEstimate.point, QUAY_POINT);
    assert.ok(moved.updated_at > unchanged.updated_at, 'updated by the move');
    await cancel(id);
  });

  it('does not estimate again when the same cell is reported', async () => {
    connectIn(t, 11, HARBOUR);
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(11), report_count: 2 });
    await advance(1000);
    t.network.subscriberSeen(imsi(11), 'gnb-1', HARBOUR);
    t.network.subscriberSeen(imsi(11), 'gnb-1', HARBOUR);
    await t.positioning.settled();
    assert.equal((await session(t, token, id)).status, 0, 'still one estimate');
    await cancel(id);
  });

  it('completes after report_count estimates', async () => {
    connectIn(t, 12, HARBOUR);
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(12), report_count: 3 });
    t.network.subscriberSeen(imsi(12), 'gnb-1', QUAY);
    await t.positioning.settled();
    assert.equal((await session(t, token, id)).status, 0);
    t.network.subscriberSeen(imsi(12), 'gnb-1', HARBOUR);
    await t.positioning.settled();
    assert.equal((await session(t, token, id)).status, 1);
    t.network.subscriberSeen(imsi(12), 'gnb-1', QUAY);
    await t.positioning.settled();
    assert.deepEqual(await lastPoint(t, token, id), HARBOUR_POINT, 'nothing after completion');
  });

  it('skips a move into a cell without position, and estimates at the next provisioned one', async () => {
    connectIn(t, 13, HARBOUR);
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(13), report_count: 2 });
    t.network.subscriberSeen(imsi(13), 'gnb-1', UNPROVISIONED);
    await t.positioning.settled();
    assert.deepEqual(
      [(await session(t, token, id)).status, await lastPoint(t, token, id)],
      [0, HARBOUR_POINT],
    );
    t.network.subscriberSeen(imsi(13), 'gnb-1', QUAY);
    await t.positioning.settled();
    assert.deepEqual([(await session(t, token, id)).status, await lastPoint(t, token, id)], [1, QUAY_POINT]);
  });

  it('counts one estimate for quick moves reported before the evaluation ran', async () => {
    connectIn(t, 14, HARBOUR);
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(14), report_count: 3 });
    t.network.subscriberSeen(imsi(14), 'gnb-1', UNPROVISIONED);
    t.network.subscriberSeen(imsi(14), 'gnb-1', QUAY);
    await t.positioning.settled();
    const after = await session(t, token, id);
    assert.deepEqual([after.status, after.last_result?.locationEstimate.point], [0, QUAY_POINT]);
    t.network.subscriberSeen(imsi(14), 'gnb-1', HARBOUR);
    await t.positioning.settled();
    assert.equal((await session(t, token, id)).status, 1, 'three estimates: creation and two moves');
  });

  it('is no longer evaluated once cancelled', async () => {
    connectIn(t, 15, HARBOUR);
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(15) });
    await cancel(id);
    t.network.subscriberSeen(imsi(15), 'gnb-1', QUAY);
    await t.positioning.settled();
    assert.deepEqual(await lastPoint(t, token, id), HARBOUR_POINT);
  });
});

describe('positioning sessions: a deleted subscriber fails them', () => {
  it('fails (2) every active session of a subscriber deleted through the API, and stops its timers', async () => {
    connectIn(t, 16, HARBOUR);
    const timers = clock.pendingTimers();
    const periodic = await openSession(t, token, { request_type: 'periodic', supi: supi(16) });
    const triggered = await openSession(t, token, { request_type: 'triggered', supi: supi(16) });
    const cancelled = await openSession(t, token, { request_type: 'triggered', supi: supi(16) });
    await cancel(cancelled);
    await advance(1000);
    const deleted = await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(16)}`, token });
    assert.equal(deleted.statusCode, 200, deleted.body);
    await t.positioning.settled();
    for (const id of [periodic, triggered]) {
      const failed = await session(t, token, id);
      assert.deepEqual([failed.status, failed.updated_at], [2, seconds(clock.now())]);
      assert.equal(errorOf(await cancel(id), 409), `positioning session ${id} is not active (failed)`);
    }
    assert.equal((await session(t, token, cancelled)).status, 3, 'an ended session keeps its state');
    assert.equal(clock.pendingTimers(), timers);
    const listed = result<{ status: number }[]>(await list(`?supi=${supi(16)}`));
    assert.deepEqual(
      listed.map((item) => item.status),
      [3, 2, 2],
    );
  });

  it('fails a periodic session at its next evaluation when the subscriber vanished another way', async () => {
    connectIn(t, 17, HARBOUR);
    const id = await openSession(t, token, {
      request_type: 'periodic',
      supi: supi(17),
      interval_seconds: 10,
    });
    // As another process sharing the database would: no notification reaches this one.
    await t.db.deleteFrom('subscribers').where('imsi', '=', imsi(17)).execute();
    await advance(10_000);
    assert.equal((await session(t, token, id)).status, 2);
    await advance(10_000);
    assert.equal((await session(t, token, id)).updated_at, seconds(clock.now() - 10_000), 'no timer left');
  });
});

describe('positioning sessions: retention', () => {
  it('removes sessions ended more than 30 days ago and keeps active ones', async () => {
    connectIn(t, 18, HARBOUR);
    const ended = await openSession(t, token, { request_type: 'triggered', supi: supi(18) });
    await cancel(ended);
    const active = await openSession(t, token, { request_type: 'triggered', supi: supi(18) });
    await advance(30 * 86_400_000 + 1);
    const deleted = await t.retention.enforce();
    assert.ok((deleted.positioning_sessions ?? 0) >= 1, 'retention deleted the ended session');
    const gone = await t.request({ method: 'GET', url: `/api/beta/positioning/sessions/${ended}`, token });
    assert.equal(gone.statusCode, 404);
    assert.equal((await session(t, token, active)).status, 0);
    await cancel(active);
  });
});
