import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REGISTRATION_TYPE } from '../../../src/network/nas/index.ts';
import { radioCapabilityOutdated } from '../../../src/network/amf/n2/radio-capability.ts';
import { TestUe } from './test-ue.ts';

/** TS 23.501 5.4.4.1: which Registration Requests delete the UE radio capability the AMF kept. */
describe('radioCapabilityOutdated', () => {
  const request = new TestUe().registrationRequest();
  const ofType = (value: number, fiveGsUpdateType?: Uint8Array) => ({
    ...request,
    registrationType: { followOnRequestPending: false, value },
    ...(fiveGsUpdateType === undefined ? {} : { fiveGsUpdateType }),
  });

  it('an initial registration deletes it', () => {
    assert.equal(radioCapabilityOutdated(ofType(REGISTRATION_TYPE.initial)), true);
  });

  it('a mobility or periodic update keeps it, unless it asks for an NG-RAN radio capability update', () => {
    assert.equal(radioCapabilityOutdated(ofType(REGISTRATION_TYPE.mobilityUpdating)), false);
    assert.equal(radioCapabilityOutdated(ofType(REGISTRATION_TYPE.periodicUpdating)), false);
    // 5GS update type (TS 24.501 9.11.3.9A): bit 1 SMS requested, bit 2 NG-RAN-RCU.
    assert.equal(
      radioCapabilityOutdated(ofType(REGISTRATION_TYPE.mobilityUpdating, Uint8Array.of(0x01))),
      false,
    );
    assert.equal(
      radioCapabilityOutdated(ofType(REGISTRATION_TYPE.mobilityUpdating, Uint8Array.of(0x02))),
      true,
    );
    assert.equal(
      radioCapabilityOutdated(ofType(REGISTRATION_TYPE.periodicUpdating, Uint8Array.of(0x03))),
      true,
    );
  });
});
