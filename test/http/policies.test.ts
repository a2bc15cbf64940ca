import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { created, errorOf, omit, newPolicy, newProfile, newSlice } from '../helpers/network.ts';
import { auditEntries, createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let token: string;

/**
 * A fresh app for the enclosing describe with profile gold and slice video, so that each test runs
 * alone; `setUp` adds what the describe's tests share.
 */
function freshApp(setUp: () => Promise<void> = async () => {}): void {
  before(async () => {
    t = await createTestApp();
    token = await initialize(t);
    await created(t, token, '/api/v1/profiles', newProfile('gold'));
    await created(t, token, '/api/v1/slices', newSlice('video'));
    await setUp();
  });
  after(() => t.close());
}

describe('GET /api/v1/policies', () => {
  freshApp();

  it('lists policies by name, paginated; the first-start policy names profile, slice and data network', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/policies', token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), {
      items: [
        {
          name: 'default',
          bitrate_uplink: '1 Gbps',
          bitrate_downlink: '1 Gbps',
          var5qi: 9,
          arp: 1,
          data_network_name: 'internet',
          profile_name: 'default',
          slice_name: 'default',
        },
      ],
      page: 1,
      per_page: 25,
      total_count: 1,
    });
  });
});

describe('POST /api/v1/policies', () => {
  freshApp();

  it('creates a policy without profile or slice (any profile, any slice) and audits create_policy', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/policies',
      token,
      payload: newPolicy('open'),
    });
    assert.equal(response.statusCode, 201);
    assert.deepEqual(result(response), { message: 'policy open created' });
    const read = await t.request({ method: 'GET', url: '/api/v1/policies/open', token });
    assert.deepEqual(result(read), {
      name: 'open',
      bitrate_uplink: '50 Mbps',
      bitrate_downlink: '100 Mbps',
      var5qi: 7,
      arp: 2,
      data_network_name: 'internet',
    });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['create_policy', 'Policy open created (data network internet, any profile, any slice)'],
    );
  });

  it('creates a policy restricted to a profile and a slice', async () => {
    await created(
      t,
      token,
      '/api/v1/policies',
      newPolicy('gold-video', { profile_name: 'gold', slice_name: 'video' }),
    );
    const read = await t.request({ method: 'GET', url: '/api/v1/policies/gold-video', token });
    assert.deepEqual([result(read).profile_name, result(read).slice_name], ['gold', 'video']);
  });

  it('accepts the ends of the ranges: var5qi 1 and 255, arp 1 and 15', async () => {
    await created(t, token, '/api/v1/policies', newPolicy('low', { var5qi: 1, arp: 1 }));
    await created(t, token, '/api/v1/policies', newPolicy('high', { var5qi: 255, arp: 15 }));
  });

  it('refuses a duplicate name with 409', async () => {
    await created(t, token, '/api/v1/policies', newPolicy('twice'));
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/policies',
      token,
      payload: newPolicy('twice'),
    });
    assert.equal(errorOf(response, 409), 'policy twice already exists');
  });

  it('refuses a data_network_name that names no data network', async () => {
    const payload = newPolicy('x', { data_network_name: 'nowhere' });
    const response = await t.request({ method: 'POST', url: '/api/v1/policies', token, payload });
    assert.equal(
      errorOf(response, 400),
      'data_network_name must name an existing data network; there is no data network "nowhere"',
    );
  });

  it('refuses a profile_name that names no profile', async () => {
    const payload = newPolicy('x', { profile_name: 'platinum' });
    const response = await t.request({ method: 'POST', url: '/api/v1/policies', token, payload });
    assert.equal(
      errorOf(response, 400),
      'profile_name must name an existing profile; there is no profile "platinum"',
    );
  });

  it('refuses a slice_name that names no slice', async () => {
    const payload = newPolicy('x', { slice_name: 'audio' });
    const response = await t.request({ method: 'POST', url: '/api/v1/policies', token, payload });
    assert.equal(errorOf(response, 400), 'slice_name must name an existing slice; there is no slice "audio"');
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['var5qi 0', { var5qi: 0 }, /^var5qi must be an integer 1\.\.255$/],
    ['var5qi 256', { var5qi: 256 }, /^var5qi must be an integer 1\.\.255$/],
    ['arp 0', { arp: 0 }, /^arp must be an integer 1\.\.15$/],
    ['arp 16', { arp: 16 }, /^arp must be an integer 1\.\.15$/],
    ['a bitrate_uplink in bps', { bitrate_uplink: '100 bps' }, /^bitrate_uplink must be a bitrate/],
    ['a negative bitrate_uplink', { bitrate_uplink: '-1 Mbps' }, /^bitrate_uplink must be a bitrate/],
    [
      'a bitrate_downlink with a lower-case unit',
      { bitrate_downlink: '1 gbps' },
      /^bitrate_downlink must be/,
    ],
    [
      'a data_network_name with an underscore',
      { data_network_name: 'a_b' },
      /^data_network_name must be 1 to 63/,
    ],
    ['an empty profile_name', { profile_name: '' }, /^profile_name must be 1 to 64 characters/],
    ['a slice_name with a space', { slice_name: 'a b' }, /^slice_name must be 1 to 64 characters/],
    ['a name of 65 characters', { name: 'p'.repeat(65) }, /^name must be 1 to 64 characters/],
    ['an unknown field', { qos: 1 }, /^unknown field "qos"$/],
  ];
  for (const [rule, change, message] of invalid) {
    it(`refuses ${rule} with 400 naming the field`, async () => {
      const payload = { ...newPolicy('checked'), ...change };
      const response = await t.request({ method: 'POST', url: '/api/v1/policies', token, payload });
      assert.match(errorOf(response, 400), message);
    });
  }

  it('refuses a missing data_network_name', async () => {
    const payload = omit(newPolicy('x'), 'data_network_name');
    const response = await t.request({ method: 'POST', url: '/api/v1/policies', token, payload });
    assert.equal(errorOf(response, 400), 'data_network_name is required');
  });
});

describe('GET /api/v1/policies/{name}', () => {
  freshApp();

  it('answers 404 for an unknown policy', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/policies/nothing', token });
    assert.equal(errorOf(response, 404), 'policy nothing not found');
  });
});

describe('PUT /api/v1/policies/{name}', () => {
  freshApp(async () => {
    await created(t, token, '/api/v1/policies', newPolicy('open'));
    await created(
      t,
      token,
      '/api/v1/policies',
      newPolicy('gold-video', { profile_name: 'gold', slice_name: 'video' }),
    );
  });

  it('replaces the policy: absent profile_name and slice_name lift those restrictions; audits update_policy', async () => {
    const payload = omit(newPolicy('gold-video', { arp: 9 }), 'name');
    const response = await t.request({ method: 'PUT', url: '/api/v1/policies/gold-video', token, payload });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: 'policy gold-video updated' });
    const read = await t.request({ method: 'GET', url: '/api/v1/policies/gold-video', token });
    assert.equal(result(read).arp, 9);
    assert.equal('profile_name' in result(read), false);
    assert.equal('slice_name' in result(read), false);
    assert.equal((await auditEntries(t, token))[0]?.action, 'update_policy');
  });

  it('refuses references to missing resources, as create does', async () => {
    const payload = omit(newPolicy('x', { slice_name: 'audio' }), 'name');
    const response = await t.request({ method: 'PUT', url: '/api/v1/policies/open', token, payload });
    assert.match(errorOf(response, 400), /^slice_name must name an existing slice/);
  });

  it('applies the create rules: arp 1..15', async () => {
    const payload = omit(newPolicy('x', { arp: 99 }), 'name');
    const response = await t.request({ method: 'PUT', url: '/api/v1/policies/open', token, payload });
    assert.equal(errorOf(response, 400), 'arp must be an integer 1..15');
  });

  it('answers 404 for an unknown policy', async () => {
    const payload = omit(newPolicy('x'), 'name');
    const response = await t.request({ method: 'PUT', url: '/api/v1/policies/nothing', token, payload });
    assert.equal(response.statusCode, 404);
  });
});

describe('DELETE /api/v1/policies/{name}', () => {
  freshApp();

  it('deletes a policy and audits delete_policy; what it referenced can then be deleted', async () => {
    await created(t, token, '/api/v1/slices', newSlice('only-here'));
    await created(t, token, '/api/v1/policies', newPolicy('holder', { slice_name: 'only-here' }));
    const response = await t.request({ method: 'DELETE', url: '/api/v1/policies/holder', token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: 'policy holder deleted' });
    assert.equal((await auditEntries(t, token))[0]?.action, 'delete_policy');
    const slice = await t.request({ method: 'DELETE', url: '/api/v1/slices/only-here', token });
    assert.equal(slice.statusCode, 200);
  });

  it('answers 404 for an unknown policy', async () => {
    const response = await t.request({ method: 'DELETE', url: '/api/v1/policies/nothing', token });
    assert.equal(response.statusCode, 404);
  });
});
