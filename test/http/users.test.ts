import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import {
  createApiToken,
  ADMIN,
  auditEntries,
  createTestApp,
  initialize,
  login,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

describe('users', () => {
  let t: TestApp;
  let admin: string;

  beforeEach(async () => {
    await t?.close();
    t = await createTestApp();
    admin = await initialize(t);
  });
  after(() => t.close());

  const create = (email: string, roleId: number, password = 'user-password') =>
    t.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      payload: { email, password, role_id: roleId },
    });

  describe('POST /api/v1/users', () => {
    it('creates a user (201) and audits create_user with the numeric role', async () => {
      const response = await create('ops@example.com', 3);
      assert.equal(response.statusCode, 201);
      assert.equal(typeof result(response).message, 'string');
      const [entry] = await auditEntries(t, admin);
      assert.equal(entry?.action, 'create_user');
      assert.equal(entry?.actor, ADMIN.email);
      assert.match(entry?.details ?? '', /ops@example\.com.*role 3/);
    });

    it('answers 409 for an e-mail that exists, in any letter case', async () => {
      await create('ops@example.com', 3);
      assert.equal((await create('OPS@example.com', 2)).statusCode, 409);
    });

    it('rejects a role outside 1..3, a bad e-mail and a short password with 400 naming the field', async () => {
      const cases: [unknown, RegExp][] = [
        [{ email: 'a@example.com', password: 'password1', role_id: 4 }, /^role_id /],
        [{ email: 'not-an-email', password: 'password1', role_id: 2 }, /^email /],
        [{ email: 'a@example.com', password: 'short', role_id: 2 }, /^password /],
      ];
      for (const [payload, message] of cases) {
        const response = await t.request({
          method: 'POST',
          url: '/api/v1/users',
          token: admin,
          payload: payload as object,
        });
        assert.equal(response.statusCode, 400);
        assert.match(response.json<{ error: string }>().error, message);
      }
    });

    it('never stores or returns the password in clear', async () => {
      await create('ops@example.com', 3, 'very-secret-password');
      const rows = await t.db.selectFrom('users').select('password_hash').execute();
      assert.ok(
        rows.every(
          (row) => row.password_hash.startsWith('scrypt$') && !row.password_hash.includes('very-secret'),
        ),
      );
      const listed = await t.request({ method: 'GET', url: '/api/v1/users', token: admin });
      assert.doesNotMatch(listed.body, /password/);
    });
  });

  describe('GET /api/v1/users', () => {
    it('lists users paginated as {email, role_id}', async () => {
      await create('b@example.com', 2);
      await create('c@example.com', 3);
      const response = await t.request({
        method: 'GET',
        url: '/api/v1/users?page=2&per_page=2',
        token: admin,
      });
      assert.deepEqual(result(response), {
        items: [{ email: 'c@example.com', role_id: 3 }],
        page: 2,
        per_page: 2,
        total_count: 3,
      });
    });

    it('applies the defaults page 1 and per_page 25', async () => {
      const response = await t.request({ method: 'GET', url: '/api/v1/users', token: admin });
      const page = result<{ page: number; per_page: number }>(response);
      assert.equal(page.page, 1);
      assert.equal(page.per_page, 25);
    });
  });

  describe('GET /api/v1/users/{email}', () => {
    it('reads one user, and answers 404 for an unknown one', async () => {
      await create('ops@example.com', 3);
      const found = await t.request({ method: 'GET', url: '/api/v1/users/ops@example.com', token: admin });
      assert.deepEqual(result(found), { email: 'ops@example.com', role_id: 3 });
      const missing = await t.request({
        method: 'GET',
        url: '/api/v1/users/nobody@example.com',
        token: admin,
      });
      assert.equal(missing.statusCode, 404);
    });
  });

  describe('PUT /api/v1/users/{email}', () => {
    it('changes the role, effective on the next request, and audits update_user', async () => {
      const token = await userWithRole(t, admin, 2, 'ro@example.com');
      assert.equal((await t.request({ method: 'GET', url: '/api/v1/users', token })).statusCode, 403);
      const response = await t.request({
        method: 'PUT',
        url: '/api/v1/users/ro@example.com',
        token: admin,
        payload: { role_id: 3 },
      });
      assert.equal(response.statusCode, 200);
      assert.equal((await t.request({ method: 'GET', url: '/api/v1/users', token })).statusCode, 200);
      assert.equal((await auditEntries(t, admin))[0]?.action, 'update_user');
    });

    it('applies a role change at once to the user’s API tokens too', async () => {
      const bearer = await userWithRole(t, admin, 3, 'nm@example.com');
      const apiToken = await createApiToken(t, bearer, 'script');
      assert.equal(
        (await t.request({ method: 'GET', url: '/api/v1/users', token: apiToken })).statusCode,
        200,
      );
      await t.request({
        method: 'PUT',
        url: '/api/v1/users/nm@example.com',
        token: admin,
        payload: { role_id: 2 },
      });
      assert.equal(
        (await t.request({ method: 'GET', url: '/api/v1/users', token: apiToken })).statusCode,
        403,
      );
    });

    it('refuses to demote the last admin (409)', async () => {
      const response = await t.request({
        method: 'PUT',
        url: `/api/v1/users/${ADMIN.email}`,
        token: admin,
        payload: { role_id: 2 },
      });
      assert.equal(response.statusCode, 409);
      assert.match(response.json<{ error: string }>().error, /last admin/);
    });

    it('answers 404 for an unknown user', async () => {
      const response = await t.request({
        method: 'PUT',
        url: '/api/v1/users/nobody@example.com',
        token: admin,
        payload: { role_id: 2 },
      });
      assert.equal(response.statusCode, 404);
    });
  });

  describe('DELETE /api/v1/users/{email}', () => {
    it('deletes the user, ends its sessions and revokes its API tokens', async () => {
      const bearer = await userWithRole(t, admin, 3, 'ops@example.com');
      const apiToken = await createApiToken(t, bearer, 'script');
      assert.equal(
        (await t.request({ method: 'GET', url: '/api/v1/users/me', token: apiToken })).statusCode,
        200,
      );
      const response = await t.request({
        method: 'DELETE',
        url: '/api/v1/users/ops@example.com',
        token: admin,
      });
      assert.equal(response.statusCode, 200);
      for (const token of [bearer, apiToken]) {
        assert.equal((await t.request({ method: 'GET', url: '/api/v1/users/me', token })).statusCode, 401);
      }
      assert.equal((await auditEntries(t, admin))[0]?.action, 'delete_user');
    });

    it('refuses to delete the last admin (409) but deletes an admin when another remains', async () => {
      const last = await t.request({ method: 'DELETE', url: `/api/v1/users/${ADMIN.email}`, token: admin });
      assert.equal(last.statusCode, 409);
      await create('second@example.com', 1);
      const response = await t.request({
        method: 'DELETE',
        url: `/api/v1/users/${ADMIN.email}`,
        token: admin,
      });
      assert.equal(response.statusCode, 200);
    });

    it('keeps one admin when two admins delete each other at once', async () => {
      const other = await userWithRole(t, admin, 1, 'second@example.com');
      const answers = await Promise.all([
        t.request({ method: 'DELETE', url: '/api/v1/users/second@example.com', token: admin }),
        t.request({ method: 'DELETE', url: `/api/v1/users/${ADMIN.email}`, token: other }),
      ]);
      const admins = await t.db.selectFrom('users').select('email').where('role_id', '=', 1).execute();
      assert.equal(admins.length, 1);
      assert.ok(answers.some((r) => r.statusCode === 200));
    });
  });

  describe('PUT /api/v1/users/{email}/password', () => {
    it('sets the password and ends the user’s sessions', async () => {
      const bearer = await userWithRole(t, admin, 2, 'ro@example.com');
      const response = await t.request({
        method: 'PUT',
        url: '/api/v1/users/ro@example.com/password',
        token: admin,
        payload: { password: 'brand-new-password' },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(
        (await t.request({ method: 'GET', url: '/api/v1/users/me', token: bearer })).statusCode,
        401,
      );
      await login(t, 'ro@example.com', 'brand-new-password');
      assert.equal((await auditEntries(t, admin))[1]?.action, 'update_user_password');
    });

    it('rejects a password under 8 characters', async () => {
      const response = await t.request({
        method: 'PUT',
        url: `/api/v1/users/${ADMIN.email}/password`,
        token: admin,
        payload: { password: '1234567' },
      });
      assert.equal(response.statusCode, 400);
    });
  });

  describe('GET /api/v1/users/me', () => {
    it('returns the calling user for every role', async () => {
      for (const roleId of [2, 3] as const) {
        const token = await userWithRole(t, admin, roleId);
        const response = await t.request({ method: 'GET', url: '/api/v1/users/me', token });
        assert.deepEqual(result(response), { email: `role${roleId}@example.com`, role_id: roleId });
      }
    });
  });

  describe('PUT /api/v1/users/me/password', () => {
    it('changes the own password after checking the current one; the calling session stays, the others end', async () => {
      const token = await userWithRole(t, admin, 2, 'ro@example.com');
      const other = await login(t, 'ro@example.com', 'user-password');
      const apiToken = await createApiToken(t, token);
      const wrong = await t.request({
        method: 'PUT',
        url: '/api/v1/users/me/password',
        token,
        payload: { current_password: 'not-it-at-all', password: 'brand-new-password' },
      });
      assert.equal(wrong.statusCode, 400);
      assert.match(wrong.json<{ error: string }>().error, /current_password/);
      const right = await t.request({
        method: 'PUT',
        url: '/api/v1/users/me/password',
        token,
        payload: { current_password: 'user-password', password: 'brand-new-password' },
      });
      assert.equal(right.statusCode, 200);
      const me = (bearer: string) => t.request({ method: 'GET', url: '/api/v1/users/me', token: bearer });
      // Decisions section 5: the session that made the change stays, the other session ends, and API
      // tokens (not sessions) keep working.
      assert.equal((await me(token)).statusCode, 200);
      assert.equal((await me(other)).statusCode, 401);
      assert.equal((await me(apiToken)).statusCode, 200);
      await assert.rejects(login(t, 'ro@example.com', 'user-password'));
      await login(t, 'ro@example.com', 'brand-new-password');
    });

    it('keeps the session cookie of the calling session: refresh still gives a token', async () => {
      const email = 'cookie@example.com';
      await create(email, 2);
      const signIn = await t.request({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email, password: 'user-password' },
      });
      const cookie = signIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      const token = result<{ token: string }>(signIn).token;
      const changed = await t.request({
        method: 'PUT',
        url: '/api/v1/users/me/password',
        token,
        payload: { current_password: 'user-password', password: 'brand-new-password' },
      });
      assert.equal(changed.statusCode, 200);
      const refreshed = await t.request({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        headers: { cookie },
      });
      assert.equal(refreshed.statusCode, 200);
    });

    it('made with an API token, which belongs to no session, ends every session of the user', async () => {
      const token = await userWithRole(t, admin, 2, 'ro@example.com');
      const apiToken = await createApiToken(t, token);
      const changed = await t.request({
        method: 'PUT',
        url: '/api/v1/users/me/password',
        token: apiToken,
        payload: { current_password: 'user-password', password: 'brand-new-password' },
      });
      assert.equal(changed.statusCode, 200);
      assert.equal((await t.request({ method: 'GET', url: '/api/v1/users/me', token })).statusCode, 401);
      assert.equal(
        (await t.request({ method: 'GET', url: '/api/v1/users/me', token: apiToken })).statusCode,
        200,
      );
    });
  });
});
