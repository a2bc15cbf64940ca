import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import {
  AMF_5G,
  generateAuthenticationVector,
  recoverSqnFromAuts,
  resStarMatches,
} from '../../src/crypto/five-g-aka.ts';
import { f1, f5star, milenage } from '../../src/crypto/milenage.ts';

// The 5G-AKA exchange of a real registration against open5gs (third-party/vectors/SOURCE.md).
const chain = (
  JSON.parse(
    readFileSync(new URL('../../third-party/vectors/security-5g-aka-open5gs.json', import.meta.url), 'utf8'),
  ) as {
    hr_roaming_capture: {
      subscriber: { K: string; OPc: string };
      serving_network_name: string;
      milenage: Record<'RAND' | 'AUTN' | 'SQN', string>;
      derived: Record<'RES_star' | 'HXRES_star' | 'KAUSF' | 'KSEAF', string>;
    };
  }
).hr_roaming_capture;
const hex = (value: string): Buffer => Buffer.from(value, 'hex');
const keys = { key: hex(chain.subscriber.K), opc: hex(chain.subscriber.OPc) };

describe('5G-AKA authentication vectors (TS 33.501 6.1.3.2)', () => {
  it('reproduces the vector open5gs sent in frame 1392 (AUTN with AMF 8000) and its keys', () => {
    const vector = generateAuthenticationVector({
      ...keys,
      sqn: hex(chain.milenage.SQN),
      rand: hex(chain.milenage.RAND),
      servingNetworkName: chain.serving_network_name,
    });
    assert.equal(vector.autn.toString('hex'), chain.milenage.AUTN);
    assert.deepEqual(vector.autn.subarray(6, 8), AMF_5G);
    assert.equal(vector.xresStar.toString('hex'), chain.derived.RES_star);
    assert.equal(vector.hxresStar.toString('hex'), chain.derived.HXRES_star);
    assert.equal(vector.kausf.toString('hex'), chain.derived.KAUSF);
    assert.equal(vector.kseaf.toString('hex'), chain.derived.KSEAF);
  });

  it('accepts the UE RES* of frame 1393 and rejects any other', () => {
    const xresStar = hex(chain.derived.RES_star);
    assert.equal(resStarMatches(hex(chain.derived.RES_star), xresStar), true);
    const wrong = Buffer.from(xresStar);
    wrong[15] = (wrong[15] ?? 0) ^ 1;
    assert.equal(resStarMatches(wrong, xresStar), false);
    assert.equal(resStarMatches(xresStar.subarray(0, 8), xresStar), false);
  });
});

describe('resynchronisation from AUTS (TS 33.102 6.3.3, 6.3.5)', () => {
  const rand = hex(chain.milenage.RAND);
  // What a USIM whose SQN_MS is ahead of the network's sends: AUTS = SQN_MS XOR AK* || MAC-S, with AK* = f5*(RAND)
  // and MAC-S = f1*(SQN_MS, RAND, AMF = 0000), straight from MILENAGE.
  const ueAuts = (sqnMs: Buffer): Buffer => {
    const akStar = f5star(keys.key, keys.opc, rand);
    const concealed = Buffer.from(sqnMs.map((byte, index) => byte ^ (akStar[index] ?? 0)));
    const { macS } = f1(keys.key, keys.opc, rand, sqnMs, Buffer.alloc(2));
    return Buffer.concat([concealed, macS]);
  };
  const sqnMs = hex('0000000007e0');

  it('recovers SQN_MS from a valid AUTS', () => {
    assert.deepEqual(recoverSqnFromAuts(keys, rand, ueAuts(sqnMs)), { ok: true, sqnMs });
  });

  it('uses AK* and MAC-S, not AK and MAC-A', () => {
    // f5* and f5 differ, so concealing with AK would recover a different (and unauthenticated) SQN.
    const out = milenage({ ...keys, rand, sqn: sqnMs, amf: Buffer.alloc(2) });
    assert.notDeepEqual(out.akStar, out.ak);
  });

  it('rejects an AUTS whose MAC-S is wrong, or that was made for another RAND', () => {
    const auts = ueAuts(sqnMs);
    auts[13] = (auts[13] ?? 0) ^ 0x80;
    assert.deepEqual(recoverSqnFromAuts(keys, rand, auts), { ok: false, error: 'mac-s-mismatch' });
    const otherRand = Buffer.from(rand);
    otherRand[0] = (otherRand[0] ?? 0) ^ 1;
    assert.deepEqual(recoverSqnFromAuts(keys, otherRand, ueAuts(sqnMs)), {
      ok: false,
      error: 'mac-s-mismatch',
    });
  });

  it('rejects an AUTS of the wrong length without throwing', () => {
    assert.deepEqual(recoverSqnFromAuts(keys, rand, Buffer.alloc(13)), {
      ok: false,
      error: 'invalid-auts-length',
    });
  });
});
