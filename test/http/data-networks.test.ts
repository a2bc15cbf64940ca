import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PduSession } from '../../src/network/network-state.ts';
import { created, errorOf, imsi, newPolicy } from '../helpers/network.ts';
import { auditEntries, createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/v1/networking/data-networks';

let t: TestApp;
let token: string;

/** A fresh app for the enclosing describe, so that each test runs alone; `setUp` adds what it shares. */
function freshApp(setUp: () => Promise<void> | void = () => {}): void {
  before(async () => {
    t = await createTestApp();
    token = await initialize(t);
    await setUp();
  });
  after(() => t.close());
}

const session = (id: number, dataNetwork: string): PduSession => ({
  id,
  radioAccessType: '5G',
  status: 'active',
  ipType: 'IPv4',
  ipv4Address: `10.45.0.${id}`,
  ipv6Prefix: '',
  dataNetwork,
  slice: { sst: 1, sd: '' },
  ambrUplink: '1 Gbps',
  ambrDownlink: '1 Gbps',
});

describe('GET /api/v1/networking/data-networks', () => {
  freshApp();

  it('lists data networks by name, paginated, each with its live session count', async () => {
    await created(t, token, BASE, { name: 'corp.example' });
    t.network.sessionEstablished(imsi(1), session(1, 'internet'));
    t.network.sessionEstablished(imsi(2), session(1, 'internet'));
    const response = await t.request({ method: 'GET', url: BASE, token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), {
      items: [
        { name: 'corp.example', status: { sessions: 0 } },
        { name: 'internet', status: { sessions: 2 } },
      ],
      page: 1,
      per_page: 25,
      total_count: 2,
    });
  });

  it('refuses page 0', async () => {
    const response = await t.request({ method: 'GET', url: `${BASE}?page=0`, token });
    assert.match(errorOf(response, 400), /^query parameter page /);
  });
});

describe('POST /api/v1/networking/data-networks', () => {
  freshApp();

  it('creates a data network (201) and audits create_data_network', async () => {
    const response = await t.request({ method: 'POST', url: BASE, token, payload: { name: 'iot-1' } });
    assert.equal(response.statusCode, 201);
    assert.deepEqual(result(response), { message: 'data network iot-1 created' });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual([entry?.action, entry?.details], ['create_data_network', 'Data network iot-1 created']);
  });

  it('accepts a name of 63 characters', async () => {
    await created(t, token, BASE, { name: 'd'.repeat(63) });
  });

  it('refuses a duplicate name with 409', async () => {
    const response = await t.request({ method: 'POST', url: BASE, token, payload: { name: 'internet' } });
    assert.equal(errorOf(response, 409), 'data network internet already exists');
  });

  const invalid: [string, unknown][] = [
    ['an empty name', ''],
    ['a name of 64 characters', 'd'.repeat(64)],
    ['an underscore (not allowed in a DNN)', 'my_dnn'],
    ['a space', 'my dnn'],
  ];
  for (const [rule, name] of invalid) {
    it(`refuses ${rule} with 400 naming the field`, async () => {
      const response = await t.request({ method: 'POST', url: BASE, token, payload: { name } });
      assert.equal(errorOf(response, 400), 'name must be 1 to 63 characters: letters, digits, "-" or "."');
    });
  }

  it('refuses a missing name', async () => {
    const response = await t.request({ method: 'POST', url: BASE, token, payload: {} });
    assert.equal(errorOf(response, 400), 'name is required');
  });
});

describe('GET /api/v1/networking/data-networks/{name}', () => {
  freshApp(() => {
    t.network.sessionEstablished(imsi(1), session(1, 'internet'));
    t.network.sessionEstablished(imsi(2), session(1, 'internet'));
  });

  it('reads one data network with its session count', async () => {
    const response = await t.request({ method: 'GET', url: `${BASE}/internet`, token });
    assert.deepEqual(result(response), { name: 'internet', status: { sessions: 2 } });
  });

  it('answers 404 for an unknown data network', async () => {
    const response = await t.request({ method: 'GET', url: `${BASE}/nowhere`, token });
    assert.equal(errorOf(response, 404), 'data network nowhere not found');
  });
});

describe('PUT /api/v1/networking/data-networks/{name}', () => {
  freshApp(() => created(t, token, BASE, { name: 'iot-1' }));

  it('renames a data network; the policies that reference it follow; audits update_data_network', async () => {
    await created(t, token, BASE, { name: 'old-name' });
    await created(t, token, '/api/v1/policies', newPolicy('follows', { data_network_name: 'old-name' }));
    const response = await t.request({
      method: 'PUT',
      url: `${BASE}/old-name`,
      token,
      payload: { name: 'new-name' },
    });
    assert.equal(response.statusCode, 200);
    const policy = await t.request({ method: 'GET', url: '/api/v1/policies/follows', token });
    assert.equal(result(policy).data_network_name, 'new-name');
    assert.equal((await t.request({ method: 'GET', url: `${BASE}/old-name`, token })).statusCode, 404);
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['update_data_network', 'Data network old-name renamed to new-name'],
    );
  });

  it('refuses a rename onto an existing name with 409', async () => {
    const response = await t.request({
      method: 'PUT',
      url: `${BASE}/iot-1`,
      token,
      payload: { name: 'internet' },
    });
    assert.equal(errorOf(response, 409), 'data network internet already exists');
  });

  it('applies the create rules to the name', async () => {
    const response = await t.request({
      method: 'PUT',
      url: `${BASE}/iot-1`,
      token,
      payload: { name: 'a_b' },
    });
    assert.match(errorOf(response, 400), /^name must be/);
  });

  it('answers 404 for an unknown data network', async () => {
    const response = await t.request({
      method: 'PUT',
      url: `${BASE}/nowhere`,
      token,
      payload: { name: 'x' },
    });
    assert.equal(response.statusCode, 404);
  });
});

describe('DELETE /api/v1/networking/data-networks/{name}', () => {
  freshApp(() => created(t, token, BASE, { name: 'iot-1' }));

  it('deletes an unreferenced data network and audits delete_data_network', async () => {
    const response = await t.request({ method: 'DELETE', url: `${BASE}/iot-1`, token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: 'data network iot-1 deleted' });
    assert.equal((await auditEntries(t, token))[0]?.action, 'delete_data_network');
  });

  it('refuses with 409 naming the policy that references it', async () => {
    const response = await t.request({ method: 'DELETE', url: `${BASE}/internet`, token });
    assert.equal(errorOf(response, 409), 'cannot delete data network internet: it is used by policy default');
  });

  it('answers 404 for an unknown data network', async () => {
    const response = await t.request({ method: 'DELETE', url: `${BASE}/nowhere`, token });
    assert.equal(response.statusCode, 404);
  });
});
