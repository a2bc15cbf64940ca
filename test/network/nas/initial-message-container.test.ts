import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  openContainer,
  withCipheredContainer,
  type InitialNasMessage,
} from '../../../src/network/nas/initial-message-container.ts';
import {
  decodeNasPdu,
  encodeNasMessage,
  SECURITY_HEADER_TYPE,
  type NasMessageOf,
} from '../../../src/network/nas/index.ts';
import {
  createNasSecurityContext,
  protect,
  unprotect,
  type NasSecurityContext,
} from '../../../src/network/nas-security/index.ts';

/**
 * The ciphered NAS message container of initial NAS messages (TS 24.501 4.4.6): only cleartext IEs
 * outside it, the whole message inside, ciphered with the carrying message's uplink NAS COUNT. The
 * key stream is checked against `protect`'s ciphering of the same message at the same COUNT (header
 * type 2), which the NAS security vectors test.
 */

const KAMF = Buffer.alloc(32, 0x3c);
const contexts = (ciphering: 0 | 1 | 2 | 3) =>
  (['ue', 'network'] as const).map((side) =>
    createNasSecurityContext({ side, ngKsi: { mapped: false, ksi: 1 }, kamf: KAMF, ciphering, integrity: 2 }),
  ) as [NasSecurityContext, NasSecurityContext];

const serviceRequest: NasMessageOf<'serviceRequest'> = {
  messageType: 'serviceRequest',
  ngKsi: { mapped: false, ksi: 1 },
  serviceType: 1,
  fiveGSTmsi: { type: '5g-s-tmsi', amfSetId: 1, amfPointer: 1, tmsi: 0x01020304 },
  uplinkDataStatus: [1],
  pduSessionStatus: [1, 5],
};

const registrationRequest: NasMessageOf<'registrationRequest'> = {
  messageType: 'registrationRequest',
  registrationType: { followOnRequestPending: false, value: 2 },
  ngKsi: { mapped: false, ksi: 1 },
  mobileIdentity: {
    type: '5g-guti',
    mcc: '001',
    mnc: '01',
    amfRegionId: 1,
    amfSetId: 1,
    amfPointer: 1,
    tmsi: 0x0a0b0c0d,
  },
  ueSecurityCapability: { ea: [0, 1, 2, 3], ia: [1, 2, 3] },
  requestedNssai: [{ sst: 1 }],
  pduSessionStatus: [2],
};

describe('initial NAS message container (TS 24.501 4.4.6)', () => {
  for (const ciphering of [0, 1, 2, 3] as const)
    it(`NEA${ciphering}: the UE's container opens at the AMF after the integrity check, and holds the whole message`, () => {
      const [ue, network] = contexts(ciphering);
      for (let i = 0; i < 3; i += 1) protect(ue, encodeNasMessage(serviceRequest), 1); // a COUNT above 0
      for (const message of [serviceRequest, registrationRequest] as InitialNasMessage[]) {
        const count = ue.nextSendCount;
        const sent = withCipheredContainer(ue, count, message);
        // Outside: the cleartext IEs and the container only.
        const outside = Object.keys(sent).sort();
        assert.deepEqual(
          outside,
          message.messageType === 'serviceRequest'
            ? ['fiveGSTmsi', 'messageType', 'nasMessageContainer', 'ngKsi', 'serviceType']
            : [
                'messageType',
                'mobileIdentity',
                'nasMessageContainer',
                'ngKsi',
                'registrationType',
                'ueSecurityCapability',
              ],
        );
        // The same key stream as the whole message ciphered at that COUNT (header type 2).
        const whole = encodeNasMessage(message);
        const [probe] = contexts(ciphering);
        for (let c = 0; c < count; c += 1) protect(probe, whole, 1);
        const ciphered = decodeNasPdu(
          protect(probe, whole, SECURITY_HEADER_TYPE.integrityProtectedAndCiphered),
        );
        assert.ok(ciphered.ok && ciphered.pdu.kind === 'protected');
        assert.deepEqual(Buffer.from(sent.nasMessageContainer ?? []), Buffer.from(ciphered.pdu.payload));

        const opened = unprotect(network, protect(ue, encodeNasMessage(sent), 1));
        assert.ok(opened.ok);
        assert.equal(opened.count, count);
        const inside = openContainer(network, opened.count, opened.message as InitialNasMessage);
        assert.equal(inside.error, undefined);
        assert.deepEqual(inside.message, message);
        assert.deepEqual(Buffer.from(inside.plain ?? []), Buffer.from(whole));
      }
    });

  it('no container when the message has only cleartext IEs; the AMF takes the message as it is', () => {
    const [ue, network] = contexts(2);
    const cleartext: NasMessageOf<'serviceRequest'> = {
      messageType: 'serviceRequest',
      ngKsi: serviceRequest.ngKsi,
      serviceType: serviceRequest.serviceType,
      fiveGSTmsi: serviceRequest.fiveGSTmsi,
    };
    const sent = withCipheredContainer(ue, 0, cleartext);
    assert.deepEqual(sent, cleartext);
    assert.deepEqual(openContainer(network, 0, sent), { message: sent, plain: undefined, error: undefined });
  });

  it('a container deciphered at the wrong COUNT, or holding another message, leaves the cleartext message with an error', () => {
    const [ue, network] = contexts(2);
    const sent = withCipheredContainer(ue, 7, serviceRequest);
    const wrongCount = openContainer(network, 8, sent);
    assert.equal(wrongCount.message, sent);
    assert.notEqual(wrongCount.error, undefined);
    const other = withCipheredContainer(ue, 7, registrationRequest).nasMessageContainer;
    assert.ok(other !== undefined);
    const swapped = openContainer(network, 7, { ...sent, nasMessageContainer: other });
    assert.match(swapped.error ?? '', /holds registrationRequest/);
  });

  it('random container bytes never throw (fixed-seed PRNG)', () => {
    const [, network] = contexts(2);
    let seed = 0x2545f491;
    const next = (): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    for (let i = 0; i < 2000; i += 1) {
      const bytes = Uint8Array.from({ length: next() % 64 }, () => next() & 0xff);
      const opened = openContainer(network, next() % 1000, { ...serviceRequest, nasMessageContainer: bytes });
      assert.ok(opened.error !== undefined || opened.message.messageType === 'serviceRequest');
    }
  });
});
