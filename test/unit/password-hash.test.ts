import assert from 'node:assert/strict';
import { scryptSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { hashSecret, verifySecret } from '../../src/crypto/password-hash.ts';

const CHEAP = { N: 1024, r: 8, p: 1 };

describe('scrypt password hashing', () => {
  it('matches node:crypto scrypt on the RFC 7914 section 12 vector (password/NaCl, N=1024, r=8, p=16)', () => {
    const expected =
      'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640';
    assert.equal(scryptSync('password', 'NaCl', 64, { N: 1024, r: 8, p: 16 }).toString('hex'), expected);
  });

  it('verifies the right secret and refuses a wrong one', async () => {
    const stored = await hashSecret('correct horse', CHEAP);
    assert.match(stored, /^scrypt\$1024\$8\$1\$/);
    assert.equal(await verifySecret('correct horse', stored), true);
    assert.equal(await verifySecret('correct hors', stored), false);
  });

  it('salts every hash', async () => {
    assert.notEqual(await hashSecret('same', CHEAP), await hashSecret('same', CHEAP));
  });

  it('never matches a malformed stored hash', async () => {
    for (const stored of ['', 'plain', 'scrypt$x$8$1$AAAA$BBBB', 'bcrypt$1$2$3$4$5']) {
      assert.equal(await verifySecret('anything', stored), false, stored);
    }
  });
});
