import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';

// Issue 28, finding 8: error messages repeated the client's input whatever its length. They repeat at
// most 100 characters of it, then "…".
let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await initialize(t);
});
after(() => t.close());

async function errorOf(request: Parameters<TestApp['request']>[0], status: number): Promise<string> {
  const response = await t.request({ token, ...request });
  assert.equal(response.statusCode, status, response.body);
  return response.json<{ error: string }>().error;
}

describe('input repeated in error messages', () => {
  it('cuts a long name in a resource message to 100 characters', async () => {
    const name = 's'.repeat(250);
    const error = await errorOf({ method: 'GET', url: `/api/v1/slices/${name}` }, 404);
    assert.equal(error, `slice ${'s'.repeat(100)}… not found`);
  });

  it('cuts a long e-mail', async () => {
    const email = `${'u'.repeat(242)}@example.com`;
    const error = await errorOf({ method: 'DELETE', url: `/api/v1/users/${encodeURIComponent(email)}` }, 404);
    assert.equal(error, `user ${email.slice(0, 100)}… not found`);
  });

  it('cuts a long unknown field name, spaces included', async () => {
    const field = 'no such field '.repeat(400);
    const error = await errorOf(
      { method: 'POST', url: '/api/v1/slices', payload: { name: 'x', sst: 1, [field]: 1 } },
      400,
    );
    assert.equal(error, `unknown field "${field.slice(0, 100)}…"`);
  });

  it('cuts a long path in the unknown-route and wrong-method messages', async () => {
    const path = `/api/v1/${'p'.repeat(3000)}`;
    assert.equal(await errorOf({ method: 'GET', url: path }, 404), `no route GET ${path.slice(0, 100)}…`);
    const slice = `/api/v1/slices/${'q'.repeat(500)}`;
    assert.equal(
      await errorOf({ method: 'POST', url: slice }, 405),
      `method POST is not allowed on ${slice.slice(0, 100)}…`,
    );
  });

  it('leaves short input whole', async () => {
    assert.equal(await errorOf({ method: 'GET', url: '/api/v1/slices/gold' }, 404), 'slice gold not found');
  });
});
