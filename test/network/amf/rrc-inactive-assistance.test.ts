import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  inactiveAssistance,
  periodicRegistrationUpdateTimer,
  ueIdentityIndexValue,
} from '../../../src/network/amf/n2/rrc-inactive-assistance.ts';

/** The 10 bits of an Index Length 10 value as a number. */
const indexOf = (value: { bytes: Uint8Array; length: number }): number => {
  assert.equal(value.length, 10);
  return ((value.bytes[0] ?? 0) << 2) | ((value.bytes[1] ?? 0) >> 6);
};

describe('Core Network Assistance Information for RRC INACTIVE (TS 38.413 9.3.1.15)', () => {
  it('UE Identity Index Value is the 5G-S-TMSI mod 1024 (TS 38.304 7.1): the 5G-TMSI low 10 bits', () => {
    assert.equal(indexOf(ueIdentityIndexValue(0)), 0);
    assert.equal(indexOf(ueIdentityIndexValue(1023)), 1023);
    assert.equal(indexOf(ueIdentityIndexValue(1024)), 0);
    assert.equal(indexOf(ueIdentityIndexValue(0xffff_ffff)), 1023);
    // 5G-S-TMSI = AMF Set ID (10 bits) | AMF Pointer (6) | 5G-TMSI (32): its mod 1024 computed in full.
    const tmsi = 0x1234_5678;
    const sTmsi = (BigInt(0x3a5) << 38n) | (BigInt(0x2c) << 32n) | BigInt(tmsi);
    assert.equal(indexOf(ueIdentityIndexValue(tmsi)), Number(sTmsi % 1024n));
  });

  it('Periodic Registration Update Timer is the GPRS timer 3 octet: unit in bits 8-6, value in 5-1', () => {
    // 50 min: unit 0 (10 min) x 5.
    assert.deepEqual([...periodicRegistrationUpdateTimer({ unit: 0, value: 5 }).bytes], [0x05]);
    // 2 h: unit 1 (1 h) x 2.
    assert.deepEqual([...periodicRegistrationUpdateTimer({ unit: 1, value: 2 }).bytes], [0x22]);
    assert.deepEqual([...periodicRegistrationUpdateTimer({ unit: 7, value: 31 }).bytes], [0xff]);
  });

  it('is built from the 5G-GUTI and the registration area, and nothing before the UE has both', () => {
    const guti = {
      type: '5g-guti' as const,
      mcc: '001',
      mnc: '01',
      amfRegionId: 1,
      amfSetId: 1,
      amfPointer: 0,
      tmsi: 2050,
    };
    const registrationArea = { mcc: '001', mnc: '01', tacs: [1, 0x0a0b0c] };
    assert.equal(inactiveAssistance({ guti: undefined, registrationArea }, { unit: 0, value: 5 }), undefined);
    assert.equal(inactiveAssistance({ guti, registrationArea: undefined }, { unit: 0, value: 5 }), undefined);
    const ie = inactiveAssistance({ guti, registrationArea }, { unit: 0, value: 5 });
    assert.ok(ie !== undefined && ie.uEIdentityIndexValue.choice === 'indexLength10');
    assert.equal(indexOf(ie.uEIdentityIndexValue.value), 2050 % 1024);
    assert.deepEqual(
      ie.tAIListForInactive.map(({ tAI }) => [[...tAI.pLMNIdentity], [...tAI.tAC]]),
      [
        [
          [0x00, 0xf1, 0x10],
          [0, 0, 1],
        ],
        [
          [0x00, 0xf1, 0x10],
          [0x0a, 0x0b, 0x0c],
        ],
      ],
    );
    assert.equal(ie.uESpecificDRX, undefined, 'no UE-specific DRX negotiated');
    assert.equal(ie.mICOModeIndication, undefined, 'no MICO mode');
  });
});
