import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { installErrorHandling } from '../../src/http/error-handler.ts';
import { installSecurityHeaders } from '../../src/http/security-headers.ts';
import { installWebUi } from '../../src/http/web-ui.ts';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

/** The pieces of buildHttpApp the web UI meets: error handling (404/405), security headers, one API route. */
async function appServing(directory: string): Promise<FastifyInstance> {
  const app = Fastify();
  installErrorHandling(app);
  installSecurityHeaders(app, { tls: false });
  installWebUi(app, directory);
  app.get('/api/v1/status', async () => ({ result: { initialized: true } }));
  await app.ready();
  return app;
}

describe('web UI serving', () => {
  let directory: string;
  let app: FastifyInstance;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'pmn-ui-'));
    mkdirSync(join(directory, 'assets'));
    writeFileSync(join(directory, 'index.html'), INDEX);
    writeFileSync(join(directory, 'assets', 'index-abc123.js'), SCRIPT);
    writeFileSync(join(directory, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    app = await appServing(directory);
  });
  after(async () => {
    await app.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('serves index.html at / to be revalidated, with a policy that lets the application run', async () => {
    const response = await app.inject({ method: 'GET', url: '/' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, INDEX);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.equal(response.headers['cache-control'], 'no-cache');
    const csp = String(response.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(response.headers['x-frame-options'], 'DENY');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
  });

  it('serves hashed assets immutable for a year, gzipped when the client accepts it', async () => {
    const plain = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, SCRIPT);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(plain.headers['content-type']), /^text\/javascript/);
    assert.equal(plain.headers['content-encoding'], undefined);

    const gzipped = await app.inject({
      method: 'GET',
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(gzipped.headers.vary, 'accept-encoding');
    assert.equal(gunzipSync(gzipped.rawPayload).toString(), SCRIPT);
    assert.ok(gzipped.rawPayload.length < SCRIPT.length / 10);
  });

  it('answers 304 to a revalidation with the current ETag', async () => {
    const first = await app.inject({ method: 'GET', url: '/' });
    const again = await app.inject({
      method: 'GET',
      url: '/',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it('answers client-side routes with index.html (a reload of /subscribers/x opens the page)', async () => {
    for (const url of ['/subscribers', '/subscribers/001010000000001?tab=sessions', '/settings/retention']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.body, INDEX, url);
    }
  });

  it('leaves the API alone: its routes, its JSON 404 and its 405', async () => {
    const status = await app.inject({ method: 'GET', url: '/api/v1/status' });
    assert.deepEqual(status.json(), { result: { initialized: true } });
    assert.equal(status.headers['cache-control'], 'no-store');
    assert.equal(status.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");

    const unknown = await app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { error: 'no route GET /api/v1/nothing-here' });

    const wrongMethod = await app.inject({ method: 'DELETE', url: '/api/v1/status' });
    assert.equal(wrongMethod.statusCode, 405);

    const posted = await app.inject({ method: 'POST', url: '/subscribers' });
    assert.equal(posted.statusCode, 404);
  });

  it('answers a missing asset with 404, not index.html', async () => {
    const response = await app.inject({ method: 'GET', url: '/assets/index-gone.js' });
    assert.equal(response.statusCode, 404);
    assert.notEqual(response.body, INDEX);
  });

  it('never serves a file outside the build', async () => {
    for (const url of ['/../package.json', '/assets/../../package.json', '/%2e%2e/package.json']) {
      const response = await app.inject({ method: 'GET', url });
      assert.ok(response.body === INDEX || response.statusCode === 404, url);
    }
  });

  it('says how to build the UI when there is none, and keeps the API', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'pmn-ui-none-'));
    const bare = await appServing(empty);
    try {
      const response = await bare.inject({ method: 'GET', url: '/' });
      assert.equal(response.statusCode, 404);
      assert.match(response.body, /web UI is not built: run `npm run build`/);
      const api = await bare.inject({ method: 'GET', url: '/api/v1/status' });
      assert.equal(api.statusCode, 200);
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
