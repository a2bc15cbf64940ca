import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import {
  createApiToken,
  ADMIN,
  createTestApp,
  initialize,
  manualClock,
  result,
  type TestApp,
} from '../helpers/test-app.ts';

interface Entry {
  id: number;
  timestamp: string;
  level: string;
  actor: string;
  action: string;
  ip: string;
  details: string;
}

const DAY = 86_400_000;

describe('audit logs', () => {
  let t: TestApp;
  let admin: string;
  const clock = manualClock(Date.parse('2026-11-20T23:59:59.999Z'));

  beforeEach(async () => {
    clock.set(Date.parse('2026-11-20T23:59:59.999Z'));
    await t?.close();
    t = await createTestApp({ clock });
    // Two entries on 2026-11-20 at its last millisecond; an API token outlives the clock moves below.
    const bearer = await initialize(t);
    admin = await createApiToken(t, bearer, 'audit test');
    clock.set(Date.parse('2026-11-21T00:00:00.000Z'));
    await t.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      payload: { email: 'b@example.com', password: 'password1', role_id: 2 },
    });
    clock.set(Date.parse('2026-11-22T12:00:00.000Z'));
    await t.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      payload: { email: 'c@example.com', password: 'password1', role_id: 3 },
    });
  });
  after(() => t.close());

  const list = async (query = '') =>
    result<{ items: Entry[]; total_count: number; page: number; per_page: number }>(
      await t.request({ method: 'GET', url: `/api/v1/logs/audit${query}`, token: admin }),
    );

  describe('GET /api/v1/logs/audit', () => {
    it('lists entries newest first with the record fields and timestamp form', async () => {
      const page = await list();
      assert.equal(page.total_count, 4);
      const [newest] = page.items;
      assert.deepEqual(Object.keys(newest ?? {}).sort(), [
        'action',
        'actor',
        'details',
        'id',
        'ip',
        'level',
        'timestamp',
      ]);
      assert.equal(newest?.timestamp, '2026-11-22T12:00:00.000+00:00');
      assert.equal(newest?.level, 'INFO');
      assert.equal(newest?.actor, ADMIN.email);
      const ids = page.items.map((e) => e.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
      );
    });

    it('filters by actor', async () => {
      assert.equal((await list(`?actor=${ADMIN.email}`)).total_count, 4);
      assert.equal((await list('?actor=nobody@example.com')).total_count, 0);
    });

    it('takes start as inclusive and end as the whole end day, in UTC', async () => {
      assert.deepEqual(
        (await list('?start=2026-11-21')).items.map((e) => e.timestamp),
        ['2026-11-22T12:00:00.000+00:00', '2026-11-21T00:00:00.000+00:00'],
      );
      assert.deepEqual(
        (await list('?end=2026-11-20')).items.map((e) => e.timestamp),
        ['2026-11-20T23:59:59.999+00:00', '2026-11-20T23:59:59.999+00:00'],
      );
      assert.equal((await list('?start=2026-11-21&end=2026-11-21')).total_count, 1);
    });

    it('rejects badly formed or impossible dates with 400 naming the parameter', async () => {
      for (const [query, name] of [
        ['start=21-11-2026', 'start'],
        ['end=2026-02-30', 'end'],
      ] as const) {
        const response = await t.request({ method: 'GET', url: `/api/v1/logs/audit?${query}`, token: admin });
        assert.equal(response.statusCode, 400, query);
        assert.match(response.json<{ error: string }>().error, new RegExp(name));
      }
    });

    it('paginates', async () => {
      const page = await list('?page=2&per_page=3');
      assert.equal(page.items.length, 1);
      assert.equal(page.page, 2);
      assert.equal(page.per_page, 3);
      assert.equal(page.total_count, 4);
    });

    it('offers no way to delete entries', async () => {
      const response = await t.request({ method: 'DELETE', url: '/api/v1/logs/audit', token: admin });
      assert.equal(response.statusCode, 405);
    });
  });

  describe('GET|PUT /api/v1/logs/audit/retention', () => {
    it('defaults to 90 days and stores a new value, audited', async () => {
      const before = await t.request({ method: 'GET', url: '/api/v1/logs/audit/retention', token: admin });
      assert.deepEqual(before.json(), { result: { days: 90 } });
      const put = await t.request({
        method: 'PUT',
        url: '/api/v1/logs/audit/retention',
        token: admin,
        payload: { days: 30 },
      });
      assert.equal(put.statusCode, 200);
      assert.equal(typeof result(put).message, 'string');
      const after = await t.request({ method: 'GET', url: '/api/v1/logs/audit/retention', token: admin });
      assert.deepEqual(after.json(), { result: { days: 30 } });
      assert.equal((await list()).items[0]?.action, 'update_audit_logs_retention');
    });

    it('accepts only a positive integer', async () => {
      for (const days of [0, -1, 1.5, '7', null]) {
        const response = await t.request({
          method: 'PUT',
          url: '/api/v1/logs/audit/retention',
          token: admin,
          payload: { days },
        });
        assert.equal(response.statusCode, 400, String(days));
        assert.match(response.json<{ error: string }>().error, /^days /);
      }
    });
  });

  describe('retention enforcement', () => {
    it('deletes entries older than the policy, in chunks, and keeps the rest', async () => {
      const rows = Array.from({ length: 2500 }, (_, i) => ({
        timestamp: Date.parse('2026-01-01T00:00:00Z') + i,
        level: 'INFO',
        actor: 'old@example.com',
        action: 'create_user',
        ip: '127.0.0.1',
        details: 'old',
      }));
      for (let i = 0; i < rows.length; i += 500)
        await t.db
          .insertInto('audit_logs')
          .values(rows.slice(i, i + 500))
          .execute();
      await t.request({
        method: 'PUT',
        url: '/api/v1/logs/audit/retention',
        token: admin,
        payload: { days: 2 },
      });
      const deleted = await t.retention.enforce();
      // Now is 2026-11-22T12:00Z: the cutoff is 2026-11-20T12:00Z, so only the January rows go.
      assert.equal(deleted.audit_logs, 2500);
      assert.deepEqual(
        (await list()).items.map((e) => e.timestamp),
        [
          '2026-11-22T12:00:00.000+00:00',
          '2026-11-22T12:00:00.000+00:00',
          '2026-11-21T00:00:00.000+00:00',
          '2026-11-20T23:59:59.999+00:00',
          '2026-11-20T23:59:59.999+00:00',
        ],
      );
      clock.advance(DAY * 2 + 1);
      assert.equal(
        (await t.retention.enforce()).audit_logs,
        5,
        'all older than two days one millisecond later',
      );
    });
  });
});
