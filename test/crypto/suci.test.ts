import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  PROTECTION_SCHEME,
  concealMsin,
  deconcealSuci,
  eciesDecrypt,
  encodeMsin,
  generateHomeNetworkKey,
  importHomeNetworkKey,
  type EciesProfile,
  type HomeNetworkKey,
} from '../../src/crypto/suci.ts';

const hex = (value: string): Buffer => Buffer.from(value, 'hex');

// TS 33.501 Annex C.4 test data (as carried by P1sec/CryptoMobile test/test_ECIES.py, free5gc/util and
// magma): the SUPI is IMSI with MSIN 001002086, i.e. scheme input 00012080f6.
const MSIN = '001002086';
const SCHEME_INPUT = '00012080f6';
const profileA = {
  // C.4.3
  hnPrivateKey: 'c53c22208b61860b06c62e5406a7b330c2b577aa5558981510d128247d38bd1d',
  hnPublicKey: '5a8d38864820197c3394b92613b20b91633cbd897119273bf8e4a6f4eec0a650',
  ephPrivateKey: 'c80949f13ebe61af4ebdbd293ea4f942696b9e815d7e8f0096bbf6ed7de62256',
  ephPublicKey: 'b2e92f836055a255837debf850b528997ce0201cb82adfe4be1f587d07d8457d',
  ciphertext: 'cb02352410',
  macTag: 'cddd9e730ef3fa87',
};
const profileB = {
  // C.4.4
  hnPrivateKey: 'f1ab1074477ebcc7f554ea1c5fc368b1616730155e0041ac447d6301975fecda',
  hnPublicKey: '0272da71976234ce833a6907425867b82e074d44ef907dfb4b3e21c1c2256ebcd1',
  ephPrivateKey: '99798858a1dc6a2c68637149a4b1dbfd1fdff5addd62a2142f06699ed7602529',
  ephPublicKey: '039aab8376597021e855679a9778ea0b67396e68c66df32c0f41e9acca2da9b9d1',
  ciphertext: '46a33fc271',
  macTag: '6ac7dae96aa30a4d',
};

function imported(profile: EciesProfile, privateKey: string): HomeNetworkKey {
  const result = importHomeNetworkKey(profile, hex(privateKey));
  assert.ok(result.ok);
  return result.value;
}
const keyA = imported(PROTECTION_SCHEME.profileA, profileA.hnPrivateKey);
const keyB = imported(PROTECTION_SCHEME.profileB, profileB.hnPrivateKey);
const lookup = (id: number): HomeNetworkKey | undefined => ({ 1: keyA, 2: keyB })[id];

describe('SUCI protection schemes: TS 33.501 Annex C.4 test data', () => {
  it('encodes the MSIN as the scheme input of C.4.1', () => {
    assert.equal(encodeMsin(MSIN).toString('hex'), SCHEME_INPUT);
  });

  it('null scheme (C.4.2): the scheme output is the MSIN', () => {
    const suci = { protectionScheme: 0, homeNetworkPublicKeyId: 0, schemeOutput: hex(SCHEME_INPUT) };
    assert.deepEqual(deconcealSuci(suci, lookup), { ok: true, value: MSIN });
  });

  for (const [name, profile, data, key, id] of [
    ['Profile A (C.4.3)', PROTECTION_SCHEME.profileA, profileA, keyA, 1],
    ['Profile B (C.4.4)', PROTECTION_SCHEME.profileB, profileB, keyB, 2],
  ] as const) {
    describe(name, () => {
      const schemeOutput = hex(data.ephPublicKey + data.ciphertext + data.macTag);

      it('derives the home network public key from its private key', () => {
        assert.equal(key.publicKey.toString('hex'), data.hnPublicKey);
      });

      it('de-conceals the published scheme output to the MSIN', () => {
        assert.deepEqual(eciesDecrypt(key, schemeOutput), { ok: true, value: hex(SCHEME_INPUT) });
        assert.deepEqual(
          deconcealSuci({ protectionScheme: profile, homeNetworkPublicKeyId: id, schemeOutput }, lookup),
          {
            ok: true,
            value: MSIN,
          },
        );
      });

      it('conceals like the UE of the test data (same ephemeral key, same bytes)', () => {
        const output = concealMsin(profile, MSIN, hex(data.hnPublicKey), hex(data.ephPrivateKey));
        assert.equal(output.toString('hex'), schemeOutput.toString('hex'));
      });

      it('round-trips a fresh concealment under a generated key', () => {
        const { key: generated } = generateHomeNetworkKey(profile);
        for (const msin of ['0', '12345', '9876543210']) {
          const output = concealMsin(profile, msin, generated.publicKey);
          const suci = { protectionScheme: profile, homeNetworkPublicKeyId: 7, schemeOutput: output };
          assert.deepEqual(
            deconcealSuci(suci, () => generated),
            { ok: true, value: msin },
          );
        }
      });

      it('conceals under the key it is given, one after another (the UE side keeps imported keys)', () => {
        const first = generateHomeNetworkKey(profile).key;
        const second = generateHomeNetworkKey(profile).key;
        for (const [under, other] of [
          [first, second],
          [second, first],
          [first, second],
        ] as const) {
          const output = concealMsin(profile, MSIN, under.publicKey);
          const suci = { protectionScheme: profile, homeNetworkPublicKeyId: 7, schemeOutput: output };
          assert.deepEqual(
            deconcealSuci(suci, () => under),
            { ok: true, value: MSIN },
          );
          assert.equal(deconcealSuci(suci, () => other).ok, false);
        }
      });

      it('returns an error value for a bad MAC, a changed ciphertext or a bad ephemeral key', () => {
        const badTag = Buffer.from(schemeOutput);
        badTag[badTag.length - 1] = (badTag[badTag.length - 1] ?? 0) ^ 1;
        assert.deepEqual(eciesDecrypt(key, badTag), { ok: false, error: 'mac-mismatch' });
        const badCiphertext = Buffer.from(schemeOutput);
        badCiphertext[key.publicKey.length] = (badCiphertext[key.publicKey.length] ?? 0) ^ 0x10;
        assert.deepEqual(eciesDecrypt(key, badCiphertext), { ok: false, error: 'mac-mismatch' });
        const badPoint = Buffer.from(schemeOutput);
        badPoint.fill(profile === PROTECTION_SCHEME.profileA ? 0 : 0xff, 0, key.publicKey.length);
        const result = eciesDecrypt(key, badPoint);
        assert.equal(result.ok, false);
      });
    });
  }

  it('an unknown key, a key of the other profile, or an unknown scheme is an error value', () => {
    const schemeOutput = hex(profileA.ephPublicKey + profileA.ciphertext + profileA.macTag);
    assert.deepEqual(
      deconcealSuci({ protectionScheme: 1, homeNetworkPublicKeyId: 9, schemeOutput }, lookup),
      {
        ok: false,
        error: 'unknown-home-network-key',
      },
    );
    assert.deepEqual(
      deconcealSuci({ protectionScheme: 1, homeNetworkPublicKeyId: 2, schemeOutput }, lookup),
      {
        ok: false,
        error: 'profile-mismatch',
      },
    );
    assert.deepEqual(
      deconcealSuci({ protectionScheme: 5, homeNetworkPublicKeyId: 1, schemeOutput }, lookup),
      {
        ok: false,
        error: 'invalid-scheme-output',
      },
    );
  });

  it('rejects a malformed null-scheme MSIN and a malformed private key without throwing', () => {
    for (const bcd of ['', '0a', 'a0', '0011223344556677', '1f23', 'f1f1']) {
      const suci = { protectionScheme: 0, homeNetworkPublicKeyId: 0, schemeOutput: hex(bcd) };
      assert.deepEqual(deconcealSuci(suci, lookup), { ok: false, error: 'invalid-msin' }, bcd);
    }
    assert.deepEqual(importHomeNetworkKey(PROTECTION_SCHEME.profileA, Buffer.alloc(31)), {
      ok: false,
      error: 'invalid-private-key',
    });
    assert.deepEqual(importHomeNetworkKey(PROTECTION_SCHEME.profileB, Buffer.alloc(32)), {
      ok: false,
      error: 'invalid-private-key',
    });
  });

  it('never throws on random scheme outputs (fixed-seed fuzz)', () => {
    let seed = 0x5eed;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 16;
    };
    for (let i = 0; i < 2000; i++) {
      const bytes = Buffer.alloc(next() % 64);
      for (let j = 0; j < bytes.length; j++) bytes[j] = next() & 0xff;
      const suci = {
        protectionScheme: next() % 4,
        homeNetworkPublicKeyId: 1 + (next() % 3),
        schemeOutput: bytes,
      };
      const result = deconcealSuci(suci, lookup);
      assert.equal(typeof result.ok, 'boolean');
    }
  });
});
