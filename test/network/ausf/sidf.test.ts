// SUCI -> SUPI over the operator's home network keys. The ECIES profiles themselves are checked against
// TS 33.501 Annex C.4 in test/crypto/suci.test.ts; here the UE side is concealMsin under fixed keys, and
// each SUCI goes through the NAS codec's 5GS mobile identity as it would arrive in a Registration Request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  concealMsin,
  importHomeNetworkKey,
  PROTECTION_SCHEME,
  type EciesProfile,
} from '../../../src/crypto/suci.ts';
import { createHomeNetworkKeyRing, resolveSupi } from '../../../src/network/ausf/index.ts';
import { mobileIdentity, type Suci } from '../../../src/network/nas/ie/mobile-identity.ts';
import type { HomeNetworkKey } from '../../../src/network/ports/operator-configuration.ts';

const MSIN = '0000000001';

/** mulberry32: a small deterministic PRNG, so a failing input can be reproduced from its index. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function homeNetworkKey(scheme: 'A' | 'B', id: number, fill: number): HomeNetworkKey {
  const privateKey = Buffer.alloc(32, fill);
  const profile: EciesProfile = scheme === 'A' ? PROTECTION_SCHEME.profileA : PROTECTION_SCHEME.profileB;
  const imported = importHomeNetworkKey(profile, privateKey);
  assert.ok(imported.ok);
  return { id, scheme, publicKey: imported.value.publicKey, privateKey };
}

// Key 1 exists under both profiles: the SUCI's protection scheme picks which one.
const KEYS = [homeNetworkKey('A', 1, 0x11), homeNetworkKey('B', 1, 0x22), homeNetworkKey('B', 7, 0x33)];
const ring = createHomeNetworkKeyRing(KEYS);

/** The SUCI as the network decodes it from the 5GS mobile identity IE. */
function received(suci: Suci): Suci {
  const decoded = mobileIdentity.decode(mobileIdentity.encode(suci));
  assert.ok(decoded.type === 'suci');
  return decoded;
}

function concealed(profile: EciesProfile, keyId: number, publicKey: Buffer, msin = MSIN): Suci {
  const output = concealMsin(profile, msin, publicKey);
  const keyLength = profile === PROTECTION_SCHEME.profileA ? 32 : 33;
  return received({
    type: 'suci',
    supiFormat: 'imsi',
    mcc: '001',
    mnc: '01',
    routingIndicator: '0',
    protectionScheme: profile,
    homeNetworkPublicKeyId: keyId,
    schemeOutput: {
      scheme: profile === PROTECTION_SCHEME.profileA ? 'profile-a' : 'profile-b',
      eccEphemeralPublicKey: output.subarray(0, keyLength),
      ciphertext: output.subarray(keyLength, output.length - 8),
      macTag: output.subarray(output.length - 8),
    },
  });
}

const keyOf = (scheme: 'A' | 'B', id: number): Buffer => {
  const key = KEYS.find((k) => k.scheme === scheme && k.id === id);
  assert.ok(key);
  return key.publicKey;
};

describe('SIDF: SUCI to SUPI (TS 33.501 6.12.2, Annex C)', () => {
  it('null scheme: MCC, MNC and the MSIN as sent', () => {
    const suci = received({
      type: 'suci',
      supiFormat: 'imsi',
      mcc: '999',
      mnc: '70',
      routingIndicator: '0',
      protectionScheme: PROTECTION_SCHEME.null,
      homeNetworkPublicKeyId: 0,
      schemeOutput: { scheme: 'null', msin: '0000021309' },
    });
    assert.deepEqual(resolveSupi(suci, ring), { ok: true, supi: '999700000021309' });
  });

  it('Profile A and Profile B under the key the SUCI names, with a 3-digit MNC too', () => {
    assert.deepEqual(resolveSupi(concealed(PROTECTION_SCHEME.profileA, 1, keyOf('A', 1)), ring), {
      ok: true,
      supi: `00101${MSIN}`,
    });
    assert.deepEqual(resolveSupi(concealed(PROTECTION_SCHEME.profileB, 1, keyOf('B', 1)), ring), {
      ok: true,
      supi: `00101${MSIN}`,
    });
    const threeDigitMnc = {
      ...concealed(PROTECTION_SCHEME.profileB, 7, keyOf('B', 7), '123456789'),
      mnc: '456',
    };
    assert.deepEqual(resolveSupi(received(threeDigitMnc), ring), { ok: true, supi: '001456123456789' });
  });

  it('an unknown key identifier, or a key of the other profile, is a typed failure', () => {
    assert.deepEqual(resolveSupi(concealed(PROTECTION_SCHEME.profileA, 7, keyOf('A', 1)), ring), {
      ok: false,
      error: 'unknown-home-network-key',
    });
    assert.deepEqual(resolveSupi(concealed(PROTECTION_SCHEME.profileB, 2, keyOf('B', 1)), ring), {
      ok: false,
      error: 'unknown-home-network-key',
    });
    // Concealed for key B/7 but naming B/1: the MAC tag does not verify.
    assert.deepEqual(resolveSupi(concealed(PROTECTION_SCHEME.profileB, 1, keyOf('B', 7)), ring), {
      ok: false,
      error: 'mac-mismatch',
    });
  });

  it('a tampered ciphertext or tag fails the MAC; a bad ephemeral key is refused', () => {
    const suci = concealed(PROTECTION_SCHEME.profileA, 1, keyOf('A', 1));
    assert.ok(suci.supiFormat === 'imsi' && suci.schemeOutput.scheme === 'profile-a');
    const output = suci.schemeOutput;
    const tampered = Uint8Array.from(output.ciphertext);
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    assert.deepEqual(resolveSupi({ ...suci, schemeOutput: { ...output, ciphertext: tampered } }, ring), {
      ok: false,
      error: 'mac-mismatch',
    });
    const b = concealed(PROTECTION_SCHEME.profileB, 1, keyOf('B', 1));
    assert.ok(b.supiFormat === 'imsi' && b.schemeOutput.scheme === 'profile-b');
    const notAPoint = Uint8Array.from(b.schemeOutput.eccEphemeralPublicKey);
    notAPoint[0] = 0x04;
    assert.deepEqual(
      resolveSupi({ ...b, schemeOutput: { ...b.schemeOutput, eccEphemeralPublicKey: notAPoint } }, ring),
      { ok: false, error: 'invalid-ephemeral-key' },
    );
  });

  it('a NAI SUCI, an unknown scheme and a null-scheme MSIN that is not digits are failures', () => {
    assert.deepEqual(
      resolveSupi({ type: 'suci', supiFormat: 'nai', nai: 'type1.rid0.schid0.userid1@x' }, ring),
      {
        ok: false,
        error: 'unsupported-supi-format',
      },
    );
    const other = received({
      type: 'suci',
      supiFormat: 'imsi',
      mcc: '001',
      mnc: '01',
      routingIndicator: '0',
      protectionScheme: 5,
      homeNetworkPublicKeyId: 1,
      schemeOutput: { scheme: 'other', output: Uint8Array.of(1, 2, 3) },
    });
    assert.deepEqual(resolveSupi(other, ring), { ok: false, error: 'unsupported-protection-scheme' });
    const nullScheme = {
      type: 'suci',
      supiFormat: 'imsi',
      mcc: '001',
      mnc: '01',
      routingIndicator: '0',
      protectionScheme: 0,
      homeNetworkPublicKeyId: 0,
    } as const;
    for (const msin of ['12a4', '', '12345678901'])
      assert.deepEqual(resolveSupi({ ...nullScheme, schemeOutput: { scheme: 'null', msin } }, ring), {
        ok: false,
        error: 'invalid-msin',
      });
  });

  it('random scheme outputs never throw and never resolve (fixed-seed PRNG, 3,000 inputs)', () => {
    const random = prng(0x51df);
    const bytes = (length: number): Uint8Array =>
      Uint8Array.from({ length }, () => Math.floor(random() * 256));
    for (let i = 0; i < 3000; i++) {
      const profileA = random() < 0.5;
      const keyLength = profileA ? 32 : 33;
      const ephemeral = bytes(keyLength);
      if (!profileA && random() < 0.7) ephemeral[0] = 0x02 | (i & 1);
      const suci: Suci = {
        type: 'suci',
        supiFormat: 'imsi',
        mcc: '001',
        mnc: '01',
        routingIndicator: '0',
        protectionScheme: profileA ? 1 : 2,
        homeNetworkPublicKeyId: random() < 0.8 ? 1 : Math.floor(random() * 256),
        schemeOutput: {
          scheme: profileA ? 'profile-a' : 'profile-b',
          eccEphemeralPublicKey: ephemeral,
          ciphertext: bytes(Math.floor(random() * 8)),
          macTag: bytes(random() < 0.9 ? 8 : Math.floor(random() * 10)),
        },
      };
      const result = resolveSupi(suci, ring);
      assert.equal(result.ok, false, `input ${i}`);
    }
  });

  it('a key whose private part does not import is left out of the ring', () => {
    const broken: HomeNetworkKey = {
      id: 9,
      scheme: 'B',
      publicKey: Buffer.alloc(33),
      privateKey: Buffer.alloc(32),
    };
    const withBroken = createHomeNetworkKeyRing([...KEYS, broken]);
    assert.equal(withBroken.find(PROTECTION_SCHEME.profileB, 9), undefined);
    assert.ok(withBroken.find(PROTECTION_SCHEME.profileB, 7));
  });
});
