import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { createSecretBox, loadOrCreateKeyFile, parseKeyHex } from '../../src/crypto/secret-box.ts';

const CORRUPT = { message: 'sealed value is corrupt or was sealed under another key' };
const isPosix = process.platform !== 'win32';

// Decodes one dot-separated part of a sealed value, flips a bit, and re-encodes it.
function flipBitInPart(sealed: string, partIndex: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[partIndex] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  parts[partIndex] = bytes.toString('base64url');
  return parts.join('.');
}

describe('createSecretBox', () => {
  const box = createSecretBox(randomBytes(32));

  it('round-trips plaintext, including empty and non-ASCII text', () => {
    for (const plaintext of ['465b5ce8b199b49faa5f0a2ee238a6bc', '', 'clé secrète ✓']) {
      assert.equal(box.open(box.seal(plaintext)), plaintext);
    }
  });

  it('produces the v1 compact format with a 12-byte IV and a 16-byte tag', () => {
    const [version, iv, ciphertext, tag, ...rest] = box.seal('secret').split('.');
    assert.equal(version, 'v1');
    assert.equal(Buffer.from(iv ?? '', 'base64url').length, 12);
    assert.equal(Buffer.from(ciphertext ?? '', 'base64url').length, 'secret'.length);
    assert.equal(Buffer.from(tag ?? '', 'base64url').length, 16);
    assert.deepEqual(rest, []);
  });

  it('uses a fresh IV each time the same plaintext is sealed', () => {
    const first = box.seal('same plaintext');
    const second = box.seal('same plaintext');
    assert.notEqual(first.split('.')[1], second.split('.')[1]);
    assert.notEqual(first, second);
  });

  it('rejects a value sealed under another key', () => {
    const sealed = createSecretBox(randomBytes(32)).seal('secret');
    assert.throws(() => box.open(sealed), CORRUPT);
  });

  it('rejects tampered IV, ciphertext and tag', () => {
    const sealed = box.seal('secret');
    for (const partIndex of [1, 2, 3]) {
      assert.throws(() => box.open(flipBitInPart(sealed, partIndex)), CORRUPT);
    }
  });

  it('rejects a truncated tag', () => {
    const [version, iv, ciphertext, tag = ''] = box.seal('secret').split('.');
    const shortTag = Buffer.from(tag, 'base64url').subarray(0, 12).toString('base64url');
    assert.throws(() => box.open([version, iv, ciphertext, shortTag].join('.')), CORRUPT);
  });

  it('rejects malformed input', () => {
    const sealed = box.seal('secret');
    const malformed = [
      '',
      'not a sealed value',
      sealed.replace(/^v1/, 'v2'),
      sealed.split('.').slice(0, 3).join('.'),
      `${sealed}.extra`,
      sealed.replace('.', '.!'),
    ];
    for (const value of malformed) {
      assert.throws(() => box.open(value), CORRUPT, value);
    }
  });

  it('requires a 32-byte key', () => {
    assert.throws(() => createSecretBox(randomBytes(16)), RangeError);
  });
});

describe('parseKeyHex', () => {
  it('accepts 64 hex characters with surrounding whitespace', () => {
    const key = randomBytes(32);
    assert.deepEqual(parseKeyHex(`  ${key.toString('hex').toUpperCase()}\n`), key);
  });

  it('rejects the wrong length and non-hex characters', () => {
    assert.throws(() => parseKeyHex('ab'.repeat(31)), /64 hex characters/);
    assert.throws(() => parseKeyHex('zz'.repeat(32)), /64 hex characters/);
  });
});

describe('loadOrCreateKeyFile', () => {
  let directory = '';

  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'pmn-secret-box-'));
  });

  after(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('creates a missing key file, with its parent directory, and reads the same key back', () => {
    const path = join(directory, 'nested', 'dir', 'secret.key');
    const created = loadOrCreateKeyFile(path);
    assert.equal(created.length, 32);
    assert.equal(readFileSync(path, 'utf8').trim(), created.toString('hex'));
    assert.deepEqual(loadOrCreateKeyFile(path), created);
  });

  it('creates the key file with mode 0600', { skip: !isPosix }, () => {
    const path = join(directory, 'mode.key');
    loadOrCreateKeyFile(path);
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it('rejects a malformed key file, naming the path', () => {
    const path = join(directory, 'malformed.key');
    writeFileSync(path, 'not a key\n', { mode: 0o600 });
    assert.throws(
      () => loadOrCreateKeyFile(path),
      (error: Error) => error.message.includes(path) && error.message.includes('malformed'),
    );
  });

  it('rejects a group-readable key file', { skip: !isPosix }, () => {
    const path = join(directory, 'group-readable.key');
    writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600 });
    chmodSync(path, 0o640);
    assert.throws(
      () => loadOrCreateKeyFile(path),
      (error: Error) => error.message.includes(path) && error.message.includes('readable'),
    );
  });
});
