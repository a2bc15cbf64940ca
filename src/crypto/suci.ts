// SUCI de-concealment (the SIDF of TS 33.501 6.12.2) and the UE-side concealment, with the protection schemes of
// TS 33.501 Annex C: the null scheme, Profile A (X25519) and Profile B (P-256), both ECIES with the ANSI X9.63
// KDF over SHA-256, AES-128-CTR and an HMAC-SHA-256 tag cut to 8 bytes (C.3.2, C.3.4). The scheme output and
// the home network private key are untrusted bytes here: every failure is an error value, never a throw.
import {
  createCipheriv,
  createECDH,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  timingSafeEqual,
  type ECDH,
  type KeyObject,
} from 'node:crypto';

import { createKeyCache } from './key-memory.ts';

/** TS 24.501 9.11.3.4 / TS 33.501 Annex C: the protection scheme identifiers. */
export const PROTECTION_SCHEME = { null: 0, profileA: 1, profileB: 2 } as const;
type ProtectionScheme = (typeof PROTECTION_SCHEME)[keyof typeof PROTECTION_SCHEME];
export type EciesProfile = typeof PROTECTION_SCHEME.profileA | typeof PROTECTION_SCHEME.profileB;

const X25519_KEY_BYTES = 32;
const P256_PRIVATE_KEY_BYTES = 32;
const P256_COMPRESSED_BYTES = 33;
const ENC_KEY_BYTES = 16;
const ICB_BYTES = 16;
const MAC_KEY_BYTES = 32;
const MAC_TAG_BYTES = 8;
// An MSIN has at most 10 digits (TS 23.003 2.2), so at most 5 BCD bytes.
const MAX_MSIN_BYTES = 5;
// RFC 8410: the DER framing of a raw X25519 private key (PKCS #8).
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** A home network key pair, ready for de-concealment. Build it with `importHomeNetworkKey`. */
export interface HomeNetworkKey {
  profile: EciesProfile;
  /** Profile A: 32 bytes; Profile B: the compressed point, 33 bytes. */
  publicKey: Buffer;
  /** Profile A: the private KeyObject; Profile B: an ECDH holding the private scalar (set once: it costs a point
   * multiplication). */
  secret: KeyObject | ECDH;
}

export type SuciError =
  | 'unknown-home-network-key'
  | 'profile-mismatch'
  | 'invalid-scheme-output'
  | 'invalid-private-key'
  | 'invalid-ephemeral-key'
  | 'mac-mismatch'
  | 'invalid-msin';

type Result<T> = { ok: true; value: T } | { ok: false; error: SuciError };

/** A SUCI's protection scheme, home network public key identifier and scheme output (TS 23.003 2.2B). */
interface ConcealedSupi {
  protectionScheme: number;
  homeNetworkPublicKeyId: number;
  schemeOutput: Uint8Array;
}

/** Makes a HomeNetworkKey from a raw private key (32 bytes for either profile); an invalid key is an error value. */
export function importHomeNetworkKey(profile: EciesProfile, privateKey: Uint8Array): Result<HomeNetworkKey> {
  try {
    if (profile === PROTECTION_SCHEME.profileA) {
      if (privateKey.length !== X25519_KEY_BYTES) return { ok: false, error: 'invalid-private-key' };
      const secret = x25519PrivateKey(privateKey);
      return { ok: true, value: { profile, publicKey: x25519PublicBytes(secret), secret } };
    }
    if (privateKey.length !== P256_PRIVATE_KEY_BYTES) return { ok: false, error: 'invalid-private-key' };
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(privateKey);
    return {
      ok: true,
      value: { profile, publicKey: ecdh.getPublicKey(null, 'compressed'), secret: ecdh },
    };
  } catch {
    return { ok: false, error: 'invalid-private-key' };
  }
}

/** Generates a home network key pair for a profile; returns the raw private key with the prepared key. */
export function generateHomeNetworkKey(profile: EciesProfile): { privateKey: Buffer; key: HomeNetworkKey } {
  let privateKey: Buffer;
  if (profile === PROTECTION_SCHEME.profileA) {
    const { privateKey: keyObject } = generateKeyPairSync('x25519');
    privateKey = keyObject.export({ format: 'der', type: 'pkcs8' }).subarray(X25519_PKCS8_PREFIX.length);
  } else {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    privateKey = leftPad(ecdh.getPrivateKey(), P256_PRIVATE_KEY_BYTES);
  }
  const imported = importHomeNetworkKey(profile, privateKey);
  if (!imported.ok) throw new Error(`generated ${profile} key rejected: ${imported.error}`);
  return { privateKey, key: imported.value };
}

/**
 * The SIDF: the MSIN digits of a SUCI of SUPI type IMSI. `keys` finds the home network key by its identifier for
 * the ECIES profiles; an unknown key, a profile the key is not for, a bad MAC or malformed bytes are error values.
 */
export function deconcealSuci(
  suci: ConcealedSupi,
  keys: (homeNetworkPublicKeyId: number) => HomeNetworkKey | undefined,
): Result<string> {
  const { protectionScheme, homeNetworkPublicKeyId, schemeOutput } = suci;
  if (protectionScheme === PROTECTION_SCHEME.null) return decodeMsin(schemeOutput);
  if (protectionScheme !== PROTECTION_SCHEME.profileA && protectionScheme !== PROTECTION_SCHEME.profileB) {
    return { ok: false, error: 'invalid-scheme-output' };
  }
  const key = keys(homeNetworkPublicKeyId);
  if (key === undefined) return { ok: false, error: 'unknown-home-network-key' };
  if (key.profile !== protectionScheme) return { ok: false, error: 'profile-mismatch' };
  const plaintext = eciesDecrypt(key, schemeOutput);
  return plaintext.ok ? decodeMsin(plaintext.value) : plaintext;
}

/** ECIES decryption of a Profile A/B scheme output (ephemeral public key || ciphertext || MAC tag, C.3.3). */
export function eciesDecrypt(key: HomeNetworkKey, schemeOutput: Uint8Array): Result<Buffer> {
  const ephemeralBytes =
    key.profile === PROTECTION_SCHEME.profileA ? X25519_KEY_BYTES : P256_COMPRESSED_BYTES;
  const ciphertextBytes = schemeOutput.length - ephemeralBytes - MAC_TAG_BYTES;
  if (ciphertextBytes < 1 || ciphertextBytes > MAX_MSIN_BYTES)
    return { ok: false, error: 'invalid-scheme-output' };
  const ephemeral = Buffer.from(schemeOutput.subarray(0, ephemeralBytes));
  const ciphertext = Buffer.from(schemeOutput.subarray(ephemeralBytes, ephemeralBytes + ciphertextBytes));
  const tag = Buffer.from(schemeOutput.subarray(ephemeralBytes + ciphertextBytes));
  const shared = sharedSecret(key, ephemeral);
  if (shared === undefined) return { ok: false, error: 'invalid-ephemeral-key' };
  const keys = eciesKeys(shared, ephemeral);
  if (!timingSafeEqual(macTag(keys.macKey, ciphertext), tag)) return { ok: false, error: 'mac-mismatch' };
  return { ok: true, value: aesCtr(keys.encKey, keys.icb, ciphertext) };
}

/**
 * The UE side (C.3.2): conceals an MSIN under the home network public key and returns the scheme output. The
 * ephemeral private key is random unless given (the Annex C.4 test data fixes it).
 */
export function concealMsin(
  profile: ProtectionScheme,
  msin: string,
  homeNetworkPublicKey: Uint8Array,
  ephemeralPrivateKey?: Uint8Array,
): Buffer {
  const plaintext = encodeMsin(msin);
  if (profile === PROTECTION_SCHEME.null) return plaintext;
  let ephemeral: Buffer;
  let shared: Buffer;
  if (profile === PROTECTION_SCHEME.profileA) {
    const privateKey =
      ephemeralPrivateKey === undefined
        ? generateKeyPairSync('x25519').privateKey
        : x25519PrivateKey(ephemeralPrivateKey);
    ephemeral = x25519PublicBytes(privateKey);
    shared = diffieHellman({ privateKey, publicKey: homeNetworkPublicKeyObject(homeNetworkPublicKey) });
  } else {
    const ecdh = createECDH('prime256v1');
    if (ephemeralPrivateKey === undefined) ecdh.generateKeys();
    else ecdh.setPrivateKey(ephemeralPrivateKey);
    ephemeral = ecdh.getPublicKey(null, 'compressed');
    shared = ecdh.computeSecret(homeNetworkPublicKey);
  }
  const keys = eciesKeys(shared, ephemeral);
  const ciphertext = aesCtr(keys.encKey, keys.icb, plaintext);
  return Buffer.concat([ephemeral, ciphertext, macTag(keys.macKey, ciphertext)]);
}

/** TS 24.501 9.11.3.4: the MSIN as BCD, first digit in the low nibble, an odd count padded with 0xF. */
export function encodeMsin(msin: string): Buffer {
  if (!/^\d{1,10}$/.test(msin)) throw new RangeError(`an MSIN is 1 to 10 digits, got "${msin}"`);
  const out = Buffer.alloc(Math.ceil(msin.length / 2));
  for (let i = 0; i < msin.length; i += 2) {
    const low = msin.charCodeAt(i) - 48;
    const high = i + 1 < msin.length ? msin.charCodeAt(i + 1) - 48 : 0x0f;
    out[i / 2] = (high << 4) | low;
  }
  return out;
}

function decodeMsin(bcd: Uint8Array): Result<string> {
  if (bcd.length < 1 || bcd.length > MAX_MSIN_BYTES) return { ok: false, error: 'invalid-msin' };
  let digits = '';
  for (let i = 0; i < bcd.length; i++) {
    const byte = bcd[i] as number;
    const low = byte & 0x0f;
    const high = byte >> 4;
    if (low > 9) return { ok: false, error: 'invalid-msin' };
    digits += String(low);
    if (high === 0x0f && i === bcd.length - 1) break;
    if (high > 9) return { ok: false, error: 'invalid-msin' };
    digits += String(high);
  }
  return { ok: true, value: digits };
}

// C.3.4.1 / C.3.4.2: the ECDH shared secret (the x-coordinate for P-256); undefined for an invalid point.
function sharedSecret(key: HomeNetworkKey, ephemeral: Buffer): Buffer | undefined {
  try {
    if (key.profile === PROTECTION_SCHEME.profileA) {
      return diffieHellman({ privateKey: key.secret as KeyObject, publicKey: x25519PublicKey(ephemeral) });
    }
    // C.3.4.2: the UE sends its ephemeral key compressed; anything else is not a Profile B scheme output.
    if (ephemeral[0] !== 0x02 && ephemeral[0] !== 0x03) return undefined;
    return (key.secret as ECDH).computeSecret(ephemeral);
  } catch {
    return undefined;
  }
}

// C.3.2/C.3.3: ANSI X9.63 KDF with SHA-256 and SharedInfo1 = the ephemeral public key as sent; the 64 bytes of
// key data are the encryption key, the initial counter block and the MAC key, in that order.
function eciesKeys(shared: Buffer, ephemeral: Buffer): { encKey: Buffer; icb: Buffer; macKey: Buffer } {
  const blocks: Buffer[] = [];
  const counter = Buffer.alloc(4);
  for (let i = 1; blocks.length * 32 < ENC_KEY_BYTES + ICB_BYTES + MAC_KEY_BYTES; i++) {
    counter.writeUInt32BE(i);
    blocks.push(createHash('sha256').update(shared).update(counter).update(ephemeral).digest());
  }
  const keyData = Buffer.concat(blocks);
  return {
    encKey: keyData.subarray(0, ENC_KEY_BYTES),
    icb: keyData.subarray(ENC_KEY_BYTES, ENC_KEY_BYTES + ICB_BYTES),
    macKey: keyData.subarray(ENC_KEY_BYTES + ICB_BYTES, ENC_KEY_BYTES + ICB_BYTES + MAC_KEY_BYTES),
  };
}

function macTag(macKey: Buffer, ciphertext: Buffer): Buffer {
  return createHmac('sha256', macKey).update(ciphertext).digest().subarray(0, MAC_TAG_BYTES);
}

function aesCtr(key: Buffer, icb: Buffer, data: Buffer): Buffer {
  return createCipheriv('aes-128-ctr', key, icb).update(data);
}

function x25519PrivateKey(raw: Uint8Array): KeyObject {
  if (raw.length !== X25519_KEY_BYTES) throw new RangeError(`an X25519 key is 32 bytes, got ${raw.length}`);
  return createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
}

/**
 * The home network public key as a key object, kept by key (as the USIM keeps it): a simulator conceals
 * thousands of SUCIs under one key, and its import cost a fifth of each Profile A concealment's ECDH.
 */
const homeNetworkPublicKeyObject = createKeyCache(16, x25519PublicKey);

// A JWK import costs about a tenth of an SPKI (DER) import in node:crypto, and this runs once per SUCI.
function x25519PublicKey(raw: Uint8Array): KeyObject {
  if (raw.length !== X25519_KEY_BYTES) throw new RangeError(`an X25519 key is 32 bytes, got ${raw.length}`);
  return createPublicKey({
    key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  });
}

// A JWK export costs about a third of an SPKI (DER) export (about 40 against 115 us with the key
// generation, once per Profile A concealment in the simulator).
function x25519PublicBytes(privateKey: KeyObject): Buffer {
  return Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x ?? '', 'base64url');
}

function leftPad(bytes: Buffer, length: number): Buffer {
  return bytes.length >= length ? bytes : Buffer.concat([Buffer.alloc(length - bytes.length), bytes]);
}
