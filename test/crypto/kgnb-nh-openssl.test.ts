import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ACCESS_TYPE, deriveKgnb, deriveNh } from '../../src/crypto/key-hierarchy.ts';
import { initialNhChain, nextHop, syncToNcc } from '../../src/network/security/handover-keys.ts';

/**
 * KgNB (TS 33.501 A.9, FC 0x6E) and NH (A.10, FC 0x6F) against an oracle that shares no code with ours:
 * TS 33.501 gives no test vectors for either, but both are the KDF of TS 33.220 Annex B, HMAC-SHA-256 with
 * KAMF as the key over S = FC || P0 || L0 || P1 || L1 ... So the test writes S byte by byte from the
 * clauses' tables (FC, the uplink NAS COUNT as four octets, its length 0x00 0x04, the access type
 * distinguisher 0x01 with length 0x00 0x01; or the 32-octet SYNC-input with length 0x00 0x20) and has
 * the openssl command line compute the HMAC. It checks our field order, lengths, FC values and the chain's
 * SYNC-inputs (the fresh KgNB for the first NH, then the previous NH: what re-keying restarts at NCC 0).
 */

const KAMF = Buffer.from('b8e3b9d1c27e0c6f2e4a5b4c3d2e1f00112233445566778899aabbccddeeff01', 'hex');
const OTHER_KAMF = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0ffeeddccbbaa99887766554433221100', 'hex');

/** HMAC-SHA-256(key, data) by `openssl mac`, the data on standard input. */
function opensslHmac(key: Buffer, data: Buffer): Buffer {
  const run = spawnSync(
    'openssl',
    ['mac', '-digest', 'SHA256', '-macopt', `hexkey:${key.toString('hex')}`, 'HMAC'],
    { input: data, encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  return Buffer.from(run.stdout.trim(), 'hex');
}

/** S of A.9: FC 0x6E, P0 the uplink NAS COUNT (4 octets), L0 = 4, P1 the access type, L1 = 1. */
function kgnbInput(uplinkNasCount: number, accessType: number): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(uplinkNasCount);
  return Buffer.concat([Buffer.of(0x6e), count, Buffer.of(0x00, 0x04, accessType, 0x00, 0x01)]);
}

/** S of A.10: FC 0x6F, P0 the 32-octet SYNC-input, L0 = 32. */
const nhInput = (syncInput: Buffer): Buffer =>
  Buffer.concat([Buffer.of(0x6f), syncInput, Buffer.of(0x00, 0x20)]);

describe('KgNB and NH against HMAC-SHA-256 by openssl (TS 33.220 B.2.0, TS 33.501 A.9, A.10)', () => {
  it('KgNB for the COUNTs a registration and a re-keying use, both access types', () => {
    for (const kamf of [KAMF, OTHER_KAMF])
      for (const count of [0, 1, 0x000100, 0xff0000, 0xffffff])
        for (const access of [ACCESS_TYPE.threeGpp, ACCESS_TYPE.nonThreeGpp])
          assert.deepEqual(
            deriveKgnb(kamf, count, access),
            opensslHmac(kamf, kgnbInput(count, access)),
            `KgNB, COUNT ${count}, access ${access}`,
          );
  });

  it('the NH chain from a fresh KgNB: NH1 over KgNB, NH2 over NH1, ... as nextHop and syncToNcc follow it', () => {
    const kgnb = opensslHmac(KAMF, kgnbInput(0, ACCESS_TYPE.threeGpp));
    let expected = kgnb;
    let chain = initialNhChain(kgnb);
    for (let ncc = 1; ncc <= 8; ncc++) {
      expected = opensslHmac(KAMF, nhInput(expected));
      assert.deepEqual(deriveNh(KAMF, chain.key), expected, `NH at step ${ncc}`);
      chain = nextHop(KAMF, chain);
      assert.equal(chain.ncc, ncc % 8);
      assert.deepEqual(chain.key, expected, `the chain's key at step ${ncc}`);
    }
    // The UE's side reaches the same NH for NCC 3 from the KgNB (NCC 0) in three steps.
    const third = [1, 2, 3].reduce((key) => opensslHmac(KAMF, nhInput(key)), kgnb);
    assert.deepEqual(syncToNcc(KAMF, initialNhChain(kgnb), 3).key, third);
  });
});
