import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestApp, initialize, userWithRole, type TestApp } from '../helpers/test-app.ts';

describe('errors and shared HTTP rules', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await createTestApp();
    admin = await initialize(t);
  });
  after(() => t.close());

  const createUser = (payload: unknown, headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url: '/api/v1/users', token: admin, payload: payload as object, headers });

  it('answers an unknown route with 404 as JSON', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/nothing-here' });
    assert.equal(response.statusCode, 404);
    assert.match(String(response.headers['content-type']), /application\/json/);
    assert.deepEqual(Object.keys(response.json()), ['error']);
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const response = await t.request({
      method: 'PATCH',
      url: '/api/v1/users/someone@example.com',
      token: admin,
    });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'DELETE, GET, HEAD, PUT');
    assert.match(response.json<{ error: string }>().error, /PATCH/);
  });

  it('answers malformed JSON with 400', async () => {
    const response = await createUser('{"email": ', { 'content-type': 'application/json' });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json<{ error: string }>().error, 'request body is not valid JSON');
  });

  it('answers a non-JSON content type with 415', async () => {
    const response = await createUser('email=a@b.c', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(response.statusCode, 415);
    const plain = await createUser('hello', { 'content-type': 'text/plain' });
    assert.equal(plain.statusCode, 415);
  });

  it('answers a body over 1 MiB with 413', async () => {
    const response = await createUser({
      email: 'big@example.com',
      password: 'x'.repeat(1024 * 1024),
      role_id: 2,
    });
    assert.equal(response.statusCode, 413);
    assert.deepEqual(Object.keys(response.json()), ['error']);
  });

  it('rejects an unknown field, naming it', async () => {
    const response = await createUser({
      email: 'a@example.com',
      password: 'password1',
      role_id: 2,
      admin: true,
    });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json<{ error: string }>().error, 'unknown field "admin"');
  });

  it('rejects a wrong type without coercing it, naming the field', async () => {
    const response = await createUser({ email: 'a@example.com', password: 'password1', role_id: '2' });
    assert.equal(response.statusCode, 400);
    assert.match(response.json<{ error: string }>().error, /^role_id must be/);
  });

  it('rejects a missing field, naming it', async () => {
    const response = await createUser({ email: 'a@example.com', role_id: 2 });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json<{ error: string }>().error, 'password is required');
  });

  it('takes an empty JSON body as no body: fine where none is needed, 400 where one is', async () => {
    const headers = { 'content-type': 'application/json' };
    const logout = await t.request({ method: 'POST', url: '/api/v1/auth/logout', headers, payload: '' });
    assert.equal(logout.statusCode, 200);
    const create = await createUser('', headers);
    assert.equal(create.statusCode, 400);
    assert.equal(create.json<{ error: string }>().error, 'request body must be a JSON object');
  });

  it('answers a body without a content type with 415', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      payload: Buffer.from('{}'),
    });
    assert.equal(response.statusCode, 415);
  });

  it('refuses prototype poisoning in JSON bodies', async () => {
    const response = await createUser('{"email":"a@example.com","__proto__":{"role_id":1}}', {
      'content-type': 'application/json',
    });
    assert.equal(response.statusCode, 400);
  });

  it('rejects a body that is not an object', async () => {
    const response = await createUser([1, 2]);
    assert.equal(response.statusCode, 400);
    assert.equal(response.json<{ error: string }>().error, 'request body must be a JSON object');
  });

  for (const [query, field] of [
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['per_page=0', 'per_page'],
    ['per_page=101', 'per_page'],
    ['per_page=2.5', 'per_page'],
  ] as const) {
    it(`rejects the query ${query} with 400 naming ${field}`, async () => {
      const response = await t.request({ method: 'GET', url: `/api/v1/users?${query}`, token: admin });
      assert.equal(response.statusCode, 400);
      assert.match(response.json<{ error: string }>().error, new RegExp(`^query parameter ${field} `));
    });
  }

  it('answers missing credentials with 401', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/users' });
    assert.equal(response.statusCode, 401);
    assert.match(response.json<{ error: string }>().error, /authentication required/);
  });

  it('answers a forged or garbled token with 401', async () => {
    for (const token of ['garbage', `${admin.slice(0, -4)}AAAA`, 'core_0123456789abcdef_' + '0'.repeat(64)]) {
      const response = await t.request({ method: 'GET', url: '/api/v1/users/me', token });
      assert.equal(response.statusCode, 401, token);
    }
  });

  it('answers a role without the permission with 403', async () => {
    const readOnly = await userWithRole(t, admin, 2);
    const response = await t.request({ method: 'GET', url: '/api/v1/logs/audit', token: readOnly });
    assert.equal(response.statusCode, 403);
    assert.deepEqual(Object.keys(response.json()), ['error']);
  });

  it('sends security headers on every answer', async () => {
    for (const url of ['/api/v1/status', '/api/v1/nothing-here']) {
      const response = await t.request({ method: 'GET', url });
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['x-frame-options'], 'DENY');
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.match(String(response.headers['content-security-policy']), /default-src 'none'/);
    }
  });

  it('serves a valid OpenAPI 3.1 document without credentials, with every route in it', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    const doc = response.json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>();
    assert.equal(doc.openapi, '3.1.0');
    const validation = await new Validator().validate(doc);
    assert.equal(validation.valid, true, JSON.stringify(validation.errors));
    for (const route of t.routes) {
      if (route.url === '/api/v1/openapi.json') continue;
      const path = route.url.replace(/:([a-z_]+)/g, '{$1}');
      assert.ok(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path} missing`);
    }
  });
});
