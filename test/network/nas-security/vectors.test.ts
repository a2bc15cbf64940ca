// The NAS security of a real registration against open5gs (third-party/vectors/SOURCE.md, frames 1424,
// 1425, 1550 and 1553 of open5gs's docs/assets/pcapng/5g-roaming-hr.pcapng): KAMF from that capture's
// 5G-AKA, 128-NIA2 with NEA0, BEARER 1. Both sides must produce the captured bytes exactly and accept the
// other side's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { deriveKgnb, ACCESS_TYPE } from '../../../src/crypto/key-hierarchy.ts';
import {
  createNasSecurityContext,
  deriveContextKgnb,
  protect,
  unprotect,
  type NasSecurityContext,
  type NasSecuritySide,
} from '../../../src/network/nas-security/index.ts';
import type { ProtectedSecurityHeaderType } from '../../../src/network/nas/index.ts';

interface Frame {
  frame: number;
  dir: 'UL' | 'DL';
  count: number;
  message: string;
}

const chain = (
  JSON.parse(
    readFileSync(
      new URL('../../../third-party/vectors/security-5g-aka-open5gs.json', import.meta.url),
      'utf8',
    ),
  ) as {
    hr_roaming_capture: {
      derived: { KAMF: string; KNASint_NIA2: string };
      nas_integrity: Frame[];
    };
  }
).hr_roaming_capture;

const kamf = Buffer.from(chain.derived.KAMF, 'hex');
const SECURITY_HEADER_LENGTH = 7;

function context(side: NasSecuritySide): NasSecurityContext {
  return createNasSecurityContext({
    side,
    ngKsi: { mapped: false, ksi: 0 },
    kamf,
    ciphering: 0,
    integrity: 2,
  });
}

function wire(frame: Frame): { bytes: Buffer; plain: Buffer; headerType: ProtectedSecurityHeaderType } {
  const bytes = Buffer.from(frame.message, 'hex');
  return {
    bytes,
    plain: bytes.subarray(SECURITY_HEADER_LENGTH),
    headerType: (bytes[1] ?? 0) as ProtectedSecurityHeaderType,
  };
}

describe('NAS security against an open5gs capture', () => {
  it('derives the KNASint of the capture', () => {
    assert.equal(context('network').knasInt.toString('hex'), chain.derived.KNASint_NIA2);
  });

  for (const side of ['network', 'ue'] as const) {
    it(`the ${side} side sends its messages byte for byte and accepts the peer's in capture order`, () => {
      const own = side === 'network' ? 'DL' : 'UL';
      const ctx = context(side);
      for (const frame of chain.nas_integrity) {
        const { bytes, plain, headerType } = wire(frame);
        if (frame.dir === own) {
          assert.equal(
            Buffer.from(protect(ctx, plain, headerType)).toString('hex'),
            frame.message,
            `frame ${frame.frame}`,
          );
        } else {
          const result = unprotect(ctx, bytes);
          assert.ok(result.ok, `frame ${frame.frame}: ${result.ok ? '' : result.detail}`);
          assert.equal(result.count, frame.count);
          assert.equal(result.securityHeaderType, headerType);
          assert.deepEqual(Buffer.from(result.plain), plain);
        }
      }
      assert.equal(ctx.nextSendCount, 2);
      // TS 33.501 A.9: KgNB with the uplink COUNT of the latest uplink message (Registration Complete, 1).
      assert.deepEqual(deriveContextKgnb(ctx), deriveKgnb(kamf, 1, ACCESS_TYPE.threeGpp));
    });
  }

  it('decodes the messages inside: Security Mode Complete, Registration Complete', () => {
    const network = context('network');
    const types = chain.nas_integrity
      .filter((frame) => frame.dir === 'UL')
      .map((frame) => {
        const result = unprotect(network, wire(frame).bytes);
        assert.ok(result.ok);
        return result.message.messageType;
      });
    assert.deepEqual(types, ['securityModeComplete', 'registrationComplete']);
  });
});
