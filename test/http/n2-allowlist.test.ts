import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import {
  auditEntries,
  createTestApp,
  initialize,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

const URL = '/api/v1/operator/n2-allowlist';

let t: TestApp;
let token: string;

beforeEach(async () => {
  t = await createTestApp();
  token = await initialize(t);
});
afterEach(() => t.close());

const put = (peers: unknown, as = token) =>
  t.request({ method: 'PUT', url: URL, token: as, payload: { peers } });

describe('GET|PUT /api/v1/operator/n2-allowlist', () => {
  it('starts empty (every peer), keeps the list set, audits it and hands it to the network side', async () => {
    assert.deepEqual(result(await t.request({ method: 'GET', url: URL, token })), { peers: [] });
    const peers = ['192.0.2.7', '10.1.0.0/16', '2001:db8::/32'];
    const response = await put(peers);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(result(await t.request({ method: 'GET', url: URL, token })), { peers });
    const configuration = await t.core.ports.operatorConfiguration.getOperatorConfiguration();
    assert.deepEqual(configuration.n2AllowedPeers, peers);
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['update_n2_allowlist', 'N2 allowlist set: 192.0.2.7, 10.1.0.0/16, 2001:db8::/32'],
    );
    assert.equal((await put([])).statusCode, 200);
    assert.deepEqual(result(await t.request({ method: 'GET', url: URL, token })), { peers: [] });
  });

  it('refuses what is not an address or network, host bits, duplicates and more than 256 entries with a clear 400', async () => {
    const cases: [unknown, RegExp][] = [
      [['gnb.example.com'], /"gnb\.example\.com" is neither an IP address nor a network/],
      [['10.1.2.0/16'], /"10\.1\.2\.0\/16" is neither .* without host bits/],
      [['10.0.0.0/33'], /neither/],
      [['fe80::1%eth0'], /neither/],
      [['192.0.2.7', '192.0.2.7'], /"192\.0\.2\.7" is listed twice/],
      [['2001:db8::1', '2001:DB8:0::1'], /listed twice/],
      [Array.from({ length: 257 }, (_, i) => `10.0.${i >> 8}.${i & 255}`), /peers/],
      [[7], /peers/],
      ['192.0.2.7', /peers/],
    ];
    for (const [peers, error] of cases) {
      const response = await put(peers);
      assert.equal(response.statusCode, 400, JSON.stringify(peers).slice(0, 80));
      assert.match((JSON.parse(response.body) as { error: string }).error, error);
    }
    const extra = await t.request({ method: 'PUT', url: URL, token, payload: { peers: [], more: 1 } });
    assert.equal(extra.statusCode, 400);
    assert.deepEqual(result(await t.request({ method: 'GET', url: URL, token })), { peers: [] });
  });

  it('any role reads it; only an admin sets it', async () => {
    const manager = await userWithRole(t, token, ROLE.networkManager);
    const reader = await userWithRole(t, token, ROLE.readOnly);
    for (const as of [manager, reader]) {
      assert.equal((await t.request({ method: 'GET', url: URL, token: as })).statusCode, 200);
      assert.equal((await put(['192.0.2.7'], as)).statusCode, 403);
    }
    assert.equal((await t.request({ method: 'GET', url: URL })).statusCode, 401);
  });
});
