import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import { at, IMSI_1, IMSI_2 } from '../helpers/records.ts';
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

type Totals = { uplink_bytes: number; downlink_bytes: number; total_bytes: number };

// The test clock says 2026-11-22T10:00:00Z: the default window is 2026-11-15 to 2026-11-22.
describe('subscriber usage', () => {
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

  async function usage(query = ''): Promise<Record<string, Totals>[]> {
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/subscriber-usage${query}`,
      token: readOnly,
    });
    assert.equal(response.statusCode, 200, response.body);
    return result<Record<string, Totals>[]>(response);
  }

  async function add(imsi: string, time: string, up: number, down: number): Promise<void> {
    assert.equal(t.records.recordUsage({ imsi, uplinkBytes: up, downlinkBytes: down, at: at(time) }), true);
  }

  const totals = (up: number, down: number): Totals => ({
    uplink_bytes: up,
    downlink_bytes: down,
    total_bytes: up + down,
  });

  describe('GET /api/v1/subscriber-usage', () => {
    beforeEach(async () => {
      await t.request({ method: 'DELETE', url: '/api/v1/subscriber-usage', token: admin });
    });

    it('sums bytes per UTC day by default, ascending, counting each day edge in its own day', async () => {
      await add(IMSI_1, '2026-11-20T23:59:59.999Z', 100, 1000);
      await add(IMSI_1, '2026-11-21T00:00:00.000Z', 1, 10);
      await add(IMSI_2, '2026-11-21T12:00:00.000Z', 2, 20);
      await add(IMSI_1, '2026-11-21T18:00:00.000Z', 4, 40);
      await t.records.flush();
      assert.deepEqual(await usage(), [{ '2026-11-20': totals(100, 1000) }, { '2026-11-21': totals(7, 70) }]);
      assert.deepEqual(await usage('?group_by=day'), await usage());
    });

    it('sums bytes per subscriber with group_by=subscriber, keyed by IMSI ascending', async () => {
      await add(IMSI_2, '2026-11-21T12:00:00Z', 2, 20);
      await add(IMSI_1, '2026-11-20T12:00:00Z', 1, 10);
      await add(IMSI_1, '2026-11-22T09:00:00Z', 3, 30);
      await t.records.flush();
      assert.deepEqual(await usage('?group_by=subscriber'), [
        { [IMSI_1]: totals(4, 40) },
        { [IMSI_2]: totals(2, 20) },
      ]);
    });

    it('restricts to one subscriber with subscriber', async () => {
      await add(IMSI_1, '2026-11-21T12:00:00Z', 1, 10);
      await add(IMSI_2, '2026-11-21T12:00:00Z', 2, 20);
      await t.records.flush();
      assert.deepEqual(await usage(`?subscriber=${IMSI_2}`), [{ '2026-11-21': totals(2, 20) }]);
      assert.deepEqual(await usage(`?subscriber=${IMSI_2}&group_by=subscriber`), [
        { [IMSI_2]: totals(2, 20) },
      ]);
      assert.deepEqual(await usage('?subscriber=001010000000009'), []);
    });

    it('selects days from start to end, both included; by default the last 7 days and today', async () => {
      for (const day of [
        '2026-11-09',
        '2026-11-10',
        '2026-11-14',
        '2026-11-15',
        '2026-11-22',
        '2026-11-23',
      ]) {
        await add(IMSI_1, `${day}T12:00:00Z`, 1, 1);
      }
      await t.records.flush();
      const days = async (query: string) => (await usage(query)).flatMap(Object.keys);
      assert.deepEqual(await days(''), ['2026-11-15', '2026-11-22']);
      assert.deepEqual(await days('?start=2026-11-10&end=2026-11-14'), ['2026-11-10', '2026-11-14']);
      assert.deepEqual(await days('?start=2026-11-23&end=2026-11-23'), ['2026-11-23']);
      assert.deepEqual(
        (await usage('?start=2026-11-01&end=2026-11-30&group_by=subscriber')).map((group) => group[IMSI_1]),
        [totals(6, 6)],
      );
    });

    it('adds to the same day counter across batches', async () => {
      await add(IMSI_1, '2026-11-21T01:00:00Z', 5, 50);
      await t.records.flush();
      await add(IMSI_1, '2026-11-21T02:00:00Z', 5, 50);
      await t.records.flush();
      assert.deepEqual(await usage(), [{ '2026-11-21': totals(10, 100) }]);
    });

    for (const [query, error] of [
      ['?group_by=month', 'query parameter group_by must be day or subscriber'],
      ['?subscriber=123', 'query parameter subscriber must be 15 digits'],
      ['?start=2026/11/01', 'query parameter start must be a date in the form YYYY-MM-DD'],
      ['?end=2026-13-01', 'end must be a date in the form YYYY-MM-DD'],
      ['?start=2026-11-10&end=2026-11-09', 'start must not be after end'],
    ] as const) {
      it(`answers 400 naming the parameter for ${query}`, async () => {
        assert.deepEqual(await answerTo(t, `/api/v1/subscriber-usage${query}`, readOnly), [400, { error }]);
      });
    }
  });

  describe('DELETE /api/v1/subscriber-usage', () => {
    it('clears the usage of every subscriber and audits it', async () => {
      await add(IMSI_1, '2026-11-21T01:00:00Z', 5, 50);
      await add(IMSI_2, '2026-11-21T01:00:00Z', 5, 50);
      const response = await t.request({ method: 'DELETE', url: '/api/v1/subscriber-usage', token: manager });
      assert.deepEqual(response.json(), {
        result: { message: 'subscriber usage cleared (2 day counters deleted)' },
      });
      assert.deepEqual(await usage('?start=2000-01-01'), []);
      const [entry] = await auditEntries(t, admin);
      assert.equal(entry?.action, 'clear_subscriber_usage');
    });

    it('is refused to the read-only role', async () => {
      const response = await t.request({
        method: 'DELETE',
        url: '/api/v1/subscriber-usage',
        token: readOnly,
      });
      assert.equal(response.statusCode, 403);
    });
  });
});
