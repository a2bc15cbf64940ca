import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';

import { ACCESS_TYPE, deriveKgnb } from '../../../src/crypto/key-hierarchy.ts';
import {
  deriveKgnbStar,
  initialNhChain,
  nextHop,
  syncToNcc,
} from '../../../src/network/security/handover-keys.ts';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

// Published test set of github.com/syc2012/3gpp, 5g/keys/ReadMe.txt (an independent C implementation of
// TS 33.501 Annex A): K_AMF, K_gNB at uplink NAS COUNT 0, and K_NG_RAN_star for PCI 0, ARFCN-DL 630400.
const KAMF = hex('7E9F97707CEF48318DF182A7F9E7BA83 8A6FB36AB83A7D1BAF2610B97A5B9DCF');
const KGNB = hex('617C2F3DB714A5A10597591A25FEB21A 159EA7796109292B0B2CA579D9002B0C');
const KGNB_STAR = hex('62681423781836BA899A5448CCE52BED 15F7C7C98B34C9A9528E277E3B19D4EA');

/** NH written straight from TS 33.501 A.10 and TS 33.220 B.2.0: HMAC-SHA-256(KAMF, 0x6F || SYNC-input || 0x0020). */
function referenceNh(kamf: Buffer, syncInput: Buffer): Buffer {
  return createHmac('sha256', kamf)
    .update(Buffer.concat([Uint8Array.of(0x6f), syncInput, Uint8Array.of(0x00, 0x20)]))
    .digest();
}

describe('handover keys (TS 33.501 6.9.2, A.10-A.12)', () => {
  it('the published KgNB the chain starts from is this KAMF at uplink COUNT 0', () => {
    assert.deepEqual(deriveKgnb(KAMF, 0, ACCESS_TYPE.threeGpp), KGNB);
  });

  it('KgNB* matches the published value (horizontal derivation, A.11)', () => {
    assert.deepEqual(deriveKgnbStar(KGNB, 0, 630400), KGNB_STAR);
  });

  it('the first NH uses the initial KgNB as SYNC-input, the next ones the previous NH; NCC counts 1, 2, ...', () => {
    const start = initialNhChain(KGNB);
    assert.equal(start.ncc, 0);
    const first = nextHop(KAMF, start);
    assert.equal(first.ncc, 1);
    assert.deepEqual(first.key, referenceNh(KAMF, KGNB));
    const second = nextHop(KAMF, first);
    assert.equal(second.ncc, 2);
    assert.deepEqual(second.key, referenceNh(KAMF, first.key));
    assert.notDeepEqual(second.key, first.key);
  });

  it('NCC wraps at 8 (3 bits) while the NH keeps chaining', () => {
    let link = initialNhChain(KGNB);
    const seen = new Set<string>();
    for (let i = 0; i < 9; i += 1) {
      link = nextHop(KAMF, link);
      seen.add(link.key.toString('hex'));
    }
    assert.equal(link.ncc, 1);
    assert.equal(seen.size, 9);
  });

  it('the UE syncs to a received NCC by chaining from its own link (vertical derivation)', () => {
    const start = initialNhChain(KGNB);
    const network = nextHop(KAMF, nextHop(KAMF, start));
    const ue = syncToNcc(KAMF, start, 2);
    assert.deepEqual(ue, network);
    assert.deepEqual(syncToNcc(KAMF, network, 2), network);
    assert.throws(() => syncToNcc(KAMF, start, 8), RangeError);
  });

  it('KgNB* refuses a PCI or ARFCN outside their ranges', () => {
    assert.throws(() => deriveKgnbStar(KGNB, 1008, 630400), RangeError);
    assert.throws(() => deriveKgnbStar(KGNB, 0, 3_279_166), RangeError);
  });
});
