import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import { at, radioEvent } from '../helpers/records.ts';
import {
  auditEntries,
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

interface EventItem {
  id: number;
  timestamp: string;
  protocol: string;
  message_type: string;
  direction: string;
  raw: string;
  details: string;
}
interface Page {
  items: EventItem[];
  page: number;
  per_page: number;
  total_count: number;
}

describe('radio events', () => {
  let t: TestApp;
  let admin: string;
  let readOnly: string;
  let manager: string;
  const clock = manualClock();

  before(async () => {
    t = await createTestApp({ clock });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly);
    manager = await userWithRole(t, admin, ROLE.networkManager);
  });
  after(() => t.close());

  async function clear(): Promise<void> {
    const response = await t.request({ method: 'DELETE', url: '/api/v1/ran/events', token: admin });
    assert.equal(response.statusCode, 200);
  }

  async function list(query = '', token = readOnly): Promise<Page> {
    const response = await t.request({ method: 'GET', url: `/api/v1/ran/events${query}`, token });
    assert.equal(response.statusCode, 200, response.body);
    return result<Page>(response);
  }

  async function status(query: string): Promise<{ status: number; error: string }> {
    const response = await t.request({ method: 'GET', url: `/api/v1/ran/events${query}`, token: readOnly });
    return { status: response.statusCode, error: response.json<{ error: string }>().error };
  }

  describe('GET /api/v1/ran/events', () => {
    beforeEach(clear);

    it('answers an empty page when nothing was recorded', async () => {
      assert.deepEqual(await list(), { items: [], page: 1, per_page: 25, total_count: 0 });
    });

    it('shapes each event: integer id, timestamp with offset and milliseconds, base64 raw, JSON details', async () => {
      t.records.recordRadioEvent(
        radioEvent({
          timestamp: at('2026-11-22T10:15:30.123Z'),
          raw: Buffer.from([0x00, 0x15, 0x00, 0x35]),
          details: { gnb: 'gnb-1' },
        }),
      );
      await t.records.flush();
      const [item] = (await list()).items;
      assert.deepEqual(item && { ...item, id: typeof item.id }, {
        id: 'number',
        timestamp: '2026-11-22T10:15:30.123+00:00',
        protocol: 'NGAP',
        message_type: 'NGSetupRequest',
        direction: 'inbound',
        raw: 'ABUANQ==',
        details: '{"gnb":"gnb-1"}',
      });
    });

    it('lists newest first by timestamp, then by id, with ids that grow', async () => {
      t.records.recordRadioEvent(radioEvent({ messageType: 'b', timestamp: at('2026-11-22T08:00:00Z') }));
      t.records.recordRadioEvent(radioEvent({ messageType: 'c', timestamp: at('2026-11-22T09:00:00Z') }));
      t.records.recordRadioEvent(radioEvent({ messageType: 'a', timestamp: at('2026-11-22T07:00:00Z') }));
      t.records.recordRadioEvent(radioEvent({ messageType: 'd', timestamp: at('2026-11-22T09:00:00Z') }));
      await t.records.flush();
      const { items } = await list();
      assert.deepEqual(
        items.map((item) => item.message_type),
        ['d', 'c', 'b', 'a'],
      );
      // Recorded in the order b, c, a, d: ids grow in that order.
      const id = new Map(items.map((item) => [item.message_type, item.id]));
      const [b = 0, c = 0, a = 0, d = 0] = ['b', 'c', 'a', 'd'].map((type) => id.get(type));
      assert.ok(b < c && c < a && a < d);
    });

    it('keeps growing ids after a clear', async () => {
      t.records.recordRadioEvent(radioEvent());
      await t.records.flush();
      const before = (await list()).items[0]?.id ?? 0;
      await clear();
      t.records.recordRadioEvent(radioEvent());
      await t.records.flush();
      assert.ok(((await list()).items[0]?.id ?? 0) > before);
    });

    it('filters by protocol, direction and message_type, alone and together', async () => {
      t.records.recordRadioEvent(radioEvent({ protocol: 'NGAP', direction: 'inbound', messageType: 'A' }));
      t.records.recordRadioEvent(radioEvent({ protocol: 'NGAP', direction: 'outbound', messageType: 'B' }));
      t.records.recordRadioEvent(radioEvent({ protocol: 'NAS', direction: 'inbound', messageType: 'B' }));
      await t.records.flush();
      const types = async (query: string) => (await list(query)).items.map((i) => i.message_type).sort();
      assert.deepEqual(await types('?protocol=NGAP'), ['A', 'B']);
      assert.deepEqual(await types('?protocol=NAS'), ['B']);
      assert.deepEqual(await types('?direction=outbound'), ['B']);
      assert.deepEqual(await types('?message_type=B'), ['B', 'B']);
      assert.deepEqual(await types('?protocol=NGAP&message_type=B&direction=outbound'), ['B']);
      assert.deepEqual(await types('?protocol=SCTP'), []);
      assert.equal((await list('?message_type=B')).total_count, 2);
    });

    it('filters by timestamp_from and timestamp_to, both inclusive to the millisecond', async () => {
      for (const ms of ['10:00:00.000', '10:00:00.001', '10:00:00.999', '10:00:01.000']) {
        t.records.recordRadioEvent(radioEvent({ messageType: ms, timestamp: at(`2026-11-22T${ms}Z`) }));
      }
      await t.records.flush();
      const types = async (query: string) => (await list(query)).items.map((i) => i.message_type).sort();
      assert.deepEqual(
        await types('?timestamp_from=2026-11-22T10:00:00.001Z&timestamp_to=2026-11-22T10:00:00.999Z'),
        ['10:00:00.001', '10:00:00.999'],
      );
      // The same instants in another offset.
      assert.deepEqual(await types('?timestamp_from=2026-11-22T12:00:00.999%2B02:00'), [
        '10:00:00.999',
        '10:00:01.000',
      ]);
      assert.deepEqual(await types('?timestamp_to=2026-11-22T10:00:00Z'), ['10:00:00.000']);
      // A finer fraction keeps the bounds exact: 0.0005 s past the first record excludes it as a lower bound.
      assert.deepEqual(
        await types('?timestamp_from=2026-11-22T10:00:00.0005Z&timestamp_to=2026-11-22T10:00:00.0019Z'),
        ['10:00:00.001'],
      );
    });

    it('reads an unencoded + in the offset (decoded as a space) as the + it was', async () => {
      t.records.recordRadioEvent(radioEvent({ timestamp: at('2026-11-22T10:00:00Z') }));
      await t.records.flush();
      assert.equal((await list('?timestamp_from=2026-11-22T11:00:00+01:00')).total_count, 1);
      assert.equal((await list('?timestamp_from=2026-11-22T11:00:00.001+01:00')).total_count, 0);
    });

    it('pages with page and per_page, counting every match', async () => {
      for (let i = 0; i < 5; i += 1) {
        t.records.recordRadioEvent(
          radioEvent({ messageType: `m${i}`, timestamp: at('2026-11-22T10:00:00Z') + i }),
        );
      }
      await t.records.flush();
      const second = await list('?page=2&per_page=2');
      assert.deepEqual(
        second.items.map((i) => i.message_type),
        ['m2', 'm1'],
      );
      assert.deepEqual(
        { ...second, items: second.items.length },
        { items: 2, page: 2, per_page: 2, total_count: 5 },
      );
      assert.deepEqual((await list('?page=4&per_page=2')).items, []);
      assert.equal((await list('?per_page=100')).per_page, 100);
    });

    for (const [query, error] of [
      ['?per_page=0', 'query parameter per_page must be >= 1'],
      ['?per_page=101', 'query parameter per_page must be <= 100'],
      ['?page=0', 'query parameter page must be >= 1'],
      ['?direction=up', 'query parameter direction must be inbound or outbound'],
      ['?timestamp_from=yesterday', 'timestamp_from must be an RFC 3339 timestamp (2026-11-22T10:15:30Z)'],
      [
        '?timestamp_to=2026-11-22T10:00:00',
        'timestamp_to must be an RFC 3339 timestamp (2026-11-22T10:15:30Z)',
      ],
      [
        '?timestamp_to=2026-02-30T10:00:00Z',
        'timestamp_to must be an RFC 3339 timestamp (2026-11-22T10:15:30Z)',
      ],
      [
        '?timestamp_from=2026-11-22T10:00:01Z&timestamp_to=2026-11-22T10:00:00Z',
        'timestamp_from must not be after timestamp_to',
      ],
      ['?protocol=', 'query parameter protocol must have 1 to 128 characters'],
    ] as const) {
      it(`answers 400 naming the parameter for ${query}`, async () => {
        assert.deepEqual(await status(query), { status: 400, error });
      });
    }

    it('needs credentials', async () => {
      const response = await t.request({ method: 'GET', url: '/api/v1/ran/events' });
      assert.equal(response.statusCode, 401);
    });
  });

  describe('GET /api/v1/ran/events/{id}', () => {
    beforeEach(clear);

    async function recordOne(protocol: string): Promise<number> {
      t.records.recordRadioEvent(radioEvent({ protocol, raw: Buffer.from([1, 2, 3]) }));
      await t.records.flush();
      return (await list()).items[0]?.id ?? 0;
    }

    it('answers the raw message and an empty decode when no decoder is registered for its protocol', async () => {
      const id = await recordOne('S1AP');
      const response = await t.request({ method: 'GET', url: `/api/v1/ran/events/${id}`, token: readOnly });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { result: { raw: 'AQID', decoded: {} } });
    });

    it('decodes the stored bytes with the decoder registered for the protocol, at read time', async () => {
      const id = await recordOne('TEST');
      t.decoders.register('TEST', (raw) => ({
        successful_outcome: { procedure_code: raw[0], criticality: 'reject', value: { length: raw.length } },
      }));
      const response = await t.request({ method: 'GET', url: `/api/v1/ran/events/${id}`, token: readOnly });
      assert.deepEqual(result(response), {
        raw: 'AQID',
        decoded: { successful_outcome: { procedure_code: 1, criticality: 'reject', value: { length: 3 } } },
      });
    });

    it('answers an empty decode when the stored bytes do not decode', async () => {
      const id = await recordOne('BROKEN');
      t.decoders.register('BROKEN', () => {
        throw new Error('truncated');
      });
      const response = await t.request({ method: 'GET', url: `/api/v1/ran/events/${id}`, token: readOnly });
      assert.deepEqual(result(response), { raw: 'AQID', decoded: {} });
    });

    it('answers 404 for an unknown id and 400 for an id that is not a positive integer', async () => {
      const missing = await t.request({ method: 'GET', url: '/api/v1/ran/events/999999', token: readOnly });
      assert.deepEqual(
        [missing.statusCode, missing.json()],
        [404, { error: 'radio event 999999 not found' }],
      );
      const bad = await t.request({ method: 'GET', url: '/api/v1/ran/events/abc', token: readOnly });
      assert.deepEqual(
        [bad.statusCode, bad.json()],
        [400, { error: 'path parameter id must be a positive integer' }],
      );
    });
  });

  describe('DELETE /api/v1/ran/events', () => {
    it('deletes every event, including those accepted but not yet written, and audits it', async () => {
      await clear();
      t.records.recordRadioEvent(radioEvent());
      t.records.recordRadioEvent(radioEvent());
      const response = await t.request({ method: 'DELETE', url: '/api/v1/ran/events', token: manager });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { result: { message: 'all radio events deleted (2)' } });
      assert.equal((await list()).total_count, 0);
      const [entry] = await auditEntries(t, admin);
      assert.deepEqual(entry && { action: entry.action, actor: entry.actor, details: entry.details }, {
        action: 'clear_radio_events',
        actor: 'role3@example.com',
        details: 'All radio events deleted (2)',
      });
    });

    it('is refused to the read-only role', async () => {
      const response = await t.request({ method: 'DELETE', url: '/api/v1/ran/events', token: readOnly });
      assert.equal(response.statusCode, 403);
    });
  });
});
