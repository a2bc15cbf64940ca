import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { restoreBackup, takeBackup } from '../helpers/backup.ts';
import { created, errorOf, newProfile, omit } from '../helpers/network.ts';
import { auditEntries, createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';
import { undoMigrationsScript } from '../helpers/migration-undo.ts';

/**
 * A profile's optional `ue-ipv6-pool` (network.md 6 and 9): an IPv6 prefix of /64 or shorter, checked
 * like `ue-ip-pool` (stored as sent, no host bits), carried by the single read when set and absent when
 * not, never by list items (management-api.md lists their fields); PUT without it removes it.
 */

let t: TestApp;
let token: string;

/** A fresh app for the enclosing describe, so that each test runs alone; `setUp` adds what it shares. */
function freshApp(options: Parameters<typeof createTestApp>[0] = {}, setUp = async () => {}): void {
  before(async () => {
    t = await createTestApp(options);
    token = await initialize(t);
    await setUp();
  });
  after(() => t.close());
}

const read = async (name: string): Promise<Record<string, unknown>> => {
  const response = await t.request({ method: 'GET', url: `/api/v1/profiles/${name}`, token });
  assert.equal(response.statusCode, 200, response.body);
  return result(response);
};

const put = (name: string, payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: `/api/v1/profiles/${name}`, token, payload });

describe('profiles: ue-ipv6-pool', () => {
  // `stored` has a pool, `plain` none.
  freshApp({}, async () => {
    await created(t, token, '/api/v1/profiles', newProfile('stored', { 'ue-ipv6-pool': '2001:db8:99::/48' }));
    await created(t, token, '/api/v1/profiles', newProfile('plain'));
  });

  it('is created, read back as sent by the single read, and named in the audit details', async () => {
    await created(t, token, '/api/v1/profiles', newProfile('v6', { 'ue-ipv6-pool': '2001:db8:45::/48' }));
    assert.deepEqual(await read('v6'), {
      name: 'v6',
      'ue-ip-pool': '10.46.0.0/16',
      'ue-ipv6-pool': '2001:db8:45::/48',
      dns: '1.1.1.1',
      mtu: 1500,
      'bitrate-uplink': '100 Mbps',
      'bitrate-downlink': '200 Mbps',
      var5qi: 8,
      'priority-level': 20,
      'sms-allowed': true,
    });
    assert.equal(
      (await auditEntries(t, token))[0]?.details,
      'Profile v6 created (ue-ip-pool 10.46.0.0/16, ue-ipv6-pool 2001:db8:45::/48, dns 1.1.1.1)',
    );
  });

  it('is absent from the single read of a profile without one, and from every list item', async () => {
    assert.equal('ue-ipv6-pool' in (await read('plain')), false);
    assert.equal('ue-ipv6-pool' in (await read('default')), false);
    const list = await t.request({ method: 'GET', url: '/api/v1/profiles', token });
    const items = result<Record<string, unknown>[]>(list);
    assert.ok(items.some((item) => item.name === 'stored'));
    for (const item of items) assert.equal('ue-ipv6-pool' in item, false, String(item.name));
  });

  it('keeps the spelling sent (upper case, uncompressed), as ue-ip-pool does', async () => {
    const pool = '2001:DB8:0:0:0:0:0:0/32';
    await created(t, token, '/api/v1/profiles', newProfile('spelt', { 'ue-ipv6-pool': pool }));
    assert.equal((await read('spelt'))['ue-ipv6-pool'], pool);
  });

  it('accepts /1 and /64, the ends of the lengths a pool of /64s can have', async () => {
    await created(t, token, '/api/v1/profiles', newProfile('p1', { 'ue-ipv6-pool': '8000::/1' }));
    await created(t, token, '/api/v1/profiles', newProfile('p64', { 'ue-ipv6-pool': '2001:db8:0:7::/64' }));
    assert.equal((await read('p64'))['ue-ipv6-pool'], '2001:db8:0:7::/64');
  });

  it('is set, changed and removed by PUT, which replaces the profile', async () => {
    await created(t, token, '/api/v1/profiles', newProfile('v4-only'));
    const body = omit(newProfile('v4-only'), 'name');
    assert.equal((await put('v4-only', { ...body, 'ue-ipv6-pool': 'fd00:45::/56' })).statusCode, 200);
    assert.equal((await read('v4-only'))['ue-ipv6-pool'], 'fd00:45::/56');
    assert.equal(
      (await auditEntries(t, token))[0]?.details,
      'Profile v4-only updated (ue-ip-pool 10.46.0.0/16, ue-ipv6-pool fd00:45::/56, dns 1.1.1.1)',
    );
    assert.equal((await put('v4-only', { ...body, 'ue-ipv6-pool': 'fd00:46::/64' })).statusCode, 200);
    assert.equal((await read('v4-only'))['ue-ipv6-pool'], 'fd00:46::/64');
    assert.equal((await put('v4-only', body)).statusCode, 200);
    assert.equal('ue-ipv6-pool' in (await read('v4-only')), false);
  });

  const MESSAGE =
    'ue-ipv6-pool must be an IPv6 network in CIDR notation of /64 or shorter, such as 2001:db8:45::/48 ' +
    '(no host bits set)';
  // One message for every way the value is wrong, wrong JSON types included, as for `ue-ip-pool`.
  const invalid: [string, unknown][] = [
    ['an IPv4 network', '10.46.0.0/16'],
    ['a prefix longer than /64', '2001:db8::/65'],
    ['a /128', '2001:db8::1/128'],
    ['a /0', '::/0'],
    ['host bits set', '2001:db8:45::1/48'],
    ['host bits set below the /64', '2001:db8:45:0:0:0:0:1/64'],
    ['no prefix length', '2001:db8:45::'],
    ['a length with a leading zero', '2001:db8::/032'],
    ['a dotted IPv4 tail', '::ffff:0.0.0.0/64'],
    ['a zone', 'fe80::%eth0/64'],
    ['an address that is not one', '2001:db8:::/48'],
    ['spaces', ' 2001:db8::/48'],
    ['an empty string', ''],
    ['text over 64 characters', `${'0:'.repeat(40)}:/48`],
    ['a number', 48],
    ['null', null],
  ];
  for (const [rule, value] of invalid) {
    it(`refuses ${rule} with 400 naming the field, on create and on update`, async () => {
      const payload = newProfile('checked', { 'ue-ipv6-pool': value });
      const create = await t.request({ method: 'POST', url: '/api/v1/profiles', token, payload });
      assert.equal(errorOf(create, 400), MESSAGE);
      assert.equal(errorOf(await put('stored', omit(payload, 'name')), 400), MESSAGE);
      const unmade = await t.request({ method: 'GET', url: '/api/v1/profiles/checked', token });
      assert.equal(unmade.statusCode, 404);
      assert.equal((await read('stored'))['ue-ipv6-pool'], '2001:db8:99::/48');
    });
  }

  it('is documented in the OpenAPI document: optional in both bodies and the single read', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/openapi.json', token });
    assert.equal(response.statusCode, 200, response.body);
    const document = response.json<{
      paths: Record<string, Record<string, { requestBody?: unknown; responses?: unknown }>>;
    }>();
    const schemaOf = (value: unknown, ...keys: string[]) =>
      keys.reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], value) as
        { properties: Record<string, unknown>; required?: string[] } | undefined;
    const bodies = [
      schemaOf(
        document.paths['/api/v1/profiles']?.post?.requestBody,
        'content',
        'application/json',
        'schema',
      ),
      schemaOf(
        document.paths['/api/v1/profiles/{name}']?.put?.requestBody,
        'content',
        'application/json',
        'schema',
      ),
    ];
    for (const body of bodies) {
      assert.ok(body?.properties['ue-ipv6-pool']);
      assert.equal(body.required?.includes('ue-ipv6-pool'), false);
    }
    const single = schemaOf(
      document.paths['/api/v1/profiles/{name}']?.get?.responses,
      '200',
      'content',
      'application/json',
      'schema',
      'properties',
      'result',
    );
    assert.ok(single?.properties['ue-ipv6-pool']);
  });
});

describe('POST /api/v1/restore: a backup taken before profiles had ue-ipv6-pool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-profiles-ipv6-'));
  freshApp({ database: join(dir, 'core.db') });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is migrated on restore: its profiles have no IPv6 pool and can be given one', async () => {
    await created(t, token, '/api/v1/profiles', newProfile('old'));
    const path = join(dir, 'before-0010.db');
    writeFileSync(path, await takeBackup(t, token));
    const database = new SQLite(path);
    // And the migrations after 0010: a backup of that time had none of them.
    database.exec(await undoMigrationsScript('0010'));
    database.close();
    await created(t, token, '/api/v1/profiles', newProfile('after', { 'ue-ipv6-pool': '2001:db8::/48' }));

    await restoreBackup(t, token, readFileSync(path));
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/profiles/after', token })).statusCode, 404);
    assert.equal('ue-ipv6-pool' in (await read('old')), false);
    const body = omit(newProfile('old', { 'ue-ipv6-pool': '2001:db8:1::/48' }), 'name');
    assert.equal((await put('old', body)).statusCode, 200);
    assert.equal((await read('old'))['ue-ipv6-pool'], '2001:db8:1::/48');
  });
});
