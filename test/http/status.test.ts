import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VERSION } from '../../src/version.ts';
import { createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

describe('GET /api/v1/status', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('answers without credentials, not initialized before the first user exists', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/status' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { result: { version: VERSION, initialized: false, ready: true } });
  });

  it('reports initialized once init has created the first user', async () => {
    await initialize(t);
    const response = await t.request({ method: 'GET', url: '/api/v1/status' });
    assert.equal(result(response).initialized, true);
  });
});
