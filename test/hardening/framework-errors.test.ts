import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';

// Issue 12, findings 3 and 4: errors raised before a route runs answered with Fastify's or Node's own
// bodies and without the security headers; a long e-mail could not be named in a path.
let t: TestApp;
let token: string;
let port: number;
before(async () => {
  t = await createTestApp();
  token = await initialize(t);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
after(() => t.close());

/** Sends raw bytes and returns the whole answer (the server closes the connection). */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.end(request);
  });
}

function assertApiError(answer: string, status: number): void {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  assert.match(head, new RegExp(`^HTTP/1.1 ${status} `));
  assert.match(head, /x-content-type-options: nosniff/i);
  assert.match(head, /content-type: application\/json/i);
  const parsed = JSON.parse(body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), ['error']);
  assert.equal(typeof parsed.error, 'string');
}

describe('errors before a route runs', () => {
  it('answers a malformed percent-encoding with {"error"} and the security headers', async () => {
    for (const url of ['/api/v1/users/%zz', '/api/v1/slices/%E0%A4%A']) {
      const response = await t.request({ method: 'GET', url, token });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), {
        error: 'the path is not a valid URL (malformed percent-encoding)',
      });
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
    }
  });

  it('answers a request head over 16 KiB with 431 {"error"}', async () => {
    const answer = await raw(
      `GET /api/v1/status HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(17_000)}\r\n\r\n`,
    );
    assertApiError(answer, 431);
  });

  // Issue 28, finding 8: the answer to HEAD carried the body.
  it('answers HEAD with a request head over 16 KiB with 431 and no body', async () => {
    const answer = await raw(
      `HEAD /api/v1/status HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(17_000)}\r\n\r\n`,
    );
    const [head = '', body] = answer.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1.1 431 /);
    assert.match(head, /x-content-type-options: nosniff/i);
    assert.equal(body, '');
  });

  it('answers an invalid Content-Length with 400 {"error"}', async () => {
    const answer = await raw('POST /api/v1/init HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n{}');
    assertApiError(answer, 400);
    assert.equal(answer.includes('abc'), false, 'no client input echoed');
  });

  it('manages a user whose e-mail has 254 characters through its path', async () => {
    const email = `${'u'.repeat(242)}@example.com`;
    assert.equal(email.length, 254);
    const created = await t.request({
      method: 'POST',
      url: '/api/v1/users',
      token,
      payload: { email, password: 'user-password', role_id: 2 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const deleted = await t.request({
      method: 'DELETE',
      url: `/api/v1/users/${encodeURIComponent(email)}`,
      token,
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
  });
});

describe('JSON errors', () => {
  it('blames the client only for its own body', async () => {
    const body = await t.request({
      method: 'POST',
      url: '/api/v1/slices',
      token,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    assert.equal(body.statusCode, 400);
    assert.deepEqual(body.json(), { error: 'request body is not valid JSON' });
  });
});
