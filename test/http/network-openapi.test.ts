import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const ROUTES: [string, string][] = [
  ['get', '/api/v1/operator'],
  ['put', '/api/v1/operator/id'],
  ['put', '/api/v1/operator/tracking'],
  ['put', '/api/v1/operator/code'],
  ...['get', 'post'].map((m): [string, string] => [m, '/api/v1/networking/data-networks']),
  ...['get', 'put', 'delete'].map((m): [string, string] => [m, '/api/v1/networking/data-networks/{name}']),
  ...['get', 'post'].map((m): [string, string] => [m, '/api/v1/slices']),
  ...['get', 'put', 'delete'].map((m): [string, string] => [m, '/api/v1/slices/{name}']),
  ...['get', 'post'].map((m): [string, string] => [m, '/api/v1/policies']),
  ...['get', 'put', 'delete'].map((m): [string, string] => [m, '/api/v1/policies/{name}']),
  ...['get', 'post'].map((m): [string, string] => [m, '/api/v1/profiles']),
  ...['get', 'put', 'delete'].map((m): [string, string] => [m, '/api/v1/profiles/{name}']),
  ...['get', 'post'].map((m): [string, string] => [m, '/api/v1/subscribers']),
  ['post', '/api/v1/subscribers/import'],
  ...['get', 'put', 'delete'].map((m): [string, string] => [m, '/api/v1/subscribers/{imsi}']),
  ['get', '/api/v1/subscribers/{imsi}/credentials'],
];

describe('GET /api/v1/openapi.json: network configuration', () => {
  it('describes every network configuration route with a summary', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/openapi.json' });
    const paths = response.json<{ paths: Record<string, Record<string, { summary?: string }>> }>().paths;
    for (const [method, path] of ROUTES) {
      assert.ok(paths[path]?.[method]?.summary, `${method.toUpperCase()} ${path} has no summary`);
    }
  });

  it('offers the import in JSON and CSV', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/openapi.json' });
    const content = response.json<{
      paths: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }>;
    }>().paths['/api/v1/subscribers/import']?.post.requestBody.content;
    assert.deepEqual(Object.keys(content ?? {}).sort(), ['application/json', 'text/csv']);
  });
});
