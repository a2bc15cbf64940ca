import { createHmac } from 'node:crypto';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signJwt, verifyJwt } from '../../src/crypto/jwt.ts';

// RFC 7515 appendix A.1: the HS256 example, with its JWK key and its complete JWS.
const RFC7515_KEY = Buffer.from(
  'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow',
  'base64url',
);
const RFC7515_JWS =
  'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9' +
  '.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ' +
  '.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe('HS256 JWT', () => {
  it('verifies the RFC 7515 A.1 example before its expiry', () => {
    const claims = verifyJwt(RFC7515_JWS, RFC7515_KEY, 1300819379);
    assert.deepEqual(claims, { iss: 'joe', exp: 1300819380, 'http://example.com/is_root': true });
  });

  it('refuses the RFC 7515 A.1 example at and after its expiry', () => {
    assert.equal(verifyJwt(RFC7515_JWS, RFC7515_KEY, 1300819380), undefined);
  });

  it('refuses a changed signature, payload or key', () => {
    const [header, payload, signature] = RFC7515_JWS.split('.') as [string, string, string];
    const flipped = (signature[0] === 'd' ? 'e' : 'd') + signature.slice(1);
    assert.equal(verifyJwt(`${header}.${payload}.${flipped}`, RFC7515_KEY, 0), undefined);
    const otherPayload = Buffer.from('{"iss":"eve","exp":1300819380}').toString('base64url');
    assert.equal(verifyJwt(`${header}.${otherPayload}.${signature}`, RFC7515_KEY, 0), undefined);
    assert.equal(verifyJwt(RFC7515_JWS, Buffer.alloc(64, 1), 0), undefined);
  });

  it('refuses alg none and other algorithms even with a valid-looking token', () => {
    const none = Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url');
    const payload = Buffer.from('{"sub":1}').toString('base64url');
    assert.equal(verifyJwt(`${none}.${payload}.`, RFC7515_KEY, 0), undefined);
  });

  it('round-trips claims it signed', () => {
    const key = Buffer.alloc(32, 7);
    const token = signJwt({ sub: 1, sid: 2, exp: 2000 }, key);
    assert.deepEqual(verifyJwt(token, key, 1999), { sub: 1, sid: 2, exp: 2000 });
    assert.equal(verifyJwt('not.a.jwt.at.all', key, 0), undefined);
  });

  it('refuses a well-signed token without an expiry, or with one that is not a number', () => {
    const key = Buffer.from('a key of thirty-two bytes exactly');
    for (const claims of [
      { sub: 1, sid: 1 },
      { sub: 1, sid: 1, exp: '9999999999' },
      { sub: 1, exp: null },
    ]) {
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
      const signature = createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url');
      assert.equal(
        verifyJwt(`${header}.${payload}.${signature}`, key, 1000),
        undefined,
        JSON.stringify(claims),
      );
    }
  });
});
