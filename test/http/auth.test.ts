import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import {
  createApiToken,
  ADMIN,
  auditEntries,
  createTestApp,
  initialize,
  manualClock,
  result,
  type TestApp,
} from '../helpers/test-app.ts';

function sessionCookie(response: { headers: Record<string, unknown> }): string {
  const header = String(response.headers['set-cookie']);
  const match = /pmn_session=([0-9a-f]+)/.exec(header);
  assert.ok(match, `no session cookie in ${header}`);
  return `pmn_session=${match[1]}`;
}

describe('authentication', () => {
  let t: TestApp;
  let admin: string;
  const clock = manualClock();

  beforeEach(async () => {
    await t?.close();
    t = await createTestApp({ clock });
    admin = await initialize(t);
  });
  after(() => t.close());

  const login = (email: string, password: string, ip = '10.0.0.1') =>
    t.request({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password }, remoteAddress: ip });

  describe('POST /api/v1/init', () => {
    it('answers 409 once a user exists', async () => {
      const response = await t.request({ method: 'POST', url: '/api/v1/init', payload: ADMIN });
      assert.equal(response.statusCode, 409);
    });

    it('creates an admin, sets the session cookie and audits create_user with the role', async () => {
      const me = await t.request({ method: 'GET', url: '/api/v1/users/me', token: admin });
      assert.deepEqual(result(me), { email: ADMIN.email, role_id: 1 });
      const [entry] = await auditEntries(t, admin);
      assert.equal(entry?.action, 'create_user');
      assert.match(entry?.details ?? '', /role 1/);
    });

    it('rejects a short password', async () => {
      const fresh = await createTestApp();
      const response = await fresh.request({
        method: 'POST',
        url: '/api/v1/init',
        payload: { email: 'a@example.com', password: 'short' },
      });
      assert.equal(response.statusCode, 400);
      assert.match(response.json<{ error: string }>().error, /^password /);
      await fresh.close();
    });

    it('lets only one of two concurrent inits win', async () => {
      const fresh = await createTestApp();
      const answers = await Promise.all(
        ['one@example.com', 'two@example.com'].map((email) =>
          fresh.request({ method: 'POST', url: '/api/v1/init', payload: { email, password: 'password1' } }),
        ),
      );
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 409]);
      await fresh.close();
    });
  });

  describe('POST /api/v1/auth/login', () => {
    it('returns a bearer token and sets an httpOnly SameSite=Strict cookie valid 30 days', async () => {
      const response = await login(ADMIN.email, ADMIN.password);
      assert.equal(response.statusCode, 200);
      assert.equal(typeof result(response).token, 'string');
      assert.equal(typeof result(response).message, 'string');
      const cookie = String(response.headers['set-cookie']);
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Strict/);
      assert.match(cookie, /Max-Age=2592000/);
      assert.doesNotMatch(cookie, /Secure/);
    });

    it('accepts the e-mail in any letter case', async () => {
      assert.equal((await login(ADMIN.email.toUpperCase(), ADMIN.password)).statusCode, 200);
    });

    it('answers a wrong password and an unknown user alike, and audits the failure as WARN', async () => {
      const wrong = await login(ADMIN.email, 'wrong-password');
      const unknown = await login('nobody@example.com', 'whatever1');
      for (const response of [wrong, unknown]) {
        assert.equal(response.statusCode, 401);
        assert.deepEqual(response.json(), { error: 'invalid credentials' });
      }
      const failures = (await auditEntries(t, admin)).filter((e) => e.action === 'login_failed');
      assert.equal(failures.length, 2);
      assert.ok(failures.every((e) => e.level === 'WARN' && e.ip === '10.0.0.1'));
      assert.ok(
        failures.every((e) => !e.details.includes('wrong-password') && !e.details.includes('whatever1')),
      );
    });

    it('limits attempts per address and e-mail to 10 a minute, with Retry-After', async () => {
      for (let i = 0; i < 10; i++) assert.equal((await login(ADMIN.email, 'wrong-password')).statusCode, 401);
      const limited = await login(ADMIN.email, ADMIN.password);
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) >= 1 && Number(limited.headers['retry-after']) <= 60);
      assert.equal((await login(ADMIN.email, ADMIN.password, '10.0.0.2')).statusCode, 200, 'other address');
      clock.advance(61_000);
      assert.equal((await login(ADMIN.email, ADMIN.password)).statusCode, 200, 'after the window');
    });
  });

  describe('POST /api/v1/auth/refresh', () => {
    it('returns a new bearer token for the session cookie', async () => {
      const cookie = sessionCookie(await login(ADMIN.email, ADMIN.password));
      const response = await t.request({ method: 'POST', url: '/api/v1/auth/refresh', headers: { cookie } });
      assert.equal(response.statusCode, 200);
      const { token } = result<{ token: string }>(response);
      const me = await t.request({ method: 'GET', url: '/api/v1/users/me', token });
      assert.equal(me.statusCode, 200);
    });

    it('answers 401 without a cookie or with an unknown one', async () => {
      const none = await t.request({ method: 'POST', url: '/api/v1/auth/refresh' });
      const unknown = await t.request({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        headers: { cookie: `pmn_session=${'ab'.repeat(32)}` },
      });
      assert.equal(none.statusCode, 401);
      assert.equal(unknown.statusCode, 401);
    });

    it('issues tokens that expire after 15 minutes, and sessions that expire after 30 days', async () => {
      const response = await login(ADMIN.email, ADMIN.password);
      const cookie = sessionCookie(response);
      const { token } = result<{ token: string }>(response);
      clock.advance(15 * 60_000 + 1000);
      assert.equal((await t.request({ method: 'GET', url: '/api/v1/users/me', token })).statusCode, 401);
      const refreshed = await t.request({ method: 'POST', url: '/api/v1/auth/refresh', headers: { cookie } });
      assert.equal(refreshed.statusCode, 200);
      clock.advance(30 * 24 * 3600_000);
      const late = await t.request({ method: 'POST', url: '/api/v1/auth/refresh', headers: { cookie } });
      assert.equal(late.statusCode, 401);
    });
  });

  describe('POST /api/v1/auth/logout', () => {
    it('ends the session: its cookie and its bearer tokens stop working', async () => {
      const response = await login(ADMIN.email, ADMIN.password);
      const cookie = sessionCookie(response);
      const { token } = result<{ token: string }>(response);
      const out = await t.request({ method: 'POST', url: '/api/v1/auth/logout', headers: { cookie } });
      assert.equal(out.statusCode, 200);
      assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
      assert.equal(
        (await t.request({ method: 'POST', url: '/api/v1/auth/refresh', headers: { cookie } })).statusCode,
        401,
      );
      assert.equal((await t.request({ method: 'GET', url: '/api/v1/users/me', token })).statusCode, 401);
      assert.equal(
        (await t.request({ method: 'GET', url: '/api/v1/users/me', token: admin })).statusCode,
        200,
      );
    });
  });

  describe('POST /api/v1/auth/lookup-token', () => {
    it('answers 200 {valid: true} for a valid bearer token or API token', async () => {
      for (const token of [admin, await createApiToken(t, admin, 'lookup')]) {
        const response = await t.request({ method: 'POST', url: '/api/v1/auth/lookup-token', token });
        assert.deepEqual(response.json(), { result: { valid: true } });
      }
    });

    it('answers 200 {valid: false} for no, a bad or an expired token', async () => {
      for (const token of [undefined, 'nonsense']) {
        const response = await t.request({ method: 'POST', url: '/api/v1/auth/lookup-token', token });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), { result: { valid: false } });
      }
      clock.advance(16 * 60_000);
      const expired = await t.request({ method: 'POST', url: '/api/v1/auth/lookup-token', token: admin });
      assert.deepEqual(expired.json(), { result: { valid: false } });
    });
  });

  describe('POST /api/v1/auth/rotate-secret', () => {
    it('ends every session and bearer token but keeps API tokens working', async () => {
      const apiToken = await createApiToken(t, admin, 'survivor');
      const cookie = sessionCookie(await login(ADMIN.email, ADMIN.password));

      const rotated = await t.request({ method: 'POST', url: '/api/v1/auth/rotate-secret', token: admin });
      assert.equal(rotated.statusCode, 200);
      assert.equal(typeof result(rotated).message, 'string');

      assert.equal(
        (await t.request({ method: 'GET', url: '/api/v1/users/me', token: admin })).statusCode,
        401,
      );
      assert.equal(
        (await t.request({ method: 'POST', url: '/api/v1/auth/refresh', headers: { cookie } })).statusCode,
        401,
      );
      assert.equal(
        (await t.request({ method: 'GET', url: '/api/v1/users/me', token: apiToken })).statusCode,
        200,
      );
      const entries = await auditEntries(t, apiToken);
      assert.equal(entries[0]?.action, 'rotate_secret');
      assert.equal(entries[0]?.actor, ADMIN.email);
    });
  });
});
