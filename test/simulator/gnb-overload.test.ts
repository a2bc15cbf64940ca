import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildOverloadStart, buildOverloadStop } from '../../src/network/ngap/generated/messages.ts';
import { decodeNgapPdu, encodeNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import type { OverloadAction, RRCEstablishmentCause } from '../../src/network/ngap/generated/types.ts';
import { admits, readAmfOverloadStart, readsAsOverloadStop } from '../../src/simulator/gnb-overload.ts';

/**
 * The simulated node's reading of the AMF's overload (TS 38.413 8.7.7.2): which RRC establishment causes
 * each Overload Action rejects, and the share a Traffic Load Reduction Indication lets through.
 */

const CAUSES: RRCEstablishmentCause[] = [
  'emergency',
  'highPriorityAccess',
  'mt-Access',
  'mo-Signalling',
  'mo-Data',
  'mo-VoiceCall',
  'mo-VideoCall',
  'mo-SMS',
  'mps-PriorityAccess',
  'mcs-PriorityAccess',
];

const admitted = (action: Parameters<typeof admits>[0]): RRCEstablishmentCause[] =>
  CAUSES.filter((cause) => admits(action, cause));

describe('simulated gNB: Overload Start', () => {
  it('each action rejects the causes TS 38.413 8.7.7.2 names', () => {
    assert.deepEqual(admitted(undefined), CAUSES);
    const of = (action: OverloadAction) => ({ action, reductionPercent: undefined });
    assert.deepEqual(admitted(of('reject-non-emergency-mo-dt')), [
      'emergency',
      'highPriorityAccess',
      'mt-Access',
      'mo-Signalling',
      'mps-PriorityAccess',
      'mcs-PriorityAccess',
    ]);
    assert.deepEqual(admitted(of('reject-rrc-cr-signalling')), [
      'emergency',
      'highPriorityAccess',
      'mt-Access',
      'mps-PriorityAccess',
      'mcs-PriorityAccess',
    ]);
    assert.deepEqual(admitted(of('permit-emergency-sessions-and-mobile-terminated-services-only')), [
      'emergency',
      'mt-Access',
    ]);
    assert.deepEqual(admitted(of('permit-high-priority-sessions-and-mobile-terminated-services-only')), [
      'highPriorityAccess',
      'mt-Access',
      'mps-PriorityAccess',
      'mcs-PriorityAccess',
    ]);
  });

  it('a traffic load reduction of 30 % lets the other 70 % through', () => {
    const overload = { action: 'reject-rrc-cr-signalling' as const, reductionPercent: 30 };
    assert.equal(
      admits(overload, 'mo-Signalling', () => 0.29),
      false,
    );
    assert.equal(
      admits(overload, 'mo-Signalling', () => 0.3),
      true,
    );
    assert.equal(
      admits(overload, 'mt-Access', () => 0),
      true,
    );
  });

  it('reads Overload Start and Stop as the AMF encodes them', () => {
    const start = decodeNgapPdu(
      encodeNgapPdu(
        buildOverloadStart({
          amfOverloadResponse: { choice: 'overloadAction', value: 'reject-non-emergency-mo-dt' },
          amfTrafficLoadReductionIndication: 50,
        }),
      ),
    );
    assert.ok(start.ok);
    assert.deepEqual(readAmfOverloadStart(start.value), {
      action: 'reject-non-emergency-mo-dt',
      reductionPercent: 50,
    });
    const stop = decodeNgapPdu(encodeNgapPdu(buildOverloadStop({})));
    assert.ok(stop.ok);
    assert.equal(readsAsOverloadStop(stop.value), true);
    assert.equal(readAmfOverloadStart(stop.value), undefined);
  });
});
