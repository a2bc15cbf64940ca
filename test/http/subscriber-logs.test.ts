import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import { at, IMSI_1, IMSI_2, subscriberLog } from '../helpers/records.ts';
import {
  answerTo,
  auditEntries,
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

interface LogItem {
  id: number;
  timestamp: string;
  level: string;
  imsi: string;
  event: string;
  direction: string;
  raw: string;
  details: string;
}
interface Page {
  items: LogItem[];
  page: number;
  per_page: number;
  total_count: number;
}

describe('subscriber logs', () => {
  let t: TestApp;
  let admin: string;
  let readOnly: string;
  let manager: string;

  before(async () => {
    t = await createTestApp({ clock: manualClock() });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly);
    manager = await userWithRole(t, admin, ROLE.networkManager);
  });
  after(() => t.close());

  async function list(query = ''): Promise<Page> {
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/logs/subscribers${query}`,
      token: readOnly,
    });
    assert.equal(response.statusCode, 200, response.body);
    return result<Page>(response);
  }

  describe('GET /api/v1/logs/subscribers', () => {
    beforeEach(async () => {
      await t.request({ method: 'DELETE', url: '/api/v1/logs/subscribers', token: admin });
    });

    it('shapes each log and lists newest first', async () => {
      t.records.recordSubscriberLog(
        subscriberLog({
          event: 'Registration request',
          timestamp: at('2026-11-22T10:00:00.000Z'),
          raw: Buffer.from([0x7e, 0x00, 0x41]),
          details: { cause: 'initial' },
        }),
      );
      t.records.recordSubscriberLog(
        subscriberLog({
          event: 'Registration accept',
          direction: 'outbound',
          timestamp: at('2026-11-22T10:00:00.250Z'),
        }),
      );
      await t.records.flush();
      const page = await list();
      assert.equal(page.total_count, 2);
      assert.deepEqual(
        page.items.map((item) => item.event),
        ['Registration accept', 'Registration request'],
      );
      const { id, ...rest } = page.items[1] as LogItem;
      assert.equal(typeof id, 'number');
      assert.deepEqual(rest, {
        timestamp: '2026-11-22T10:00:00.000+00:00',
        level: 'info',
        imsi: IMSI_1,
        event: 'Registration request',
        direction: 'inbound',
        raw: 'fgBB',
        details: '{"cause":"initial"}',
      });
    });

    it('filters by imsi, direction, event and an inclusive timestamp window', async () => {
      const log = (imsi: string, event: string, direction: 'inbound' | 'outbound', time: string) =>
        t.records.recordSubscriberLog(subscriberLog({ imsi, event, direction, timestamp: at(time) }));
      log(IMSI_1, 'Registration request', 'inbound', '2026-11-22T09:00:00Z');
      log(IMSI_1, 'Registration accept', 'outbound', '2026-11-22T09:30:00Z');
      log(IMSI_2, 'Registration request', 'inbound', '2026-11-22T10:00:00Z');
      await t.records.flush();
      const events = async (query: string) =>
        (await list(query)).items.map((item) => `${item.imsi.slice(-1)} ${item.event}`);
      assert.deepEqual(await events(`?imsi=${IMSI_2}`), ['2 Registration request']);
      assert.deepEqual(await events('?direction=outbound'), ['1 Registration accept']);
      assert.deepEqual(await events('?event=Registration%20request'), [
        '2 Registration request',
        '1 Registration request',
      ]);
      assert.deepEqual(await events(`?imsi=${IMSI_1}&event=Registration%20request`), [
        '1 Registration request',
      ]);
      assert.deepEqual(
        await events('?timestamp_from=2026-11-22T09:30:00Z&timestamp_to=2026-11-22T10:00:00Z'),
        ['2 Registration request', '1 Registration accept'],
      );
      assert.deepEqual(await events('?imsi=001010000000009'), []);
    });

    it('lists the rows of a device the core could not map (empty imsi, network.md 4); imsi filters pass them by', async () => {
      t.records.recordSubscriberLog(subscriberLog({ imsi: IMSI_1, timestamp: at('2026-11-22T09:00:00Z') }));
      t.records.recordSubscriberLog(
        subscriberLog({
          imsi: '',
          level: 'warn',
          event: 'Registration Reject',
          direction: 'outbound',
          timestamp: at('2026-11-22T09:00:01Z'),
          details: { suci: 'suci-0-001-01-0-1-7-00aa', cause: '5GS services not allowed (7)' },
        }),
      );
      await t.records.flush();
      const [unmapped, known] = (await list()).items;
      assert.deepEqual(
        [unmapped?.imsi, unmapped?.level, unmapped?.event, JSON.parse(unmapped?.details ?? '{}')],
        [
          '',
          'warn',
          'Registration Reject',
          { suci: 'suci-0-001-01-0-1-7-00aa', cause: '5GS services not allowed (7)' },
        ],
      );
      assert.equal(known?.level, 'info');
      assert.deepEqual(
        (await list(`?imsi=${IMSI_1}`)).items.map((item) => item.imsi),
        [IMSI_1],
      );
      assert.equal((await list('?event=Registration%20Reject')).total_count, 1);
    });

    for (const [query, error] of [
      ['?imsi=12345', 'query parameter imsi must be 15 digits'],
      ['?direction=sideways', 'query parameter direction must be inbound or outbound'],
      ['?timestamp_from=2026-11-22', 'timestamp_from must be an RFC 3339 timestamp (2026-11-22T10:15:30Z)'],
      ['?per_page=101', 'query parameter per_page must be <= 100'],
    ] as const) {
      it(`answers 400 naming the parameter for ${query}`, async () => {
        assert.deepEqual(await answerTo(t, `/api/v1/logs/subscribers${query}`, readOnly), [400, { error }]);
      });
    }
  });

  describe('DELETE /api/v1/logs/subscribers', () => {
    it('deletes every subscriber log and audits it', async () => {
      t.records.recordSubscriberLog(subscriberLog());
      await t.records.flush();
      const before = (await list()).total_count;
      const response = await t.request({ method: 'DELETE', url: '/api/v1/logs/subscribers', token: manager });
      assert.deepEqual(response.json(), { result: { message: `all subscriber logs deleted (${before})` } });
      assert.equal((await list()).total_count, 0);
      const [entry] = await auditEntries(t, admin);
      assert.equal(entry?.action, 'clear_subscriber_logs');
    });

    it('is refused to the read-only role', async () => {
      const response = await t.request({
        method: 'DELETE',
        url: '/api/v1/logs/subscribers',
        token: readOnly,
      });
      assert.equal(response.statusCode, 403);
    });
  });
});
