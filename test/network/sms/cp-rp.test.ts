// The CP and RP layers (TS 24.011 7.2, 7.3, 8.1, 8.2): each message round-trips byte for byte, and the
// malformed ones are refused with the cause 9.2 and 9.3 prescribe.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CP_CAUSE,
  cpCauseLabel,
  decodeCpMessage,
  decodeRpMessage,
  encodeCpMessage,
  encodeRpMessage,
  RP_CAUSE,
  rpCauseLabel,
  type CpMessage,
  type RpMessage,
} from '../../../src/network/sms/index.ts';

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/ /g, ''), 'hex'));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('CP layer', () => {
  const cases: [string, CpMessage][] = [
    // TI flag 0, TI 0, PD 9; CP-DATA 0x01; CP-User data LV (an RP-SMMA: 06 01).
    ['09 01 02 0601', { type: 'cp-data', transactionId: 0, tiFlag: false, rpdu: hex('0601') }],
    // TI flag 1, TI 3: 0xB9; CP-ACK 0x04.
    ['b9 04', { type: 'cp-ack', transactionId: 3, tiFlag: true }],
    // CP-ERROR 0x10, CP-cause 22 (Congestion).
    ['89 10 16', { type: 'cp-error', transactionId: 0, tiFlag: true, cause: 22 }],
  ];
  for (const [bytes, message] of cases) {
    it(`${message.type} encodes to ${bytes} and back`, () => {
      assert.equal(toHex(encodeCpMessage(message)), bytes.replace(/ /g, ''));
      assert.deepEqual(decodeCpMessage(hex(bytes)), { ok: true, value: message });
    });
  }

  it('refuses malformed CP messages with the causes of TS 24.011 9.2', () => {
    const cause = (h: string): number | undefined => {
      const result = decodeCpMessage(hex(h));
      assert.equal(result.ok, false);
      return result.ok ? undefined : result.cause;
    };
    assert.equal(cause('09'), undefined, 'too short: ignored');
    assert.equal(cause('0301'), undefined, 'another protocol discriminator: not SMS');
    assert.equal(cause('7904'), CP_CAUSE.invalidTransactionIdentifier, 'TI value 7');
    assert.equal(cause('0902'), CP_CAUSE.messageTypeNonExistent, 'message type 2');
    assert.equal(cause('0901'), CP_CAUSE.invalidMandatoryInformation, 'CP-User data missing');
    assert.equal(cause('090105 0001'), CP_CAUSE.invalidMandatoryInformation, 'CP-User data length lies');
    assert.equal(cause('090101 00'), CP_CAUSE.invalidMandatoryInformation, 'CP-User data below 2 octets');
    assert.equal(cause('0910'), CP_CAUSE.invalidMandatoryInformation, 'CP-cause missing');
  });

  it('names the CP-causes as Table 8.2 does', () => {
    assert.equal(cpCauseLabel(81), 'Invalid Transaction Identifier value (81)');
    assert.equal(cpCauseLabel(5), 'Unknown (5)');
  });
});

describe('RP layer', () => {
  const sc = { typeOfNumber: 1, numberingPlan: 1, value: '46708251358' };
  const cases: [string, RpMessage][] = [
    // MS to network RP-DATA (MTI 0): reference 5, originator empty, destination 91 6407281553F8, TPDU.
    [
      '00 05 00 07916407281553f8 03 010000',
      {
        type: 'rp-data',
        direction: 'ms-to-network',
        messageReference: 5,
        destination: sc,
        tpdu: hex('010000'),
      },
    ],
    // Network to MS RP-DATA (MTI 1): the originator is the SC, the destination empty.
    [
      '01 06 07916407281553f8 00 02 0400',
      { type: 'rp-data', direction: 'network-to-ms', messageReference: 6, originator: sc, tpdu: hex('0400') },
    ],
    ['02 07', { type: 'rp-ack', direction: 'ms-to-network', messageReference: 7 }],
    // RP-ACK with RP-User data (IEI 0x41).
    [
      '03 08 41 02 0100',
      { type: 'rp-ack', direction: 'network-to-ms', messageReference: 8, tpdu: hex('0100') },
    ],
    // RP-ERROR: RP-Cause LV (22 Memory capacity exceeded), then RP-User data.
    [
      '04 09 01 16 41 03 00d000',
      { type: 'rp-error', direction: 'ms-to-network', messageReference: 9, cause: 22, tpdu: hex('00d000') },
    ],
    // RP-ERROR towards the MS with a diagnostic octet.
    [
      '05 0a 02 2a 01',
      { type: 'rp-error', direction: 'network-to-ms', messageReference: 10, cause: 42, diagnostic: 1 },
    ],
    ['06 0b', { type: 'rp-smma', direction: 'ms-to-network', messageReference: 11 }],
  ];
  for (const [bytes, message] of cases) {
    it(`${message.type} (${message.direction}) encodes to ${bytes} and back`, () => {
      assert.equal(toHex(encodeRpMessage(message)), bytes.replace(/ /g, ''));
      assert.deepEqual(decodeRpMessage(hex(bytes)), { ok: true, value: message });
    });
  }

  it('refuses malformed RP messages with the causes of TS 24.011 9.3', () => {
    const cause = (h: string): number | undefined => {
      const result = decodeRpMessage(hex(h));
      assert.equal(result.ok, false, h);
      return result.ok ? undefined : result.cause;
    };
    assert.equal(cause('00'), undefined, 'too short: ignored');
    assert.equal(cause('0701'), RP_CAUSE.messageTypeNonExistent, 'MTI 111 is reserved');
    assert.equal(cause('0001 00'), RP_CAUSE.invalidMandatoryInformation, 'RP-DATA cut off');
    assert.equal(
      cause('0001 00 00 05 0100'),
      RP_CAUSE.invalidMandatoryInformation,
      'RP-User data length lies',
    );
    assert.equal(cause('0001 00 00 00'), RP_CAUSE.invalidMandatoryInformation, 'empty RP-User data');
    assert.equal(
      cause('0001 01 91 00 01 00'),
      RP_CAUSE.invalidMandatoryInformation,
      'originator from the MS',
    );
    assert.equal(
      cause('0001 00 03 91 f1 21 01 00'),
      RP_CAUSE.invalidMandatoryInformation,
      'a filler mid-number',
    );
    assert.equal(
      cause('0001 00 00 01 00'),
      RP_CAUSE.invalidMandatoryInformation,
      'no SC address from the MS',
    );
    assert.equal(
      cause('0101 01 91 00 01 00'),
      RP_CAUSE.invalidMandatoryInformation,
      'no digits in the SC address',
    );
    assert.equal(cause('0401'), RP_CAUSE.invalidMandatoryInformation, 'RP-Cause missing');
    assert.equal(cause('0401 03 010203'), RP_CAUSE.invalidMandatoryInformation, 'RP-Cause too long');
    assert.equal(cause('0201 42 01 00'), RP_CAUSE.informationElementNonExistent, 'unknown IE');
  });

  it('names the RP-causes as Table 8.4 does', () => {
    assert.equal(rpCauseLabel(50), 'Requested facility not subscribed (50)');
    assert.equal(rpCauseLabel(81), 'Invalid short message transfer reference value (81)');
  });
});
