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

// TS 33.501 Annex C.4.3 (Profile A) and C.4.4 (Profile B) home network key pairs.
const PROFILE_A = {
  privateKey: 'c53c22208b61860b06c62e5406a7b330c2b577aa5558981510d128247d38bd1d',
  publicKey: '5a8d38864820197c3394b92613b20b91633cbd897119273bf8e4a6f4eec0a650',
};
const PROFILE_B = {
  privateKey: 'f1ab1074477ebcc7f554ea1c5fc368b1616730155e0041ac447d6301975fecda',
  publicKey: '0272da71976234ce833a6907425867b82e074d44ef907dfb4b3e21c1c2256ebcd1',
};
const KEYS = '/api/v1/operator/home-network-keys';
const NAS = '/api/v1/operator/nas-security';

let t: TestApp;
let token: string;

beforeEach(async () => {
  t = await createTestApp();
  token = await initialize(t);
});
afterEach(() => t.close());

const post = (payload: object, as = token) => t.request({ method: 'POST', url: KEYS, token: as, payload });
const list = async () =>
  result<{ id: number; scheme: string; public_key: string }[]>(
    await t.request({ method: 'GET', url: KEYS, token }),
  );

describe('POST /api/v1/operator/home-network-keys', () => {
  it('imports a key pair and answers its public key (TS 33.501 C.4.3 and C.4.4)', async () => {
    const a = await post({ id: 1, scheme: 'A', private_key: PROFILE_A.privateKey });
    assert.equal(a.statusCode, 201, a.body);
    assert.deepEqual(result(a), {
      message: 'home network key A/1 created',
      id: 1,
      scheme: 'A',
      public_key: PROFILE_A.publicKey,
    });
    const b = await post({ id: 2, scheme: 'B', private_key: PROFILE_B.privateKey.toUpperCase() });
    assert.equal(b.statusCode, 201, b.body);
    assert.equal(result<{ public_key: string }>(b).public_key, PROFILE_B.publicKey);
    assert.deepEqual(await list(), [
      { id: 1, scheme: 'A', public_key: PROFILE_A.publicKey },
      { id: 2, scheme: 'B', public_key: PROFILE_B.publicKey },
    ]);
  });

  it('generates a key pair when no private key is given, of the scheme asked', async () => {
    const a = await post({ id: 7, scheme: 'A' });
    const b = await post({ id: 7, scheme: 'B' });
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201);
    assert.match(result<{ public_key: string }>(a).public_key, /^[0-9a-f]{64}$/);
    assert.match(result<{ public_key: string }>(b).public_key, /^0[23][0-9a-f]{64}$/);
  });

  it('seals the private key at rest and never returns it', async () => {
    await post({ id: 1, scheme: 'A', private_key: PROFILE_A.privateKey });
    const row = await t.db.selectFrom('home_network_keys').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.private_key_sealed.includes(PROFILE_A.privateKey), false);
    const listed = await t.request({ method: 'GET', url: KEYS, token });
    assert.equal(listed.body.includes(PROFILE_A.privateKey), false);
    const configuration = await t.core.ports.operatorConfiguration.getOperatorConfiguration();
    assert.equal(configuration.homeNetworkKeys[0]?.privateKey.toString('hex'), PROFILE_A.privateKey);
    const entries = await auditEntries(t, token);
    assert.equal(
      entries.some((entry) => entry.details.includes(PROFILE_A.privateKey)),
      false,
    );
    assert.equal(entries[0]?.action, 'create_home_network_key');
  });

  it('refuses a duplicate (scheme, id) with 409', async () => {
    await post({ id: 1, scheme: 'A' });
    const again = await post({ id: 1, scheme: 'A' });
    assert.equal(again.statusCode, 409);
    assert.deepEqual(again.json(), { error: 'home network key A/1 already exists' });
  });

  it('refuses a bad scheme, id or private key with 400', async () => {
    for (const payload of [
      { id: 1, scheme: 'C' },
      { id: 256, scheme: 'A' },
      { id: -1, scheme: 'B' },
      { id: 1, scheme: 'A', private_key: 'abcd' },
      { id: 1, scheme: 'B', private_key: '00'.repeat(32) },
      { id: 1, scheme: 'A', extra: true },
    ]) {
      const response = await post(payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(typeof response.json<{ error: string }>().error, 'string');
    }
  });

  it('is refused to the read-only role, which may list', async () => {
    const readOnly = await userWithRole(t, token, ROLE.readOnly);
    assert.equal((await post({ id: 1, scheme: 'A' }, readOnly)).statusCode, 403);
    assert.equal((await t.request({ method: 'GET', url: KEYS, token: readOnly })).statusCode, 200);
  });
});

describe('DELETE /api/v1/operator/home-network-keys/{scheme}/{id}', () => {
  it('deletes a key, then answers 404', async () => {
    await post({ id: 3, scheme: 'B' });
    const deleted = await t.request({ method: 'DELETE', url: `${KEYS}/B/3`, token });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual(await list(), []);
    const again = await t.request({ method: 'DELETE', url: `${KEYS}/B/3`, token });
    assert.equal(again.statusCode, 404);
    assert.equal((await t.request({ method: 'DELETE', url: `${KEYS}/X/3`, token })).statusCode, 400);
  });
});

describe('GET|PUT /api/v1/operator/nas-security', () => {
  it('starts with NEA2, NEA1, NEA0 and NIA2, NIA1, and keeps the order set', async () => {
    const initial = await t.request({ method: 'GET', url: NAS, token });
    assert.deepEqual(result(initial), { ciphering: ['NEA2', 'NEA1', 'NEA0'], integrity: ['NIA2', 'NIA1'] });
    const preferences = { ciphering: ['NEA3', 'NEA2', 'NEA1', 'NEA0'], integrity: ['NIA3', 'NIA2'] };
    const put = await t.request({ method: 'PUT', url: NAS, token, payload: preferences });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(result(await t.request({ method: 'GET', url: NAS, token })), preferences);
    const configuration = await t.core.ports.operatorConfiguration.getOperatorConfiguration();
    assert.deepEqual(configuration.nasSecurity, preferences);
    assert.equal((await auditEntries(t, token))[0]?.action, 'update_nas_security');
  });

  it('refuses empty, too long, repeated or unknown algorithm lists with 400', async () => {
    for (const payload of [
      { ciphering: [], integrity: ['NIA2'] },
      { ciphering: ['NEA2', 'NEA2'], integrity: ['NIA2'] },
      { ciphering: ['NEA0', 'NEA1', 'NEA2', 'NEA3', 'NEA0'], integrity: ['NIA2'] },
      { ciphering: ['NEA4'], integrity: ['NIA2'] },
      { ciphering: ['NEA2'], integrity: ['nia2'] },
      { ciphering: ['NEA2'] },
    ]) {
      const response = await t.request({ method: 'PUT', url: NAS, token, payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
    }
  });
});
