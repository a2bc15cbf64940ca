import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedRecords } from '../../scripts/record-generator.ts';
import { createTestApp, initialize, manualClock, result, type TestApp } from '../helpers/test-app.ts';

describe('seed:records (development data through the ingestion interface)', () => {
  let t: TestApp;
  let token: string;
  const clock = manualClock();

  before(async () => {
    t = await createTestApp({ clock });
    token = await initialize(t);
    await seedRecords(
      t.records,
      { radioEvents: 300, flows: 1001, subscribers: 20, days: 3, subscriberLogs: 40, radioLogs: 7 },
      { now: clock.now() },
    );
  });
  after(() => t.close());

  async function total(url: string): Promise<number> {
    const response = await t.request({ method: 'GET', url, token });
    assert.equal(response.statusCode, 200, response.body);
    return result<{ total_count: number }>(response).total_count;
  }

  it('writes the requested number of each record, all readable through the API', async () => {
    assert.equal(await total('/api/v1/ran/events?per_page=1'), 300);
    assert.equal(await total('/api/v1/flow-reports?per_page=1'), 1001);
    assert.equal(await total('/api/v1/logs/subscribers?per_page=1'), 40);
    assert.equal(await total('/api/v1/logs/radio?per_page=1'), 7);
    const usage = await t.request({
      method: 'GET',
      url: '/api/v1/subscriber-usage?group_by=subscriber',
      token,
    });
    assert.equal(result<unknown[]>(usage).length, 20);
  });

  it('writes NGAP events with plausible message types and PDU headers', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/ran/events?per_page=100', token });
    const items = result<{ items: { protocol: string; message_type: string; raw: string }[] }>(
      response,
    ).items;
    for (const item of items) {
      assert.equal(item.protocol, 'NGAP');
      const raw = Buffer.from(item.raw, 'base64');
      assert.ok([0x00, 0x20, 0x40].includes(raw[0] ?? -1), item.message_type);
      assert.equal(raw[3], raw.length - 4, 'open type length covers the value');
    }
  });

  it('spreads flows over plausible protocols and both directions', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/flow-reports/stats', token });
    const stats = result<{ protocols: { protocol: number }[]; top_destinations_uplink: unknown[] }>(response);
    assert.deepEqual(stats.protocols.map((p) => p.protocol).slice(0, 2), [6, 17]);
    assert.equal(stats.top_destinations_uplink.length, 10);
    assert.ok((await total('/api/v1/flow-reports?per_page=1&direction=downlink')) >= 500);
  });
});
