import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createFlowReportsRepository } from '../../src/resources/flow-reports/flow-reports.repository.ts';
import { ROLE } from '../../src/identity/roles.ts';
import { RECORD_RETENTION } from '../../src/records/records-retention.ts';
import { DAY_MS } from '../../src/validation/calendar-date.ts';
import { onPostgres } from '../helpers/postgres-test-database.ts';
import { at, flowReport, IMSI_1, radioEvent, radioLog, subscriberLog } from '../helpers/records.ts';
import {
  auditEntries,
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

const POLICIES = [
  { path: '/api/v1/ran/events/retention', recordType: 'radio_events', label: 'radio event', days: 7 },
  {
    path: '/api/v1/logs/subscribers/retention',
    recordType: 'subscriber_logs',
    label: 'subscriber log',
    days: 7,
  },
  { path: '/api/v1/logs/radio/retention', recordType: 'radio_logs', label: 'radio log', days: 7 },
  { path: '/api/v1/flow-reports/retention', recordType: 'flow_reports', label: 'flow report', days: 7 },
  {
    path: '/api/v1/subscriber-usage/retention',
    recordType: 'subscriber_usage',
    label: 'subscriber usage record',
    days: 365,
  },
];

describe('record retention', () => {
  let t: TestApp;
  let admin: string;
  let readOnly: string;
  let manager: string;
  const now = at('2026-11-22T10:00:00.000Z');
  const clock = manualClock(now);

  before(async () => {
    t = await createTestApp({ clock });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly);
    manager = await userWithRole(t, admin, ROLE.networkManager);
  });
  after(() => t.close());

  for (const { path, recordType, label, days } of POLICIES) {
    describe(`GET ${path}`, () => {
      it(`answers the default of ${days} days to any role`, async () => {
        const response = await t.request({ method: 'GET', url: path, token: readOnly });
        assert.deepEqual([response.statusCode, response.json()], [200, { result: { days } }]);
      });
    });

    describe(`PUT ${path}`, () => {
      it('sets the days and audits the change', async () => {
        const response = await t.request({ method: 'PUT', url: path, token: manager, payload: { days: 30 } });
        assert.deepEqual(response.json(), { result: { message: `${label} retention set to 30 days` } });
        const read = await t.request({ method: 'GET', url: path, token: readOnly });
        assert.deepEqual(result(read), { days: 30 });
        const [entry] = await auditEntries(t, admin);
        assert.deepEqual(entry && [entry.action, entry.actor], [
          `update_${recordType}_retention`,
          'role3@example.com',
        ]);
        await t.request({ method: 'PUT', url: path, token: manager, payload: { days } });
      });

      it('takes only a positive integer', async () => {
        for (const days of [0, -1, 1.5, '7']) {
          const response = await t.request({ method: 'PUT', url: path, token: manager, payload: { days } });
          assert.deepEqual(
            [response.statusCode, response.json()],
            [400, { error: 'days must be a positive integer' }],
          );
        }
      });

      it('is refused to the read-only role', async () => {
        const response = await t.request({ method: 'PUT', url: path, token: readOnly, payload: { days: 3 } });
        assert.equal(response.statusCode, 403);
      });
    });
  }

  describe('enforcement', () => {
    async function total(url: string): Promise<number> {
      const response = await t.request({ method: 'GET', url, token: readOnly });
      return result<{ total_count: number }>(response).total_count;
    }

    it('deletes records older than the retention and keeps those at the cutoff', async () => {
      const cutoff = now - 7 * DAY_MS;
      for (const timestamp of [cutoff - 1, cutoff]) {
        t.records.recordRadioEvent(radioEvent({ timestamp }));
        t.records.recordSubscriberLog(subscriberLog({ timestamp }));
        t.records.recordRadioLog(radioLog({ timestamp }));
        t.records.recordFlowReports([flowReport({ startTime: timestamp - 10, endTime: timestamp })]);
      }
      await t.records.flush();
      const deleted = await t.retention.enforce();
      assert.equal(deleted.radio_events, 1);
      assert.equal(deleted.subscriber_logs, 1);
      assert.equal(deleted.radio_logs, 1);
      assert.equal(deleted.flow_reports, 1);
      assert.equal(await total('/api/v1/ran/events'), 1);
      assert.equal(await total('/api/v1/logs/subscribers'), 1);
      assert.equal(await total('/api/v1/logs/radio'), 1);
      assert.equal(await total('/api/v1/flow-reports?start=2026-11-01'), 1);
    });

    it('deletes a day of usage once the whole day lies before the cutoff', async () => {
      // 365 days before now is 2025-11-22T10:00Z: the day 2025-11-21 has ended by then, 2025-11-22 has not.
      for (const day of ['2025-11-21', '2025-11-22']) {
        t.records.recordUsage({ imsi: IMSI_1, uplinkBytes: 1, downlinkBytes: 1, at: at(`${day}T12:00:00Z`) });
      }
      await t.records.flush();
      const deleted = await t.retention.enforce();
      assert.equal(deleted.subscriber_usage, 1);
      const response = await t.request({
        method: 'GET',
        url: '/api/v1/subscriber-usage?start=2025-11-01&end=2025-11-30',
        token: readOnly,
      });
      assert.deepEqual(result<Record<string, unknown>[]>(response).flatMap(Object.keys), ['2025-11-22']);
    });

    it('follows a changed retention at the next run', async () => {
      t.records.recordFlowReports([flowReport({ endTime: now - 2 * DAY_MS })]);
      await t.records.flush();
      await t.request({
        method: 'PUT',
        url: '/api/v1/flow-reports/retention',
        token: manager,
        payload: { days: 1 },
      });
      assert.ok(((await t.retention.enforce()).flow_reports ?? 0) >= 1);
      assert.equal(await total('/api/v1/flow-reports?start=2026-11-01'), 0);
      await t.request({
        method: 'PUT',
        url: '/api/v1/flow-reports/retention',
        token: manager,
        payload: { days: 7 },
      });
    });

    it('deletes in bounded chunks, oldest first, until nothing expired is left', async () => {
      const old = now - 30 * DAY_MS;
      const count = RECORD_RETENTION.flowReports.chunk * 3 + 5;
      const reports = Array.from({ length: count }, (_, i) =>
        flowReport({ startTime: old + i - 10, endTime: old + i }),
      );
      for (let i = 0; i < reports.length; i += 1000) {
        while (!t.records.recordFlowReports(reports.slice(i, i + 1000))) await t.records.whenWritable(1000);
      }
      await t.records.flush();
      const repository = createFlowReportsRepository(t.db);
      if (onPostgres) {
        // Whole expired days go at once, with their partitions (migration 0017), whatever the chunk.
        assert.equal(await repository.deleteOlderThan(now - 7 * DAY_MS, 10), count);
        assert.equal((await t.retention.enforce()).flow_reports, 0);
        return;
      }
      assert.equal(await repository.deleteOlderThan(now - 7 * DAY_MS, 10), 10);
      const window = { from: 0, before: now };
      const [oldest] = await repository.list(window, 1, count - 11);
      assert.equal(oldest?.endTime, old + 10);
      assert.equal((await t.retention.enforce()).flow_reports, count - 10);
    });
  });
});
