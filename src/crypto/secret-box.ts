// Encryption at rest for secrets stored by the core (subscriber keys and the like), with AES-256-GCM.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT_VERSION = 'v1';
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const KEY_HEX = /^[0-9a-fA-F]{64}$/;
const CORRUPT_MESSAGE = 'sealed value is corrupt or was sealed under another key';
const GROUP_OR_OTHER_PERMISSIONS = 0o077;

export interface SecretBox {
  /** Encrypts under a fresh random IV: `v1.<iv>.<ciphertext>.<tag>`, each part base64url. */
  seal(plaintext: string): string;
  /** Verifies and decrypts a value from `seal`; throws the same Error for every kind of failure. */
  open(sealed: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) {
    throw new RangeError(`secret box key must be ${KEY_BYTES} bytes, got ${key.length}`);
  }
  // Copied so that a caller reusing or zeroing its buffer cannot change the key under us.
  const boxKey = Buffer.from(key);
  return {
    seal: (plaintext) => seal(boxKey, plaintext),
    open: (sealed) => open(boxKey, sealed),
  };
}

/** Parses a 32-byte key written as 64 hex characters (surrounding whitespace allowed). */
export function parseKeyHex(hex: string): Buffer {
  const trimmed = hex.trim();
  // The message deliberately omits the value: it is meant to be a secret.
  if (!KEY_HEX.test(trimmed)) {
    throw new Error(`key must be ${KEY_BYTES * 2} hex characters, got ${trimmed.length} characters`);
  }
  return Buffer.from(trimmed, 'hex');
}

/** Reads the key file at `path`, or creates it with a new random key (mode 0600) if it does not exist. */
export function loadOrCreateKeyFile(path: string): Buffer {
  try {
    return readKeyFile(path);
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT')) throw error;
  }
  return createKeyFile(path);
}

function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [
    FORMAT_VERSION,
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    tag.toString('base64url'),
  ].join('.');
}

function open(key: Buffer, sealed: string): string {
  try {
    const { iv, ciphertext, tag } = parseSealed(sealed);
    // authTagLength pins the tag to 16 bytes; otherwise GCM would accept a truncated tag.
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch (error) {
    // One message for malformed input, tampering and a wrong key alike: the caller's remedy is the same.
    throw new Error(CORRUPT_MESSAGE, { cause: error });
  }
}

function parseSealed(sealed: string): { iv: Buffer; ciphertext: Buffer; tag: Buffer } {
  const [version, iv = '', ciphertext = '', tag = '', ...extra] = sealed.split('.');
  // Buffer.from silently skips characters outside the alphabet, so they are rejected here first.
  if (
    version !== FORMAT_VERSION ||
    extra.length > 0 ||
    ![iv, ciphertext, tag].every((part) => BASE64URL.test(part))
  ) {
    throw new Error('unrecognised sealed value format');
  }
  const parts = {
    iv: Buffer.from(iv, 'base64url'),
    ciphertext: Buffer.from(ciphertext, 'base64url'),
    tag: Buffer.from(tag, 'base64url'),
  };
  if (parts.iv.length !== IV_BYTES || parts.tag.length !== TAG_BYTES) {
    throw new Error('sealed value has a wrong IV or tag length');
  }
  return parts;
}

function readKeyFile(path: string): Buffer {
  const mode = statSync(path).mode;
  // POSIX permission bits are meaningless on Windows, where Node reports them loosely.
  if (process.platform !== 'win32' && (mode & GROUP_OR_OTHER_PERMISSIONS) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    throw new Error(
      `key file ${path} is readable or writable by group or others (mode ${octal}); run chmod 600 ${path}`,
    );
  }
  const contents = readFileSync(path, 'utf8');
  try {
    return parseKeyHex(contents);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`key file ${path} is malformed: ${reason}`, { cause: error });
  }
}

function createKeyFile(path: string): Buffer {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  try {
    // 'wx' fails if the file exists, so two processes starting together cannot overwrite each other's key.
    writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST')) return readKeyFile(path);
    throw error;
  }
  return key;
}

function hasErrorCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
