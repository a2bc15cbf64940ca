import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.ts';
import { gprsTimerOf } from '../../../src/network/amf/gmm/gprs-timer.ts';
import { imeiOf } from '../../../src/network/amf/gmm/security-mode.ts';

describe('AMF NAS timer settings (docs/registration.md)', () => {
  it('defaults leave the timers to the AMF (network.md section 5)', () => {
    assert.equal(loadConfig([], {}).n2.amfTimers, undefined);
  });

  it('reads seconds from the environment and flags; mobile reachable follows T3512 + 4 min', () => {
    const config = loadConfig(['--amf-t3550-seconds', '3'], {
      PMN_AMF_T3512_SECONDS: '600',
      PMN_AMF_NAS_RETRANSMISSIONS: '2',
    });
    assert.deepEqual(config.n2.amfTimers, {
      t3512Ms: 600_000,
      mobileReachableMs: 840_000,
      retransmissions: 2,
      t3550Ms: 3_000,
    });
  });

  it('refuses a value out of range, naming the setting', () => {
    assert.throws(() => loadConfig([], { PMN_AMF_T3560_SECONDS: '0' }), /amf_t3560_seconds/);
  });
});

describe('GPRS timer values (TS 24.008 10.5.7.3, 10.5.7.4a)', () => {
  it('54 min in GPRS timer 3 is 5 x 10 min, the largest value not above it', () => {
    assert.deepEqual(gprsTimerOf(54 * 60_000, 'timer3'), { unit: 0, value: 5 });
  });
  it('12 min in GPRS timer is 2 decihours (the coarsest exact unit)', () => {
    assert.deepEqual(gprsTimerOf(12 * 60_000, 'timer'), { unit: 2, value: 2 });
  });
});

describe('IMEI from IMEISV (TS 23.003 6.2, Annex B)', () => {
  it('TAC and SNR with the Luhn check digit: 49015420323751 -> 8', () => {
    assert.equal(imeiOf('4901542032375101'), '490154203237518');
  });
});
