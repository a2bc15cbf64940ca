import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import { at, RADIO_1, radioLog } from '../helpers/records.ts';
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
  ran_id: string;
  event: string;
  direction: string;
  raw: string;
  details: string;
}
interface Page {
  items: LogItem[];
  total_count: number;
}

const RADIO_2 = '001:01:0000002a';

describe('radio logs', () => {
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
    const response = await t.request({ method: 'GET', url: `/api/v1/logs/radio${query}`, token: readOnly });
    assert.equal(response.statusCode, 200, response.body);
    return result<Page>(response);
  }

  describe('GET /api/v1/logs/radio', () => {
    beforeEach(async () => {
      await t.request({ method: 'DELETE', url: '/api/v1/logs/radio', token: admin });
    });

    it('shapes each log, level info unless given, and lists newest first', async () => {
      t.records.recordRadioLog(
        radioLog({ event: 'NG Setup', timestamp: at('2026-11-22T10:00:00.000Z'), raw: Buffer.from([0, 21]) }),
      );
      t.records.recordRadioLog(
        radioLog({ event: 'NG Reset', level: 'warn', timestamp: at('2026-11-22T10:00:01.000Z') }),
      );
      await t.records.flush();
      const page = await list();
      assert.deepEqual(
        page.items.map((item) => [item.event, item.level]),
        [
          ['NG Reset', 'warn'],
          ['NG Setup', 'info'],
        ],
      );
      const { id, ...rest } = page.items[1] as LogItem;
      assert.equal(typeof id, 'number');
      assert.deepEqual(rest, {
        timestamp: '2026-11-22T10:00:00.000+00:00',
        level: 'info',
        ran_id: RADIO_1,
        event: 'NG Setup',
        direction: 'inbound',
        raw: 'ABU=',
        details: '{}',
      });
    });

    it('filters by ran_id (hex in any case), direction, event and an inclusive timestamp window', async () => {
      t.records.recordRadioLog(
        radioLog({ ranId: RADIO_1, event: 'NG Setup', timestamp: at('2026-11-22T09:00:00Z') }),
      );
      t.records.recordRadioLog(
        radioLog({
          ranId: RADIO_2,
          event: 'NG Setup',
          direction: 'outbound',
          timestamp: at('2026-11-22T09:00:01Z'),
        }),
      );
      t.records.recordRadioLog(
        radioLog({ ranId: RADIO_2, event: 'Error Indication', timestamp: at('2026-11-22T09:00:02Z') }),
      );
      await t.records.flush();
      const events = async (query: string) =>
        (await list(query)).items.map((item) => `${item.ran_id} ${item.event}`);
      assert.deepEqual(await events('?ran_id=001:01:0000002A'), [
        `${RADIO_2} Error Indication`,
        `${RADIO_2} NG Setup`,
      ]);
      assert.deepEqual(await events('?direction=outbound'), [`${RADIO_2} NG Setup`]);
      assert.deepEqual(await events('?event=NG%20Setup'), [`${RADIO_2} NG Setup`, `${RADIO_1} NG Setup`]);
      assert.deepEqual(
        await events('?timestamp_from=2026-11-22T09:00:01Z&timestamp_to=2026-11-22T09:00:01Z'),
        [`${RADIO_2} NG Setup`],
      );
    });

    for (const [query, error] of [
      ['?ran_id=gnb-1', 'query parameter ran_id must be <mcc>:<mnc>:<node id in hex>'],
      ['?direction=uplink', 'query parameter direction must be inbound or outbound'],
      ['?timestamp_to=not-a-time', 'timestamp_to must be an RFC 3339 timestamp (2026-11-22T10:15:30Z)'],
      ['?event=', 'query parameter event must have 1 to 128 characters'],
    ] as const) {
      it(`answers 400 naming the parameter for ${query}`, async () => {
        assert.deepEqual(await answerTo(t, `/api/v1/logs/radio${query}`, readOnly), [400, { error }]);
      });
    }
  });

  describe('DELETE /api/v1/logs/radio', () => {
    it('deletes every radio log and audits it', async () => {
      t.records.recordRadioLog(radioLog());
      await t.records.flush();
      const response = await t.request({ method: 'DELETE', url: '/api/v1/logs/radio', token: manager });
      assert.equal(response.statusCode, 200);
      assert.equal((await list()).total_count, 0);
      const [entry] = await auditEntries(t, admin);
      assert.equal(entry?.action, 'clear_radio_logs');
    });

    it('is refused to the read-only role', async () => {
      const response = await t.request({ method: 'DELETE', url: '/api/v1/logs/radio', token: readOnly });
      assert.equal(response.statusCode, 403);
    });
  });
});
