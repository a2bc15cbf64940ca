import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { created, errorOf, omit, newPolicy, newProfile, newSubscriber } from '../helpers/network.ts';
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

describe('GET /api/v1/profiles', () => {
  freshApp();

  it('answers a plain array of every profile, by name, whose items leave out mtu', async () => {
    await created(t, token, '/api/v1/profiles', newProfile('basic'));
    const response = await t.request({ method: 'GET', url: '/api/v1/profiles', token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), [
      {
        name: 'basic',
        'ue-ip-pool': '10.46.0.0/16',
        dns: '1.1.1.1',
        'bitrate-uplink': '100 Mbps',
        'bitrate-downlink': '200 Mbps',
        var5qi: 8,
        'priority-level': 20,
      },
      {
        name: 'default',
        'ue-ip-pool': '10.45.0.0/16',
        dns: '8.8.8.8',
        'bitrate-uplink': '1 Gbps',
        'bitrate-downlink': '1 Gbps',
        var5qi: 9,
        'priority-level': 90,
      },
    ]);
  });
});

describe('POST /api/v1/profiles', () => {
  freshApp();

  it('creates a profile (201) and audits create_profile', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/profiles',
      token,
      payload: newProfile('gold', { 'ue-ip-pool': '2001:db8:1::/48', dns: '2001:4860:4860::8888' }),
    });
    assert.equal(response.statusCode, 201);
    assert.deepEqual(result(response), { message: 'profile gold created' });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['create_profile', 'Profile gold created (ue-ip-pool 2001:db8:1::/48, dns 2001:4860:4860::8888)'],
    );
  });

  it('accepts the ends of the ranges: mtu 0 and 65535, var5qi and priority-level 1 and 255', async () => {
    await created(
      t,
      token,
      '/api/v1/profiles',
      newProfile('low', { mtu: 0, var5qi: 1, 'priority-level': 1 }),
    );
    await created(
      t,
      token,
      '/api/v1/profiles',
      newProfile('high', { mtu: 65535, var5qi: 255, 'priority-level': 255 }),
    );
  });

  it('refuses a duplicate name with 409', async () => {
    await created(t, token, '/api/v1/profiles', newProfile('silver'));
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/profiles',
      token,
      payload: newProfile('silver'),
    });
    assert.equal(errorOf(response, 409), 'profile silver already exists');
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    [
      'a ue-ip-pool without a prefix',
      { 'ue-ip-pool': '10.46.0.0' },
      /^ue-ip-pool must be an IP network in CIDR/,
    ],
    ['a ue-ip-pool with host bits set', { 'ue-ip-pool': '10.46.0.1/16' }, /^ue-ip-pool must be/],
    ['a ue-ip-pool prefix over 32', { 'ue-ip-pool': '10.46.0.0/33' }, /^ue-ip-pool must be/],
    ['a ue-ip-pool that is not an address', { 'ue-ip-pool': 'pool/16' }, /^ue-ip-pool must be/],
    ['a dns that is not an IP address', { dns: 'dns.example' }, /^dns must be an IPv4 or IPv6 address$/],
    ['a dns with a prefix', { dns: '8.8.8.8/32' }, /^dns must be an IPv4 or IPv6 address$/],
    ['mtu above 65535', { mtu: 65536 }, /^mtu must be an integer 0\.\.65535$/],
    ['negative mtu', { mtu: -1 }, /^mtu must be an integer 0\.\.65535$/],
    ['a fractional mtu', { mtu: 1400.5 }, /^mtu must be an integer 0\.\.65535$/],
    ['var5qi 0', { var5qi: 0 }, /^var5qi must be an integer 1\.\.255$/],
    ['var5qi 256', { var5qi: 256 }, /^var5qi must be an integer 1\.\.255$/],
    ['priority-level 0', { 'priority-level': 0 }, /^priority-level must be an integer 1\.\.255$/],
    ['priority-level 256', { 'priority-level': 256 }, /^priority-level must be an integer 1\.\.255$/],
    ['a bitrate-uplink in kbps', { 'bitrate-uplink': '100 kbps' }, /^bitrate-uplink must be a bitrate/],
    [
      'a bitrate-uplink without a space',
      { 'bitrate-uplink': '100Mbps' },
      /^bitrate-uplink must be a bitrate/,
    ],
    ['a bitrate-downlink of zero', { 'bitrate-downlink': '0 Gbps' }, /^bitrate-downlink must be a bitrate/],
    ['a bitrate-downlink without a number', { 'bitrate-downlink': 'Gbps' }, /^bitrate-downlink must be/],
    ['a name with a slash', { name: 'a/b' }, /^name must be 1 to 64 characters/],
    ['a field spelt with underscores', { ue_ip_pool: '10.0.0.0/8' }, /^unknown field "ue_ip_pool"$/],
  ];
  for (const [rule, change, message] of invalid) {
    it(`refuses ${rule} with 400 naming the field`, async () => {
      const payload = { ...newProfile('checked'), ...change };
      const response = await t.request({ method: 'POST', url: '/api/v1/profiles', token, payload });
      assert.match(errorOf(response, 400), message);
    });
  }

  it('accepts a fractional bitrate such as 1.5 Gbps', async () => {
    await created(t, token, '/api/v1/profiles', newProfile('fraction', { 'bitrate-uplink': '1.5 Gbps' }));
  });

  it('refuses a missing mtu', async () => {
    const payload = omit(newProfile('no-mtu'), 'mtu');
    const response = await t.request({ method: 'POST', url: '/api/v1/profiles', token, payload });
    assert.equal(errorOf(response, 400), 'mtu is required');
  });
});

describe('GET /api/v1/profiles/{name}', () => {
  freshApp();

  it('reads one profile including mtu', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/profiles/default', token });
    assert.deepEqual(result(response), {
      name: 'default',
      'ue-ip-pool': '10.45.0.0/16',
      dns: '8.8.8.8',
      'bitrate-uplink': '1 Gbps',
      'bitrate-downlink': '1 Gbps',
      var5qi: 9,
      'priority-level': 90,
      mtu: 1400,
      'sms-allowed': true,
    });
  });

  it('answers 404 for an unknown profile', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/profiles/nothing', token });
    assert.equal(errorOf(response, 404), 'profile nothing not found');
  });
});

describe('PUT /api/v1/profiles/{name}', () => {
  freshApp(() => created(t, token, '/api/v1/profiles', newProfile('basic')));

  it('replaces every field and audits update_profile', async () => {
    const payload = omit(newProfile('basic', { mtu: 1280, dns: '9.9.9.9' }), 'name');
    const response = await t.request({ method: 'PUT', url: '/api/v1/profiles/basic', token, payload });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: 'profile basic updated' });
    const read = await t.request({ method: 'GET', url: '/api/v1/profiles/basic', token });
    assert.deepEqual([result(read).mtu, result(read).dns], [1280, '9.9.9.9']);
    assert.equal((await auditEntries(t, token))[0]?.action, 'update_profile');
  });

  it('applies the create rules: mtu 0..65535', async () => {
    const payload = omit(newProfile('basic', { mtu: 70000 }), 'name');
    const response = await t.request({ method: 'PUT', url: '/api/v1/profiles/basic', token, payload });
    assert.equal(errorOf(response, 400), 'mtu must be an integer 0..65535');
  });

  it('answers 404 for an unknown profile', async () => {
    const payload = omit(newProfile('x'), 'name');
    const response = await t.request({ method: 'PUT', url: '/api/v1/profiles/nothing', token, payload });
    assert.equal(response.statusCode, 404);
  });
});

describe('DELETE /api/v1/profiles/{name}', () => {
  freshApp(async () => {
    for (const name of ['low', 'gold', 'high']) await created(t, token, '/api/v1/profiles', newProfile(name));
  });

  it('deletes an unused profile and audits delete_profile', async () => {
    const response = await t.request({ method: 'DELETE', url: '/api/v1/profiles/low', token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: 'profile low deleted' });
    assert.equal((await auditEntries(t, token))[0]?.details, 'Profile low deleted');
  });

  it('refuses with 409 naming the subscribers that use it', async () => {
    for (const n of [1, 2, 3, 4, 5, 6, 7]) {
      await created(t, token, '/api/v1/subscribers', newSubscriber(n, { profile_name: 'gold' }));
    }
    const response = await t.request({ method: 'DELETE', url: '/api/v1/profiles/gold', token });
    assert.equal(
      errorOf(response, 409),
      'cannot delete profile gold: it is used by subscribers 001010000000001, 001010000000002, ' +
        '001010000000003, 001010000000004, 001010000000005 and 2 more',
    );
  });

  it('refuses with 409 naming the policy that references it', async () => {
    await created(t, token, '/api/v1/policies', newPolicy('for-high', { profile_name: 'high' }));
    const response = await t.request({ method: 'DELETE', url: '/api/v1/profiles/high', token });
    assert.equal(errorOf(response, 409), 'cannot delete profile high: it is used by policy for-high');
  });

  it('answers 404 for an unknown profile', async () => {
    const response = await t.request({ method: 'DELETE', url: '/api/v1/profiles/nothing', token });
    assert.equal(response.statusCode, 404);
  });
});
