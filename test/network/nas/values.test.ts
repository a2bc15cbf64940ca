// IE values the AMF and SMF read, and the names the API shows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bitRateBps,
  causeLabel,
  decodedView,
  decodeNasMessage,
  encodeNasMessage,
  extendedProtocolConfigurationOptions,
  messageTitle,
  mobileIdentity,
  snakeCase,
  timerSeconds,
  type MobileIdentity,
} from '../../../src/network/nas/index.ts';

const hex = (value: Uint8Array): string => Buffer.from(value).toString('hex');

describe('NAS IE values', () => {
  it('codes SUCIs of the three protection schemes and the equipment identities (9.11.3.4)', () => {
    const profileB: MobileIdentity = {
      type: 'suci',
      supiFormat: 'imsi',
      mcc: '208',
      mnc: '93',
      routingIndicator: '678',
      protectionScheme: 2,
      homeNetworkPublicKeyId: 27,
      schemeOutput: {
        scheme: 'profile-b',
        eccEphemeralPublicKey: new Uint8Array(33).fill(2),
        ciphertext: Uint8Array.of(0xaa, 0xbb),
        macTag: new Uint8Array(8).fill(9),
      },
    };
    const encoded = mobileIdentity.encode(profileB);
    // SUPI format IMSI, type SUCI; 208-93; routing indicator 678 + filler; scheme 2; key 27.
    assert.equal(hex(encoded.subarray(0, 8)), '0102f839' + '76f8' + '02' + '1b');
    assert.deepEqual(mobileIdentity.decode(encoded), profileB);
    // TS 23.003 2.2B: a null-scheme SUCI carries the MSIN in BCD.
    assert.equal(
      hex(
        mobileIdentity.encode({
          ...profileB,
          protectionScheme: 0,
          schemeOutput: { scheme: 'null', msin: '0123456789' },
        }),
      ),
      '0102f83976f800' + '1b' + '1032547698',
    );
    // IMEISV 4370816125816151: odd/even bit clear (16 digits), filler in the last octet.
    const imeisv = mobileIdentity.encode({ type: 'imeisv', digits: '4370816125816151' });
    assert.equal(hex(imeisv), '4573806121856151f1');
    assert.deepEqual(mobileIdentity.decode(imeisv), { type: 'imeisv', digits: '4370816125816151' });
    assert.equal(hex(mobileIdentity.encode({ type: 'imei', digits: '437081612581615' })), '4b73806121856151');
  });

  it('reads DNS and MTU containers of the extended PCO (TS 24.008 10.5.6.3)', () => {
    const value = Buffer.from('80000d0408080808000d04080804040010020578000300', 'hex');
    const decoded = extendedProtocolConfigurationOptions.decode(value);
    assert.deepEqual(decoded.options, [
      { kind: 'dns-server-ipv4', address: '8.8.8.8' },
      { kind: 'dns-server-ipv4', address: '8.8.4.4' },
      { kind: 'ipv4-link-mtu', mtu: 1400 },
      { kind: 'raw', identifier: 3, contents: new Uint8Array() },
    ]);
    assert.equal(hex(extendedProtocolConfigurationOptions.encode(decoded)), hex(value));
  });

  it('converts rates and timers to units', () => {
    assert.equal(bitRateBps({ unit: 6, value: 100 }), 100_000_000);
    assert.equal(bitRateBps({ unit: 2, value: 3 }), 12_000);
    assert.equal(bitRateBps({ unit: 11, value: 1 }), 1_000_000_000);
    assert.equal(timerSeconds({ unit: 5, value: 9 }, 'timer3'), 540);
    assert.equal(timerSeconds({ unit: 1, value: 6 }, 'timer2'), 360);
    assert.equal(timerSeconds({ unit: 7, value: 1 }, 'timer'), undefined);
  });

  it('names messages, IEs and causes as the API shows them', () => {
    assert.equal(messageTitle('pduSessionEstablishmentRequest'), 'PDU Session Establishment Request');
    assert.equal(messageTitle('deregistrationRequestUeTerminated'), 'Deregistration Request');
    assert.equal(snakeCase('fiveGmmCause'), '5gmm_cause');
    assert.equal(snakeCase('truncated5gSTmsiConfiguration'), 'truncated_5g_s_tmsi_configuration');
    assert.equal(causeLabel('5gmm', 3), 'Illegal UE (3)');
    assert.equal(causeLabel('5gsm', 27), 'Missing or unknown DNN (27)');
    assert.equal(causeLabel('5gmm', 250), 'Unassigned (250)');
    const result = decodeNasMessage(Buffer.from('7e00440916012c', 'hex'));
    assert.ok(result.ok);
    assert.deepEqual(decodedView(result.message), {
      registration_reject: { '5gmm_cause': 9, t3502_value: { unit: 1, value: 12 } },
    });
    assert.equal(hex(encodeNasMessage(result.message)), '7e00440916012c');
  });
});
