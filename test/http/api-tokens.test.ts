import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import {
  auditEntries,
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

interface TokenItem {
  id: string;
  name: string;
  expires_at: string | null;
}

describe('API tokens', () => {
  let t: TestApp;
  let admin: string;
  const clock = manualClock();

  beforeEach(async () => {
    await t?.close();
    t = await createTestApp({ clock });
    admin = await initialize(t);
  });
  after(() => t.close());

  const createOwn = (token: string, payload: object) =>
    t.request({ method: 'POST', url: '/api/v1/users/me/api-tokens', token, payload });
  const listOwn = async (token: string) =>
    result<{ items: TokenItem[]; total_count: number }>(
      await t.request({ method: 'GET', url: '/api/v1/users/me/api-tokens', token }),
    );

  describe('POST /api/v1/users/me/api-tokens', () => {
    it('answers 201 with a core_<id>_<secret> token shown once, stored only as a hash', async () => {
      const response = await createOwn(admin, { name: 'prometheus' });
      assert.equal(response.statusCode, 201);
      const { token } = result<{ token: string }>(response);
      assert.match(token, /^core_[0-9a-f]{16}_[0-9a-f]{64}$/);
      const secret = token.split('_')[2] ?? '';
      const rows = await t.db.selectFrom('api_tokens').select(['secret_hash']).execute();
      assert.ok(
        rows.every((row) => !row.secret_hash.includes(secret) && row.secret_hash.startsWith('scrypt$')),
      );
      const me = await t.request({ method: 'GET', url: '/api/v1/users/me', token });
      assert.equal(me.statusCode, 200);
      assert.doesNotMatch(JSON.stringify(await listOwn(admin)), new RegExp(secret));
      assert.equal((await auditEntries(t, admin))[0]?.action, 'create_api_token');
    });

    it('validates the name (3-50 characters) and a future RFC 3339 expires_at', async () => {
      const cases: [object, RegExp][] = [
        [{ name: 'ab' }, /^name /],
        [{ name: 'x'.repeat(51) }, /^name /],
        [{ name: 'ok name', expires_at: 'tomorrow' }, /^expires_at /],
        [{ name: 'ok name', expires_at: '2020-01-01T00:00:00Z' }, /^expires_at must be in the future/],
      ];
      for (const [payload, message] of cases) {
        const response = await createOwn(admin, payload);
        assert.equal(response.statusCode, 400, JSON.stringify(payload));
        assert.match(response.json<{ error: string }>().error, message);
      }
    });

    it('allows at most 12 tokens per user (409 after)', async () => {
      for (let i = 0; i < 12; i++)
        assert.equal((await createOwn(admin, { name: `token ${i}` })).statusCode, 201);
      const response = await createOwn(admin, { name: 'token 12' });
      assert.equal(response.statusCode, 409);
      assert.match(response.json<{ error: string }>().error, /12/);
    });

    it('answers 409 for a second token with the same name', async () => {
      await createOwn(admin, { name: 'ci runner' });
      assert.equal((await createOwn(admin, { name: 'ci runner' })).statusCode, 409);
    });

    it('lets every role manage its own tokens', async () => {
      const readOnly = await userWithRole(t, admin, 2);
      assert.equal((await createOwn(readOnly, { name: 'mine' })).statusCode, 201);
      assert.equal((await listOwn(readOnly)).total_count, 1);
    });
  });

  describe('GET /api/v1/users/me/api-tokens', () => {
    it('lists {id, name, expires_at} paginated, expires_at null when it never expires', async () => {
      const expiresAt = new Date(clock.now() + 86_400_000).toISOString();
      await createOwn(admin, { name: 'forever' });
      await createOwn(admin, { name: 'one day', expires_at: expiresAt });
      const page = await listOwn(admin);
      assert.equal(page.total_count, 2);
      assert.deepEqual(
        page.items.map(({ name, expires_at }) => ({ name, expires_at })),
        [
          { name: 'forever', expires_at: null },
          { name: 'one day', expires_at: expiresAt },
        ],
      );
      assert.ok(page.items.every((item) => /^[0-9a-f]{16}$/.test(item.id)));
    });
  });

  describe('expiry', () => {
    it('answers 401 at once when the token has expired', async () => {
      const response = await createOwn(admin, {
        name: 'short',
        expires_at: new Date(clock.now() + 60_000).toISOString(),
      });
      const { token } = result<{ token: string }>(response);
      assert.equal((await t.request({ method: 'GET', url: '/api/v1/users/me', token })).statusCode, 200);
      clock.advance(60_000);
      assert.equal((await t.request({ method: 'GET', url: '/api/v1/users/me', token })).statusCode, 401);
    });
  });

  describe('DELETE /api/v1/users/me/api-tokens/{id}', () => {
    it('revokes the token at once and audits delete_api_token', async () => {
      const { token } = result<{ token: string }>(await createOwn(admin, { name: 'to revoke' }));
      assert.equal((await t.request({ method: 'GET', url: '/api/v1/users/me', token })).statusCode, 200);
      const [item] = (await listOwn(admin)).items;
      const response = await t.request({
        method: 'DELETE',
        url: `/api/v1/users/me/api-tokens/${item?.id}`,
        token: admin,
      });
      assert.equal(response.statusCode, 200);
      assert.equal((await t.request({ method: 'GET', url: '/api/v1/users/me', token })).statusCode, 401);
      assert.equal((await auditEntries(t, admin))[0]?.action, 'delete_api_token');
    });

    it('answers 404 for an unknown id and for another user’s token', async () => {
      const other = await userWithRole(t, admin, 2);
      await createOwn(other, { name: 'theirs' });
      const [theirs] = (await listOwn(other)).items;
      for (const id of ['0000000000000000', theirs?.id]) {
        const response = await t.request({
          method: 'DELETE',
          url: `/api/v1/users/me/api-tokens/${id}`,
          token: admin,
        });
        assert.equal(response.statusCode, 404);
      }
    });
  });

  describe('/api/v1/users/{email}/api-tokens (admin)', () => {
    it('lets an admin list, create and revoke another user’s tokens', async () => {
      const other = await userWithRole(t, admin, 3, 'nm@example.com');
      await createOwn(other, { name: 'theirs' });
      const base = '/api/v1/users/nm@example.com/api-tokens';
      const created = await t.request({
        method: 'POST',
        url: base,
        token: admin,
        payload: { name: 'given' },
      });
      assert.equal(created.statusCode, 201);
      const listed = result<{ items: TokenItem[] }>(
        await t.request({ method: 'GET', url: base, token: admin }),
      );
      assert.deepEqual(
        listed.items.map((i) => i.name),
        ['theirs', 'given'],
      );
      const removed = await t.request({
        method: 'DELETE',
        url: `${base}/${listed.items[0]?.id}`,
        token: admin,
      });
      assert.equal(removed.statusCode, 200);
      assert.equal((await listOwn(other)).total_count, 1);
    });

    it('answers 404 for an unknown user', async () => {
      const response = await t.request({
        method: 'GET',
        url: '/api/v1/users/nobody@example.com/api-tokens',
        token: admin,
      });
      assert.equal(response.statusCode, 404);
    });
  });
});
