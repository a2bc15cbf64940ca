import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';

// Issue 12, finding 2: query coercion read infinities, hex and unsafe integers as numbers (500s and
// altered echoes). Only plain decimal text with an exact value is a number.
let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await initialize(t);
});
after(() => t.close());

const get = (url: string) => t.request({ method: 'GET', url, token });

describe('numbers in query strings', () => {
  it('answers 400 {"error"} for infinities, exponents, hex and unsafe integers, never 5xx', async () => {
    for (const url of [
      '/api/v1/slices?page=1e308',
      '/api/v1/slices?page=1e400',
      '/api/v1/slices?per_page=Infinity',
      '/api/v1/subscribers?per_page=-Infinity',
      '/api/v1/subscribers?page=400000000000000000',
      '/api/v1/subscribers?page=9007199254740993',
      '/api/v1/policies?page=0x10',
      '/api/v1/slices?page=1.5',
      '/api/v1/networking/data-networks?page=%201',
      '/api/v1/flow-reports?protocol=Infinity',
      '/api/v1/pprof/profile?seconds=-Infinity',
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      const body = response.json<Record<string, unknown>>();
      assert.deepEqual(Object.keys(body), ['error'], url);
      assert.equal(typeof body.error, 'string', url);
    }
  });

  it('names the parameter and what it must be', async () => {
    assert.deepEqual((await get('/api/v1/slices?page=0x10')).json(), {
      error: 'query parameter page must be an integer',
    });
    assert.deepEqual((await get('/api/v1/slices?page=1000001')).json(), {
      error: 'query parameter page must be <= 1000000',
    });
  });

  it('accepts decimal integers in range and echoes them exactly', async () => {
    const response = await get('/api/v1/slices?page=1000000&per_page=100');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      (({ page, per_page }) => ({ page, per_page }))(
        response.json<{ result: { page: number; per_page: number } }>().result,
      ),
      { page: 1000000, per_page: 100 },
    );
  });
});
