// The NAS security context's rules (TS 24.501 4.4.3, TS 33.501 6.4 and D.1) between a network and a UE
// context built from one KAMF: every algorithm pair and header type both ways, COUNT estimation over the
// 8-bit sequence number, replay, wrong MACs, reflection, NIA0.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ACCESS_TYPE, deriveKgnb } from '../../../src/crypto/key-hierarchy.ts';
import type { NasAlgorithm } from '../../../src/crypto/nas-algorithms.ts';
import {
  createNasSecurityContext,
  deriveContextKgnb,
  estimateCount,
  makeCurrent,
  MAX_NAS_COUNT,
  protect,
  unprotect,
  type NasSecurityContext,
  type NasSecuritySide,
} from '../../../src/network/nas-security/index.ts';
import type { ProtectedSecurityHeaderType } from '../../../src/network/nas/index.ts';

const KAMF = Buffer.from('f996b88df1cc5338f56ed55b96d5c9468c51f163bee7cc39ea0d2aa2a4a3dea1', 'hex');
// Plain 5GMM messages from the open5gs capture (third-party/vectors): Registration Accept (40 octets),
// Registration Complete, Security Mode Complete with a NAS message container.
const REGISTRATION_ACCEPT = Buffer.from(
  '7e0042010177000bf200f110020040c000058054074000f11000000115020101210201005e0192',
  'hex',
);
const REGISTRATION_COMPLETE = Buffer.from('7e0043', 'hex');
const ALGORITHMS: NasAlgorithm[] = [0, 1, 2, 3];
const HEADER_TYPES: ProtectedSecurityHeaderType[] = [1, 2, 3, 4];

function pair(
  ciphering: NasAlgorithm,
  integrity: NasAlgorithm,
  kamf = KAMF,
): Record<NasSecuritySide, NasSecurityContext> {
  const make = (side: NasSecuritySide): NasSecurityContext =>
    createNasSecurityContext({ side, ngKsi: { mapped: false, ksi: 1 }, kamf, ciphering, integrity });
  return { network: make('network'), ue: make('ue') };
}

function flip(bytes: Uint8Array, index: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}

describe('NAS security context', () => {
  for (const ciphering of ALGORITHMS) {
    for (const integrity of ALGORITHMS) {
      it(`NEA${ciphering}/NIA${integrity}: round trips both ways with every protected header type`, () => {
        const { network, ue } = pair(ciphering, integrity);
        for (const headerType of HEADER_TYPES) {
          const downlink = protect(network, REGISTRATION_ACCEPT, headerType);
          assert.equal(downlink[1], headerType);
          const ciphered = headerType === 2 || headerType === 4;
          const onWire = Buffer.from(downlink.subarray(7)).equals(REGISTRATION_ACCEPT);
          assert.equal(onWire, !ciphered || ciphering === 0, 'ciphered unless NEA0 or header type 1/3');
          const atUe = unprotect(ue, downlink);
          assert.ok(atUe.ok, atUe.ok ? '' : atUe.detail);
          assert.deepEqual(Buffer.from(atUe.plain), REGISTRATION_ACCEPT);
          assert.equal(atUe.message.messageType, 'registrationAccept');

          const uplink = protect(ue, REGISTRATION_COMPLETE, headerType);
          const atNetwork = unprotect(network, uplink);
          assert.ok(atNetwork.ok, atNetwork.ok ? '' : atNetwork.detail);
          assert.equal(atNetwork.message.messageType, 'registrationComplete');
          // Two uplink messages per header type: this one and the tampered one below.
          assert.equal(atNetwork.count, (headerType - 1) * 2);
          if (integrity !== 0) {
            // The MAC covers sequence number and message: any changed bit is refused.
            assert.deepEqual(
              reason(unprotect(network, flip(protect(ue, REGISTRATION_COMPLETE, headerType), 9))),
              'mac',
            );
          } else {
            protect(ue, REGISTRATION_COMPLETE, headerType);
          }
        }
      });
    }
  }

  it('uses the downlink and uplink COUNTs separately, each from 0', () => {
    const { network, ue } = pair(2, 2);
    for (let i = 0; i < 3; i++) assert.ok(unprotect(ue, protect(network, REGISTRATION_ACCEPT, 2)).ok);
    const uplink = unprotect(network, protect(ue, REGISTRATION_COMPLETE, 2));
    assert.ok(uplink.ok);
    assert.equal(uplink.count, 0);
    assert.equal(network.nextSendCount, 3);
    assert.equal(ue.highestReceivedCount, 2);
  });

  it('refuses a replayed message: a COUNT is accepted once', () => {
    const { network, ue } = pair(2, 2);
    const first = protect(ue, REGISTRATION_COMPLETE, 1);
    assert.ok(unprotect(network, first).ok);
    assert.equal(reason(unprotect(network, first)), 'replay');
    // An older message replayed after newer ones is refused too, and the context still works.
    const second = protect(ue, REGISTRATION_COMPLETE, 2);
    assert.ok(unprotect(network, second).ok);
    assert.equal(reason(unprotect(network, first)), 'replay');
    assert.ok(unprotect(network, protect(ue, REGISTRATION_COMPLETE, 2)).ok);
  });

  it('refuses a wrong MAC, a message under another KAMF, and its own message reflected back', () => {
    const { network, ue } = pair(3, 3);
    const message = protect(ue, REGISTRATION_COMPLETE, 2);
    assert.equal(reason(unprotect(network, flip(message, 2))), 'mac');
    assert.equal(reason(unprotect(network, flip(message, 6))), 'mac');
    const other = pair(3, 3, Buffer.alloc(32, 7));
    assert.equal(reason(unprotect(network, protect(other.ue, REGISTRATION_COMPLETE, 2))), 'mac');
    // DIRECTION differs: the network does not accept what it sent itself.
    assert.equal(reason(unprotect(network, protect(network, REGISTRATION_COMPLETE, 2))), 'mac');
    // Ciphered: nothing of the message is given; integrity only: the message, marked unverified.
    const refused = unprotect(network, flip(message, 2));
    assert.ok(!refused.ok && refused.unverifiedMessage === undefined);
    const plainInside = unprotect(network, flip(protect(other.ue, REGISTRATION_COMPLETE, 1), 2));
    assert.ok(!plainInside.ok && plainInside.reason === 'mac');
    assert.equal(plainInside.unverifiedMessage?.messageType, 'registrationComplete');
    // A refused message does not spend the COUNT: the genuine one still verifies.
    assert.ok(unprotect(network, message).ok);
  });

  it('estimates the COUNT across the 8-bit sequence number wrap (NAS overflow), with lost messages', () => {
    const { network, ue } = pair(1, 1);
    for (let count = 0; count < 600; count++) {
      const message = protect(ue, REGISTRATION_COMPLETE, 2);
      assert.equal(message[6], count & 0xff);
      // Every seventh message is lost on the way; the receiver follows as long as fewer than 256 go missing.
      if (count % 7 === 3) continue;
      const result = unprotect(network, message);
      assert.ok(result.ok, `COUNT ${count}`);
      assert.equal(result.count, count);
    }
    assert.equal(network.highestReceivedCount, 599);
  });

  it('estimateCount: the smallest COUNT above the highest accepted one, none past 2^24 - 1', () => {
    assert.equal(estimateCount(undefined, 0), 0);
    assert.equal(estimateCount(undefined, 17), 17);
    assert.equal(estimateCount(0x1fe, 0xff), 0x1ff);
    assert.equal(estimateCount(0x1ff, 0x00), 0x200);
    assert.equal(estimateCount(0x205, 0x05), 0x305);
    assert.equal(estimateCount(0x205, 0x04), 0x304);
    assert.equal(estimateCount(MAX_NAS_COUNT - 1, 0xff), MAX_NAS_COUNT);
    assert.equal(estimateCount(MAX_NAS_COUNT, 0x00), undefined);
  });

  it('NIA0: the MAC is all zero and replay protection is not active (TS 33.501 D.1)', () => {
    const { network, ue } = pair(0, 0);
    const message = protect(ue, REGISTRATION_COMPLETE, 1);
    assert.deepEqual(Buffer.from(message.subarray(2, 6)), Buffer.alloc(4));
    assert.ok(unprotect(network, message).ok);
    assert.ok(unprotect(network, message).ok);
    assert.equal(reason(unprotect(network, flip(message, 3))), 'mac');
  });

  it('a verified message that does not decode is a decode failure, and its COUNT is spent', () => {
    const { network, ue } = pair(2, 2);
    const garbage = protect(ue, Uint8Array.of(0x7e, 0x00, 0xff, 0x01), 2);
    assert.equal(reason(unprotect(network, garbage)), 'decode');
    assert.equal(reason(unprotect(network, garbage)), 'replay');
    assert.equal(network.highestReceivedCount, 0);
  });

  it('a plain message or a 5GSM message is not protected; a broken header does not decode', () => {
    const { network } = pair(2, 2);
    assert.equal(reason(unprotect(network, REGISTRATION_COMPLETE)), 'not-protected');
    assert.equal(reason(unprotect(network, Uint8Array.of(0x2e, 0x01, 0x01, 0xc1))), 'not-protected');
    assert.equal(reason(unprotect(network, new Uint8Array(0))), 'not-protected');
    assert.equal(reason(unprotect(network, Uint8Array.of(0x7e, 0x02, 0, 0))), 'decode');
    assert.equal(
      reason(unprotect(network, Uint8Array.of(0x7e, 0x05, 0, 0, 0, 0, 0, 0x7e, 0, 0x43))),
      'decode',
    );
  });

  it('KgNB from the latest uplink COUNT, on either side; a new context becomes current', () => {
    const { network, ue } = pair(2, 2);
    assert.equal(deriveContextKgnb(network), undefined);
    assert.equal(deriveContextKgnb(ue), undefined);
    for (let i = 0; i < 3; i++) assert.ok(unprotect(network, protect(ue, REGISTRATION_COMPLETE, 4)).ok);
    const expected = deriveKgnb(KAMF, 2, ACCESS_TYPE.threeGpp);
    assert.deepEqual(deriveContextKgnb(network), expected);
    assert.deepEqual(deriveContextKgnb(ue), expected);
    assert.equal(network.status, 'new');
    makeCurrent(network);
    assert.equal(network.status, 'current');
  });
});

function reason(result: ReturnType<typeof unprotect>): string {
  return result.ok ? 'ok' : result.reason;
}
