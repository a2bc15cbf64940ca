import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { snow3gF8, snow3gF9, snow3gKeystream } from '../../src/crypto/snow3g.ts';

const hex = (value: string): Buffer => Buffer.from(value, 'hex');
const words = (value: string): number[] =>
  (value.match(/.{8}/g) ?? []).map((word) => Number.parseInt(word, 16));
const wordsHex = (z: Uint32Array): string =>
  [...z].map((word) => word.toString(16).padStart(8, '0')).join('');

// ETSI/SAGE "Specification of the 3GPP Confidentiality and Integrity Algorithms UEA2 & UIA2, Document 3:
// Implementors' Test Data" v1.1 (also TS 35.217), section 3: SNOW 3G key stream test sets 1 to 4, with the
// key words k0..k3 and IV words IV0..IV3 as printed there.
const keystreamSets = [
  {
    set: 1,
    key: '2bd6459f82c5b300952c49104881ff48',
    iv: 'ea024714ad5c4d84df1f9b251c0bf45f',
    z: 'abee97047ac31373',
  },
  {
    set: 2,
    key: '8ce33e2cc3c0b5fc1f3de8a6dc66b1f3',
    iv: 'd3c5d592327fb11cde551988ceb2f9b7',
    z: 'eff8a342f751480f',
  },
  {
    set: 3,
    key: '4035c6680af8c6d1a8ff8667b1714013',
    iv: '62a540981ba6f9b74592b0e78690f71b',
    z: 'a8c874a97ae7c4f8',
  },
];

// Document 3 section 4: f8 (UEA2) test sets 1 to 5.
const f8Sets = [
  {
    set: 1,
    key: '2bd6459f82c5b300952c49104881ff48',
    count: 0x72a4f20f,
    bearer: 0x0c,
    direction: 1,
    lengthBits: 798,
    plaintext:
      '7ec61272743bf1614726446a6c38ced166f6ca76eb5430044286346cef130f92922b03450d3a9975e5bd2ea0eb55ad8e1b199e3ec4316020e9a1b285e762795359b7bdfd39bef4b2484583d5afe082aee638bf5fd5a606193901a08f4ab41aab9b134880',
    ciphertext:
      '8ceba62943dced3a0990b06ea1b0a2c4fb3cedc71b369f42ba64c1eb6665e72aa1c9bb0deaa20fe86058b8baee2c2e7f0becce48b52932a53c9d5f931a3a7c532259af4325e2a65e3084ad5f6a513b7bddc1b65f0aa0d97a053db55a88c4c4f9605e4140',
  },
  {
    set: 2,
    key: 'efa8b2229e720c2a7c36ea55e9605695',
    count: 0xe28bcf7b,
    bearer: 0x18,
    direction: 0,
    lengthBits: 510,
    plaintext:
      '10111231e060253a43fd3f57e37607ab2827b599b6b1bbda37a8abcc5a8c550d1bfb2f494624fb50367fa36ce3bc68f11cf93b1510376b02130f812a9fa169d8',
    ciphertext:
      'e0da15ca8e2554f5e56c9468dc6c7c129c568aa5032317e04e0729646cabefa689864c410f24f919e61e3dfdfad77e560db0a9cd36c34ae4181490b29f5fa2fc',
  },
  {
    set: 3,
    key: '5acb1d644c0d51204ea5f1451010d852',
    count: 0xfa556b26,
    bearer: 0x03,
    direction: 1,
    lengthBits: 120,
    plaintext: 'ad9c441f890b38c457a49d421407e8',
    ciphertext: 'ba0f31300334c56b52a7497cbac046',
  },
  {
    set: 4,
    key: 'd3c5d592327fb11c4035c6680af8c6d1',
    count: 0x398a59b4,
    bearer: 0x05,
    direction: 1,
    lengthBits: 253,
    plaintext: '981ba6824c1bfb1ab485472029b71d808ce33e2cc3c0b5fc1f3de8a6dc66b1f0',
    ciphertext: '989b719cdc33ceb7cf276a52827cef94a56c40c0ab9d81f7a2a9bac60e11c4b0',
  },
  {
    set: 5,
    key: '6090eae04c83706eecbf652be8e36566',
    count: 0x72a4f20f,
    bearer: 0x09,
    direction: 0,
    lengthBits: 837,
    plaintext:
      '40981ba6824c1bfb4286b299783daf442c099f7ab0f58d5c8e46b104f08f01b41ab485472029b71d36bd1a3d90dc3a41b46d51672ac4c9663a2be063da4bc8d2808ce33e2cccbfc634e1b259060876a0fbb5a437ebcc8d31c19e4454318745e3987645987a986f2cb0',
    ciphertext:
      '5892bba88bbbcaaeae769aa06b683d3a17cc04a369881697435e44fed5ff9af57b9e890d4d5c64709885d48ae40690ec043baae9705796e4a9ff5a4b8d8b36d7f3fe57cc6cfd6cd005cd3852a85e94ce6bcd90d0d07839ce09733544ca8e350843248550922ac12818',
  },
];

// Document 3 section 5: f9 (UIA2) test sets 1 to 5.
const f9Sets = [
  {
    set: 1,
    key: '2bd6459f82c5b300952c49104881ff48',
    count: 0x38a6f056,
    fresh: 0x05d2ec49,
    direction: 0,
    lengthBits: 189,
    message: '6b227737296f393c8079353edc87e2e805d2ec49a4f2d8e0',
    mac: '2bce1820',
  },
  {
    set: 2,
    key: 'd42f682428201cafcd9f97945e6de7b7',
    count: 0x3edc87e2,
    fresh: 0xa4f2d8e2,
    direction: 1,
    lengthBits: 254,
    message: 'b5924384328a4ae00b737109f8b6c8dd2b4db63dd533981ceb19aad52a5b2bc0',
    mac: 'fc7b18bd',
  },
  {
    set: 3,
    key: 'fdb9cfdf28936cc483a31869d81b8fab',
    count: 0x36af6144,
    fresh: 0x9838f03a,
    direction: 1,
    lengthBits: 319,
    message: '5932bc0ace2b0aba33d8ac188ac54f346fad10bf9dee2920b43bd0c53a915cb7df6caa72053abff2',
    mac: '02f1faaf',
  },
  {
    set: 4,
    key: 'c736c6aab22bfff91e2698d2e22ad57e',
    count: 0x14793e41,
    fresh: 0x0397e8fd,
    direction: 1,
    lengthBits: 384,
    message:
      'd0a7d463df9fb2b278833fa02e235aa172bd970c1473e12907fb648b6599aaa0b24a038665422b20a499276a50427009',
    mac: '38b554c0',
  },
  {
    set: 5,
    key: 'f4ebec69e73eaf2eb2cf6af4b3120ffd',
    count: 0x296f393c,
    fresh: 0x6b227737,
    direction: 1,
    lengthBits: 1000,
    message:
      '10bfff839e0c71658dbb2d1707e145724f41c16f48bf403c3b18e38fd5d1663b6f6d900193e3cea8bb4f1b4f5be822032232a78d7d75238d5e6daecd3b4322cf59bc7ea84ab18811b5bfb7bc553f4fe44478ce287a14879990d18d12ca79d2c855149021cd5ce8ca0371ca04fcce143e3d7cfee94585b5885cac46068b',
    mac: '061745ae',
  },
];

describe('SNOW 3G key stream (UEA2 & UIA2 Document 3, section 3)', () => {
  for (const { set, key, iv, z } of keystreamSets) {
    it(`test set ${set}: z1, z2`, () => {
      assert.equal(wordsHex(snow3gKeystream(words(key), words(iv), 2)), z);
    });
  }

  it('test set 4: z1..z3 and z2500', () => {
    const z = snow3gKeystream(
      words('0ded7263109cf92e3352255a140e0f76'),
      words('6b68079a41a7c4c91befd79f7fdcc233'),
      2500,
    );
    assert.equal(wordsHex(z.subarray(0, 3)), 'd712c05ca937c2a6eb7eaae3');
    assert.equal(wordsHex(z.subarray(2499)), '9c0db3aa');
  });
});

describe('f8 / UEA2 (UEA2 & UIA2 Document 3, section 4)', () => {
  for (const { set, key, count, bearer, direction, lengthBits, plaintext, ciphertext } of f8Sets) {
    it(`test set ${set} (${lengthBits} bits): enciphers, and deciphers back`, () => {
      const out = snow3gF8(hex(key), count, bearer, direction, hex(plaintext), lengthBits);
      assert.equal(out.toString('hex'), ciphertext);
      assert.equal(snow3gF8(hex(key), count, bearer, direction, out, lengthBits).toString('hex'), plaintext);
    });
  }
});

describe('f9 / UIA2 (UEA2 & UIA2 Document 3, section 5)', () => {
  for (const { set, key, count, fresh, direction, lengthBits, message, mac } of f9Sets) {
    it(`test set ${set} (${lengthBits} bits)`, () => {
      assert.equal(
        snow3gF9(hex(key), count, fresh, direction, hex(message), lengthBits).toString('hex'),
        mac,
      );
    });
  }

  it('ignores the bits after LENGTH, and every bit up to it counts', () => {
    const { key, count, fresh, direction, lengthBits, message, mac } = f9Sets[0] as (typeof f9Sets)[number];
    const padded = hex(message);
    padded[padded.length - 1] = (padded[padded.length - 1] ?? 0) | 0x07;
    assert.equal(snow3gF9(hex(key), count, fresh, direction, padded, lengthBits).toString('hex'), mac);
    const flipped = hex(message);
    flipped[23] = (flipped[23] ?? 0) ^ 0x08;
    assert.notEqual(snow3gF9(hex(key), count, fresh, direction, flipped, lengthBits).toString('hex'), mac);
  });
});
