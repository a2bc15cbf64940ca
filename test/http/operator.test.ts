import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { created, errorOf, imsi, newSubscriber, TEST_SET_1 } from '../helpers/network.ts';
import { auditEntries, createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let token: string;

/** A fresh app for the enclosing describe, so that each test runs alone; `setUp` adds what it shares. */
function freshApp(setUp: () => Promise<void> = async () => {}): void {
  before(async () => {
    t = await createTestApp();
    token = await initialize(t);
    await setUp();
  });
  after(() => t.close());
}

const put = (path: string, payload: unknown) =>
  t.request({ method: 'PUT', url: `/api/v1/operator/${path}`, token, payload: payload as object });

describe('GET /api/v1/operator', () => {
  freshApp();

  it('answers the first-start operator (MCC 001, MNC 01, TAC 000001) and never the Operator Code', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/operator', token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      result: { id: { mcc: '001', mnc: '01' }, tracking: { supportedTacs: ['000001'] } },
    });
  });
});

describe('PUT /api/v1/operator/id', () => {
  freshApp();

  it('sets MCC and MNC (a 3-digit MNC too) and audits update_operator_id', async () => {
    const response = await put('id', { mcc: '999', mnc: '070' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: 'operator ID set to MCC 999, MNC 070' });
    const read = await t.request({ method: 'GET', url: '/api/v1/operator', token });
    assert.deepEqual(result(read).id, { mcc: '999', mnc: '070' });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['update_operator_id', 'Operator ID set to MCC 999, MNC 070'],
    );
    await put('id', { mcc: '001', mnc: '01' });
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['an MCC of 2 digits', { mcc: '01', mnc: '01' }, 'mcc must be 3 digits'],
    ['an MCC with a letter', { mcc: '00a', mnc: '01' }, 'mcc must be 3 digits'],
    ['an MCC as a number', { mcc: 1, mnc: '01' }, 'mcc must be 3 digits'],
    ['an MNC of 1 digit', { mcc: '001', mnc: '1' }, 'mnc must be 2 or 3 digits'],
    ['an MNC of 4 digits', { mcc: '001', mnc: '0101' }, 'mnc must be 2 or 3 digits'],
    ['a missing MNC', { mcc: '001' }, 'mnc is required'],
  ];
  for (const [rule, payload, message] of invalid) {
    it(`refuses ${rule} with 400 naming the field`, async () => {
      assert.equal(errorOf(await put('id', payload), 400), message);
    });
  }

  it('refuses a change with 409 while subscribers exist, and allows it again once they are gone', async () => {
    await created(t, token, '/api/v1/subscribers', newSubscriber(1));
    assert.equal(
      errorOf(await put('id', { mcc: '002', mnc: '02' }), 409),
      'the operator ID (MCC, MNC) cannot change while 1 subscriber exists; delete the subscribers first',
    );
    // Restating the current ID is not a change.
    assert.equal((await put('id', { mcc: '001', mnc: '01' })).statusCode, 200);
    await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(1)}`, token });
    assert.equal((await put('id', { mcc: '002', mnc: '02' })).statusCode, 200);
    await put('id', { mcc: '001', mnc: '01' });
  });
});

describe('PUT /api/v1/operator/tracking', () => {
  freshApp();

  it('sets the supported TACs (stored in lower case) and audits update_operator_tracking', async () => {
    const response = await put('tracking', { supportedTacs: ['000001', '00ABCD'] });
    assert.equal(response.statusCode, 200);
    const read = await t.request({ method: 'GET', url: '/api/v1/operator', token });
    assert.deepEqual(result(read).tracking, { supportedTacs: ['000001', '00abcd'] });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['update_operator_tracking', 'Supported TACs set to 000001, 00abcd'],
    );
  });

  it('may change while subscribers exist', async () => {
    await created(t, token, '/api/v1/subscribers', newSubscriber(2));
    assert.equal((await put('tracking', { supportedTacs: ['000002'] })).statusCode, 200);
    await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(2)}`, token });
  });

  const invalid: [string, unknown, string][] = [
    ['an empty list', [], 'supportedTacs must be a list of 1 to 256 different TACs'],
    ['a TAC of 5 hex characters', ['00001'], 'supportedTacs[0] must be 6 hexadecimal characters'],
    ['a TAC that is not hex', ['000001', '00000g'], 'supportedTacs[1] must be 6 hexadecimal characters'],
    ['the same TAC twice', ['000001', '000001'], 'supportedTacs must be a list of 1 to 256 different TACs'],
    [
      'the same TAC in two letter cases',
      ['00000a', '00000A'],
      'supportedTacs must be a list of 1 to 256 different TACs',
    ],
    [
      'a list of 257 TACs',
      Array.from({ length: 257 }, (_, i) => i.toString(16).padStart(6, '0')),
      'supportedTacs must be a list of 1 to 256 different TACs',
    ],
    ['a single TAC instead of a list', '000001', 'supportedTacs must be a list of 1 to 256 different TACs'],
  ];
  for (const [rule, supportedTacs, message] of invalid) {
    it(`refuses ${rule} with 400 naming the field`, async () => {
      assert.equal(errorOf(await put('tracking', { supportedTacs }), 400), message);
    });
  }
});

describe('PUT /api/v1/operator/code', () => {
  freshApp();

  it('sets the OP, which then derives the OPc of new subscribers (TS 35.208 test set 1); audits without the value', async () => {
    const response = await put('code', { operatorCode: TEST_SET_1.op.toUpperCase() });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: 'operator code updated' });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual([entry?.action, entry?.details], ['update_operator_code', 'Operator Code (OP) changed']);
    await created(t, token, '/api/v1/subscribers', newSubscriber(3));
    const credentials = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${imsi(3)}/credentials`,
      token,
    });
    assert.equal(result(credentials).opc, TEST_SET_1.opc);
  });

  const invalid: [string, unknown][] = [
    ['31 hex characters', 'a'.repeat(31)],
    ['33 hex characters', 'a'.repeat(33)],
    ['a non-hex character', `${'a'.repeat(31)}z`],
  ];
  for (const [rule, operatorCode] of invalid) {
    it(`refuses ${rule} with 400 naming the field`, async () => {
      assert.equal(
        errorOf(await put('code', { operatorCode }), 400),
        'operatorCode must be 32 hexadecimal characters',
      );
    });
  }
});

describe('PUT /api/v1/operator/code while a subscriber exists', () => {
  freshApp(async () => {
    assert.equal((await put('code', { operatorCode: TEST_SET_1.op })).statusCode, 200);
    await created(t, token, '/api/v1/subscribers', newSubscriber(3));
  });

  it('refuses a change with 409 while subscribers exist; restating the same OP is allowed', async () => {
    assert.equal(
      errorOf(await put('code', { operatorCode: '00112233445566778899aabbccddeeff' }), 409),
      'the Operator Code (OP) cannot change while 1 subscriber exists; delete the subscribers first',
    );
    assert.equal((await put('code', { operatorCode: TEST_SET_1.op })).statusCode, 200);
  });
});
