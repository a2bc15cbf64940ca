import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { ADMIN, createTestApp, type TestApp } from '../helpers/test-app.ts';

// Two starts of the service on one database file, as a restart does.
const dir = mkdtempSync(join(tmpdir(), 'pmn-defaults-'));
const database = join(dir, 'core.db');
const secretKey = randomBytes(32);
const start = (): Promise<TestApp> => createTestApp({ database, secretKey });
after(() => rmSync(dir, { recursive: true, force: true }));

describe('first-start network defaults', () => {
  let token: string;
  let first: TestApp;

  before(async () => {
    first = await start();
    const init = await first.app.inject({ method: 'POST', url: '/api/v1/init', payload: ADMIN });
    token = init.json<{ result: { token: string } }>().result.token;
  });

  const get = async (app: TestApp, url: string) => {
    const response = await app.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ result: Record<string, unknown> }>().result;
  };

  it('creates the operator 001/01 with TAC 000001 and a random 32-hex OP', async () => {
    assert.deepEqual(await get(first, '/api/v1/operator'), {
      id: { mcc: '001', mnc: '01' },
      tracking: { supportedTacs: ['000001'] },
    });
    const { op_sealed } = await first.db.selectFrom('operator').select('op_sealed').executeTakeFirstOrThrow();
    assert.match(createSecretBox(secretKey).open(op_sealed), /^[0-9a-f]{32}$/);
  });

  it('creates data network internet, slice default, profile default and policy default', async () => {
    assert.deepEqual(await get(first, '/api/v1/networking/data-networks/internet'), {
      name: 'internet',
      status: { sessions: 0 },
    });
    assert.deepEqual(await get(first, '/api/v1/slices/default'), { name: 'default', sst: 1 });
    assert.deepEqual(await get(first, '/api/v1/profiles/default'), {
      name: 'default',
      'ue-ip-pool': '10.45.0.0/16',
      dns: '8.8.8.8',
      mtu: 1400,
      'bitrate-uplink': '1 Gbps',
      'bitrate-downlink': '1 Gbps',
      var5qi: 9,
      'priority-level': 90,
      'sms-allowed': true,
    });
    assert.deepEqual(await get(first, '/api/v1/policies/default'), {
      name: 'default',
      bitrate_uplink: '1 Gbps',
      bitrate_downlink: '1 Gbps',
      var5qi: 9,
      arp: 1,
      data_network_name: 'internet',
      profile_name: 'default',
      slice_name: 'default',
    });
  });

  it('does not bring back deleted or changed defaults at the next start, nor change the OP', async () => {
    const headers = { authorization: `Bearer ${token}` };
    const opBefore = await first.db.selectFrom('operator').select('op_sealed').executeTakeFirstOrThrow();
    const deletion = await first.app.inject({ method: 'DELETE', url: '/api/v1/policies/default', headers });
    assert.equal(deletion.statusCode, 200);
    await first.app.inject({
      method: 'PUT',
      url: '/api/v1/operator/id',
      headers,
      payload: { mcc: '999', mnc: '99' },
    });
    await first.close();

    const second = await start();
    const policies = await get(second, '/api/v1/policies');
    assert.equal(policies.total_count, 0);
    assert.deepEqual((await get(second, '/api/v1/operator')).id, { mcc: '999', mnc: '99' });
    const afterRestart = await second.db.selectFrom('operator').select('op_sealed').executeTakeFirstOrThrow();
    assert.equal(afterRestart.op_sealed, opBefore.op_sealed);
    await second.close();
  });
});
