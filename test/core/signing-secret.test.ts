import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { signJwt } from '../../src/crypto/jwt.ts';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';

const dir = mkdtempSync(join(tmpdir(), 'pmn-signing-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const stored = async (t: TestApp) =>
  (
    await t.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'jwt_signing_secret')
      .executeTakeFirstOrThrow()
  ).value;

const me = (t: TestApp, token: string) => t.request({ method: 'GET', url: '/api/v1/users/me', token });
const forged = (key: Buffer) => signJwt({ sub: 1, sid: 1, exp: Math.floor(Date.now() / 1000) + 600 }, key);

describe('JWT signing secret at rest', () => {
  it('is sealed under the key file: what the database holds mints nothing', async () => {
    const secretKey = randomBytes(32);
    const t = await createTestApp({ secretKey });
    await initialize(t);
    const value = await stored(t);
    assert.equal(/^[0-9a-f]{64}$/.test(value), false, 'not stored as plain hex');
    assert.equal((await me(t, forged(Buffer.from(value, 'hex')))).statusCode, 401);
    assert.equal((await me(t, forged(Buffer.from(value)))).statusCode, 401);
    await t.close();
  });

  it('survives a restart with the same key file, so bearer tokens stay valid', async () => {
    const database = join(dir, 'restart.db');
    const secretKey = randomBytes(32);
    const first = await createTestApp({ database, secretKey });
    const token = await initialize(first);
    await first.close();
    const second = await createTestApp({ database, secretKey });
    assert.equal((await me(second, token)).statusCode, 200);
    await second.close();
  });

  it('is replaced, never used, when the stored value is plain text, garbage or sealed under another key', async () => {
    for (const [name, value] of [
      ['plain', randomBytes(32).toString('hex')],
      ['garbage', 'not a sealed value'],
      ['empty', ''],
      ['other-key', createSecretBox(randomBytes(32)).seal(randomBytes(32).toString('hex'))],
    ] as const) {
      const database = join(dir, `${name}.db`);
      const secretKey = randomBytes(32);
      const first = await createTestApp({ database, secretKey });
      await initialize(first);
      await first.db.updateTable('settings').set({ value }).where('key', '=', 'jwt_signing_secret').execute();
      await first.close();
      const second = await createTestApp({ database, secretKey });
      const replaced = await stored(second);
      assert.notEqual(replaced, value, name);
      assert.equal(createSecretBox(secretKey).open(replaced).length, 64, name);
      if (name === 'plain') {
        assert.equal((await me(second, forged(Buffer.from(value, 'hex')))).statusCode, 401, name);
      }
      await second.close();
    }
  });

  it('names sessions by 128 random bits: a token for a guessed session id proves nothing', async () => {
    const secretKey = randomBytes(32);
    const t = await createTestApp({ secretKey });
    const token = await initialize(t);
    const sid = (
      JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sid: unknown }
    ).sid;
    assert.match(String(sid), /^[A-Za-z0-9_-]{22}$/);
    const secret = Buffer.from(createSecretBox(secretKey).open(await stored(t)), 'hex');
    const exp = Math.floor(Date.now() / 1000) + 600;
    assert.equal((await me(t, signJwt({ sub: 1, sid, exp }, secret))).statusCode, 200);
    for (const guess of [1, '1', 0, 'AAAAAAAAAAAAAAAAAAAAAA']) {
      assert.equal(
        (await me(t, signJwt({ sub: 1, sid: guess, exp }, secret))).statusCode,
        401,
        String(guess),
      );
    }
    await t.close();
  });
});
