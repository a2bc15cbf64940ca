import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import { created, errorOf, imsi, newSubscriber } from '../helpers/network.ts';
import {
  auditEntries,
  createApiToken,
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

interface Item {
  id: number;
  direction: string;
  from: string;
  from_imsi: string | null;
  to_imsi: string;
  to_msisdn: string | null;
  text?: string;
  data?: string;
  status: string;
  cause: string | null;
  attempts: number;
  created_at: string;
  valid_until: string;
}

let t: TestApp;
let token: string;

beforeEach(async () => {
  t = await createTestApp();
  token = await initialize(t);
  await created(t, token, '/api/v1/subscribers', newSubscriber(1, { msisdn: '+15550000001' }));
  await created(t, token, '/api/v1/subscribers', newSubscriber(2));
});
afterEach(() => t.close());

const send = (payload: Record<string, unknown>, as = token) =>
  t.request({ method: 'POST', url: '/api/v1/sms', token: as, payload });
const list = async (query = '', as = token) => {
  const response = await t.request({ method: 'GET', url: `/api/v1/sms${query}`, token: as });
  assert.equal(response.statusCode, 200, response.body);
  return result<{ items: Item[]; total_count: number; page: number; per_page: number }>(response);
};

describe('POST /api/v1/sms', () => {
  it('queues text to an MSISDN (201, one id per part), audited, listed as network-originated and queued', async () => {
    const response = await send({ msisdn: '+15550000001', text: 'Maintenance at 10:00', from: 'Ops' });
    assert.equal(response.statusCode, 201, response.body);
    const sent = result<{ message: string; imsi: string; ids: number[] }>(response);
    assert.deepEqual(sent, { message: `SMS to ${imsi(1)} queued`, imsi: imsi(1), ids: [sent.ids[0]] });
    const page = await list();
    assert.equal(page.total_count, 1);
    const { id, created_at: createdAt, valid_until: validUntil, ...item } = page.items[0]!;
    assert.equal(id, sent.ids[0]);
    assert.deepEqual(item, {
      direction: 'network-originated',
      from: 'Ops',
      from_imsi: null,
      to_imsi: imsi(1),
      to_msisdn: '15550000001',
      text: 'Maintenance at 10:00',
      status: 'queued',
      cause: null,
      attempts: 0,
      updated_at: createdAt,
    });
    assert.equal(Date.parse(validUntil) - Date.parse(createdAt), 7 * 86_400_000);
    const entry = (await auditEntries(t, token))[0];
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['send_sms', 'SMS from Ops to 15550000001 queued (1 part)'],
    );
  });

  it('to an IMSI, as long text in parts, as binary data, from a number, with a validity', async () => {
    const long = await send({ imsi: imsi(2), text: 'x'.repeat(200) });
    assert.equal(result<{ ids: number[] }>(long).ids.length, 2, 'two concatenated parts');
    const binary = await send({ imsi: imsi(2), data: '0102ff', from: '+4930123456', validity_seconds: 3600 });
    assert.equal(binary.statusCode, 201, binary.body);
    const newest = (await list()).items[0]!;
    assert.deepEqual([newest.data, newest.from, newest.to_msisdn], ['0102ff', '4930123456', null]);
    assert.equal(Date.parse(newest.valid_until) - Date.parse(newest.created_at), 3_600_000);
  });

  it('400 for a body that names no recipient or two, no content or two, a bad sender, bad values', async () => {
    for (const [payload, expected] of [
      [{ text: 'hi' }, 'give the recipient as msisdn or as imsi, one of the two'],
      [
        { msisdn: '15550000001', imsi: imsi(1), text: 'hi' },
        'give the recipient as msisdn or as imsi, one of the two',
      ],
      [{ msisdn: '15550000001' }, 'give the content as text or as data, one of the two'],
      [
        { msisdn: '15550000001', text: 'hi', data: '00' },
        'give the content as text or as data, one of the two',
      ],
      [
        { msisdn: '15550000001', text: 'hi', from: 'Twelve chars' },
        'from must be an E.164 number or a sender id of 1 to 11 characters of the GSM 7-bit alphabet',
      ],
      [{ msisdn: '015550000001', text: 'hi' }, /^msisdn must be an E\.164 number/],
      [{ imsi: '123', text: 'hi' }, /^imsi must be 15 digits/],
      [{ msisdn: '15550000001', data: 'abc' }, /^data must be 1 to 140 octets in hexadecimal/],
      [{ msisdn: '15550000001', text: 'hi', validity_seconds: 10 }, /^validity_seconds must be an integer/],
      [{ msisdn: '15550000001', text: 'hi', priority: 1 }, /unknown field "priority"/],
    ] as const) {
      const response = await send(payload);
      const message = errorOf(response, 400);
      if (typeof expected === 'string') assert.equal(message, expected, JSON.stringify(payload));
      else assert.match(message, expected, JSON.stringify(payload));
    }
    assert.equal((await list()).total_count, 0);
  });

  it('404 for a recipient that is no subscriber', async () => {
    assert.equal(
      errorOf(await send({ msisdn: '15559999999', text: 'hi' }), 404),
      'no subscriber has msisdn 15559999999',
    );
    assert.equal(errorOf(await send({ imsi: imsi(9), text: 'hi' }), 404), `subscriber ${imsi(9)} not found`);
  });

  it('403 for the read-only role; a network manager may send', async () => {
    const reader = await userWithRole(t, token, ROLE.readOnly);
    assert.equal((await send({ imsi: imsi(1), text: 'hi' }, reader)).statusCode, 403);
    const manager = await userWithRole(t, token, ROLE.networkManager);
    assert.equal((await send({ imsi: imsi(1), text: 'hi' }, manager)).statusCode, 201);
  });
});

describe('GET /api/v1/sms', () => {
  it('pages newest first and filters by imsi, msisdn, direction, status and time; 400 for bad filters', async () => {
    for (const n of [1, 2, 1]) assert.equal((await send({ imsi: imsi(n), text: `to ${n}` })).statusCode, 201);
    const page = await list('?per_page=2');
    assert.deepEqual(
      [page.total_count, page.per_page, page.items.map((i) => i.text)],
      [3, 2, ['to 1', 'to 2']],
    );
    assert.equal((await list(`?imsi=${imsi(1)}`)).total_count, 2);
    assert.equal((await list('?msisdn=%2B15550000001')).total_count, 2);
    assert.equal((await list('?direction=network-originated')).total_count, 3);
    assert.equal((await list('?direction=mobile-originated')).total_count, 0);
    assert.equal((await list('?status=queued')).total_count, 3);
    assert.equal((await list('?status=delivered')).total_count, 0);
    assert.equal((await list('?timestamp_to=2000-01-01T00:00:00Z')).total_count, 0);
    const reader = await userWithRole(t, token, ROLE.readOnly);
    assert.equal((await list('', reader)).total_count, 3);
    for (const [query, expected] of [
      ['?status=lost', 'query parameter status must be queued, delivered, failed or expired'],
      ['?direction=up', 'query parameter direction must be mobile-originated or network-originated'],
      ['?imsi=1', 'query parameter imsi must be 15 digits'],
    ]) {
      const response = await t.request({ method: 'GET', url: `/api/v1/sms${query}`, token });
      assert.equal(errorOf(response, 400), expected);
    }
  });
});

describe('DELETE /api/v1/sms', () => {
  it('deletes every message, audited; 403 for the read-only role', async () => {
    await send({ imsi: imsi(1), text: 'bye' });
    const reader = await userWithRole(t, token, ROLE.readOnly);
    assert.equal((await t.request({ method: 'DELETE', url: '/api/v1/sms', token: reader })).statusCode, 403);
    const response = await t.request({ method: 'DELETE', url: '/api/v1/sms', token });
    assert.deepEqual([response.statusCode, result(response)], [200, { message: '1 SMS messages deleted' }]);
    assert.equal((await list()).total_count, 0);
    assert.equal((await auditEntries(t, token))[0]?.action, 'clear_sms');
  });
});

describe('GET /api/v1/metrics: short messages', () => {
  it('counts the stored messages by direction and status', async () => {
    await send({ imsi: imsi(1), text: 'one' });
    await send({ imsi: imsi(1), text: 'two' });
    const delivered = (await list()).items[0]!;
    await t.core.ports.smsStore.settle(delivered.id, { status: 'delivered', at: 1 });
    const response = await t.request({ method: 'GET', url: '/api/v1/metrics', token });
    const lines = response.body.split('\n').filter((line) => line.startsWith('pmn_sms_messages{'));
    assert.deepEqual(lines.sort(), [
      'pmn_sms_messages{direction="network-originated",status="delivered"} 1',
      'pmn_sms_messages{direction="network-originated",status="queued"} 1',
    ]);
  });
});

describe('the sms-expiry background job', () => {
  it('marks expired the queued messages whose validity ended, leaves the others', async () => {
    const clock = manualClock();
    const app = await createTestApp({ clock });
    try {
      const admin = await createApiToken(app, await initialize(app));
      await created(app, admin, '/api/v1/subscribers', newSubscriber(1));
      for (const validity of [60, 3600])
        await app.request({
          method: 'POST',
          url: '/api/v1/sms',
          token: admin,
          payload: { imsi: imsi(1), text: `valid ${validity} s`, validity_seconds: validity },
        });
      clock.advance(120_000);
      const job = app.backgroundJobs.find((j) => j.name === 'sms-expiry');
      assert.ok(job !== undefined);
      await job.job(new AbortController().signal);
      const page = await app.request({ method: 'GET', url: '/api/v1/sms', token: admin });
      assert.deepEqual(
        result<{ items: Item[] }>(page).items.map((item) => [item.text, item.status]),
        [
          ['valid 3600 s', 'queued'],
          ['valid 60 s', 'expired'],
        ],
      );
    } finally {
      await app.close();
    }
  });
});

describe('/api/v1/sms/retention', () => {
  it('30 days unless set; retention deletes settled messages older than that and keeps queued ones', async () => {
    const clock = manualClock();
    const app = await createTestApp({ clock });
    try {
      // An API token: a session would expire as the clock moves on by days.
      const admin = await createApiToken(app, await initialize(app));
      await created(app, admin, '/api/v1/subscribers', newSubscriber(1));
      const url = '/api/v1/sms/retention';
      const read = async () =>
        result<{ days: number }>(await app.request({ method: 'GET', url, token: admin })).days;
      assert.equal(await read(), 30);
      const put = await app.request({ method: 'PUT', url, token: admin, payload: { days: 1 } });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(await read(), 1);
      assert.equal((await auditEntries(app, admin))[0]?.action, 'update_sms_messages_retention');

      const post = (text: string) =>
        app.request({ method: 'POST', url: '/api/v1/sms', token: admin, payload: { imsi: imsi(1), text } });
      const ids = [];
      for (const text of ['settled', 'still waiting'])
        ids.push(result<{ ids: number[] }>(await post(text)).ids[0]!);
      await app.core.ports.smsStore.settle(ids[0]!, { status: 'delivered', at: clock.now() });
      clock.advance(2 * 86_400_000);
      await app.core.retention.enforce();
      const page = await app.request({ method: 'GET', url: '/api/v1/sms', token: admin });
      assert.deepEqual(
        result<{ items: Item[] }>(page).items.map((item) => item.id),
        [ids[1]],
        'the delivered one went; the queued one stays within its validity (7 days)',
      );
    } finally {
      await app.close();
    }
  });
});
