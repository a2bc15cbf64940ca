import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/logging.ts';
import { createTestApp } from '../helpers/test-app.ts';

describe('logs', () => {
  it('never carry a password, token or cookie, even at trace level', async () => {
    let written = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written += chunk.toString();
        done();
      },
    });
    const { app, close } = await createTestApp({ logger: createLogger('trace', sink) });
    const password = 'Hunter2-very-secret';
    const init = await app.inject({
      method: 'POST',
      url: '/api/v1/init',
      payload: { email: 'a@example.com', password },
    });
    const bearer = init.json<{ result: { token: string } }>().result.token;
    const cookie = String(init.headers['set-cookie']).split(';')[0] ?? '';
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/users/me/api-tokens',
      headers: { authorization: `Bearer ${bearer}` },
      payload: { name: 'secret check' },
    });
    const apiToken = created.json<{ result: { token: string } }>().result.token;
    await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'a@example.com', password: 'wrong-Pa55word' },
    });
    await app.inject({ method: 'POST', url: '/api/v1/auth/refresh', headers: { cookie } });
    await app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: { authorization: `Bearer ${apiToken}` },
    });
    const subscriberKey = '0123456789abcdef0123456789abcdef';
    const subscriberOpc = 'fedcba9876543210fedcba9876543210';
    await app.inject({
      method: 'POST',
      url: '/api/v1/subscribers',
      headers: { authorization: `Bearer ${apiToken}` },
      payload: {
        imsi: '001010000000001',
        key: subscriberKey,
        opc: subscriberOpc,
        sequenceNumber: '000000000001',
        profile_name: 'default',
      },
    });
    await app.inject({
      method: 'GET',
      url: '/api/v1/subscribers/001010000000001/credentials',
      headers: { authorization: `Bearer ${apiToken}` },
    });
    await close();

    assert.ok(written.length > 0, 'the app logged something at trace level');
    const secrets = [password, 'wrong-Pa55word', bearer, apiToken, cookie.split('=')[1] ?? 'x'];
    for (const secret of [...secrets, subscriberKey, subscriberOpc]) {
      assert.equal(written.includes(secret), false, `a log line holds ${secret.slice(0, 12)}…`);
    }
  });
});
