import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { created, errorOf, imsi, newSubscriber, TEST_SET_1 } from '../helpers/network.ts';
import { auditEntries, createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

const URL = '/api/v1/subscribers/import';

let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await initialize(t);
  await t.request({
    method: 'PUT',
    url: '/api/v1/operator/code',
    token,
    payload: { operatorCode: TEST_SET_1.op },
  });
  await created(t, token, '/api/v1/subscribers', newSubscriber(1));
});
after(() => t.close());

const count = async (): Promise<number> =>
  result<{ total_count: number }>(
    await t.request({ method: 'GET', url: '/api/v1/subscribers?per_page=1', token }),
  ).total_count;

const opcOf = async (n: number): Promise<unknown> =>
  result(await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(n)}/credentials`, token })).opc;

const importJson = (payload: unknown) =>
  t.request({ method: 'POST', url: URL, token, payload: payload as object });
const importCsv = (payload: string) =>
  t.request({ method: 'POST', url: URL, token, payload, headers: { 'content-type': 'text/csv' } });

describe('POST /api/v1/subscribers/import', () => {
  it('creates every subscriber of a JSON array (201) with one import_subscribers audit entry naming the count', async () => {
    const before = (await auditEntries(t, token)).length;
    const response = await importJson([
      newSubscriber(100),
      newSubscriber(101, { opc: 'ABCDEF0123456789ABCDEF0123456789' }),
      newSubscriber(102),
    ]);
    assert.equal(response.statusCode, 201);
    assert.deepEqual(result(response), { message: '3 subscribers imported' });
    assert.equal(await count(), 4);
    assert.equal(await opcOf(100), TEST_SET_1.opc);
    assert.equal(await opcOf(101), 'abcdef0123456789abcdef0123456789');
    const entries = await auditEntries(t, token);
    // Three more: the one import entry, then the two credential reads above.
    const imports = entries.filter((entry) => entry.action === 'import_subscribers');
    assert.deepEqual(
      imports.map((entry) => entry.details),
      ['3 subscribers imported'],
    );
    assert.equal(entries.length, before + 3);
  });

  it('creates every subscriber of CSV with a header row (any column order, quotes, CRLF, empty opc derives)', async () => {
    const csv =
      '\ufeffprofile_name,imsi,key,sequenceNumber,opc\r\n' +
      `default,${imsi(110)},${TEST_SET_1.key.toUpperCase()},000000000001,\r\n` +
      `"default","${imsi(111)}",${TEST_SET_1.key},00000000000A,ABCDEF0123456789ABCDEF0123456789\r\n`;
    const response = await importCsv(csv);
    assert.equal(response.statusCode, 201, response.body);
    assert.deepEqual(result(response), { message: '2 subscribers imported' });
    assert.equal(await opcOf(110), TEST_SET_1.opc);
    assert.equal(await opcOf(111), 'abcdef0123456789abcdef0123456789');
  });

  it('accepts CSV without an opc column: every OPc is derived', async () => {
    const response = await importCsv(
      `imsi,key,sequenceNumber,profile_name\n${imsi(120)},${TEST_SET_1.key},000000000001,default\n`,
    );
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(await opcOf(120), TEST_SET_1.opc);
  });

  it('accepts 10,000 subscribers, a body over 1 MiB', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => newSubscriber(200_000 + i));
    const response = await importJson(rows);
    assert.equal(response.statusCode, 201, response.body.slice(0, 200));
    assert.deepEqual(result(response), { message: '10000 subscribers imported' });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual([entry?.action, entry?.details], ['import_subscribers', '10000 subscribers imported']);
  });

  it('refuses an import with any invalid row (400), lists every one with its reason, and creates none', async () => {
    const before = await count();
    const response = await importJson([
      newSubscriber(300),
      newSubscriber(301, { imsi: '12345' }),
      'not an object',
      newSubscriber(302, { imsi: '001020000000302' }),
      newSubscriber(303, { profile_name: 'platinum' }),
      newSubscriber(300),
      newSubscriber(1),
      newSubscriber(304, { key: 'short' }),
    ]);
    assert.equal(
      errorOf(response, 400),
      '7 of 8 rows cannot be imported, so none was: ' +
        'row 2: imsi must be 15 digits; ' +
        'row 3: must be an object with the fields of a new subscriber; ' +
        "row 4: imsi must start with the operator's MCC and MNC (00101); " +
        'row 5: profile_name must name an existing profile; there is no profile "platinum"; ' +
        `row 6: imsi ${imsi(300)} repeats row 1; ` +
        `row 7: subscriber ${imsi(1)} already exists; ` +
        'row 8: key must be 32 hexadecimal characters',
    );
    assert.equal(await count(), before);
  });

  it('answers 409 when the only fault is IMSIs that already exist', async () => {
    // Subscriber 1 exists from the start (before).
    const response = await importJson([newSubscriber(400), newSubscriber(1)]);
    assert.equal(
      errorOf(response, 409),
      `1 of 2 rows cannot be imported, so none was: row 2: subscriber ${imsi(1)} already exists`,
    );
    const read = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(400)}`, token });
    assert.equal(read.statusCode, 404);
  });

  it('refuses a body over 8 MiB with 413 naming that limit', async () => {
    const response = await importCsv(
      `imsi,key,sequenceNumber,profile_name\n${'x'.repeat(8 * 1024 * 1024)}\n`,
    );
    assert.equal(errorOf(response, 413), 'request body is larger than 8 MiB');
  });

  it('leaves the 1 MiB limit on the other routes', async () => {
    const payload = { ...newSubscriber(600), profile_name: 'x'.repeat(1024 * 1024) };
    const response = await t.request({ method: 'POST', url: '/api/v1/subscribers', token, payload });
    assert.equal(errorOf(response, 413), 'request body is larger than 1 MiB');
  });

  it('answers 415 naming both accepted types to any other Content-Type', async () => {
    const response = await t.request({
      method: 'POST',
      url: URL,
      token,
      payload: 'imsi',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(errorOf(response, 415), 'Content-Type must be application/json or text/csv');
  });

  it('refuses more than 10,000 subscribers', async () => {
    const rows = Array.from({ length: 10_001 }, () => ({}));
    assert.equal(errorOf(await importJson(rows), 400), 'an import holds 1 to 10000 subscribers, got 10001');
  });

  it('refuses an empty array', async () => {
    assert.equal(errorOf(await importJson([]), 400), 'an import holds 1 to 10000 subscribers, got 0');
  });

  it('refuses a body that is not an array', async () => {
    assert.equal(
      errorOf(await importJson(newSubscriber(500)), 400),
      'request body must be a JSON array of subscribers, or CSV (text/csv) with a header row',
    );
  });

  it('refuses CSV whose header names an unknown column', async () => {
    const response = await importCsv(`imsi,ki,sequenceNumber,profile_name\n${imsi(501)},x,y,z\n`);
    assert.equal(
      errorOf(response, 400),
      'CSV header names an unknown column "ki"; columns are imsi, key, sequenceNumber, profile_name, opc, msisdn',
    );
  });

  it('refuses CSV whose header lacks a required column', async () => {
    const response = await importCsv(`imsi,key,profile_name\n${imsi(501)},${TEST_SET_1.key},default\n`);
    assert.equal(errorOf(response, 400), 'CSV header lacks the column sequenceNumber');
  });

  it('refuses CSV rows whose field count differs from the header, naming each', async () => {
    const csv = `imsi,key,sequenceNumber,profile_name\n${imsi(502)},${TEST_SET_1.key},000000000001\nx\n`;
    assert.equal(
      errorOf(await importCsv(csv), 400),
      'CSV is malformed: row 1 has 3 fields, the header has 4; row 2 has 1 fields, the header has 4',
    );
  });

  it('refuses CSV with a header row only', async () => {
    assert.equal(
      errorOf(await importCsv('imsi,key,sequenceNumber,profile_name\n'), 400),
      'an import holds 1 to 10000 subscribers, got 0',
    );
  });

  it('checks CSV values with the create rules, row by row', async () => {
    const csv = `imsi,key,sequenceNumber,profile_name\n${imsi(503)},${TEST_SET_1.key},1,default\n`;
    assert.equal(
      errorOf(await importCsv(csv), 400),
      '1 of 1 rows cannot be imported, so none was: row 1: sequenceNumber must be 12 hexadecimal characters',
    );
  });
});
