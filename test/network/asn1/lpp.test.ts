import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitStringOf } from '../../../src/network/asn1/bit-string.ts';
import { decodeComplete, encodeComplete } from '../../../src/network/asn1/complete.ts';
import { toHex } from '../../../src/network/asn1/hex.ts';
import { decodeLPPMessage, encodeLPPMessage } from '../../../src/network/lpp/generated/codec.ts';
import type { LPPMessage } from '../../../src/network/lpp/generated/types.ts';
import { viewLPPMessage } from '../../../src/network/lpp/generated/view.ts';
import { tsharkTree } from '../../helpers/tshark.ts';

const UNALIGNED = false;
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** LPP Request Capabilities (TS 37.355 6.2): the location server asks what the device supports. */
const REQUEST_CAPABILITIES: LPPMessage = {
  transactionID: { initiator: 'locationServer', transactionNumber: 3 },
  endTransaction: false,
  sequenceNumber: 1,
  acknowledgement: { ackRequested: true },
  lppMessageBody: {
    choice: 'c1',
    value: {
      choice: 'requestCapabilities',
      value: {
        criticalExtensions: {
          choice: 'c1',
          value: {
            choice: 'requestCapabilities-r9',
            value: {
              // An extension addition ([[ ]] group, Rel-14) inside an extensible SEQUENCE.
              commonIEsRequestCapabilities: { lppMessageSegmentationReqR14: bitStringOf(1, 2) },
              aGnssRequestCapabilities: {
                gnssSupportListReq: true,
                assistanceDataSupportListReq: false,
                locationVelocityTypesReq: true,
              },
              ecidRequestCapabilities: {},
            },
          },
        },
      },
    },
  },
};

// The generator serves LPP (TS 37.355, UNALIGNED PER) from the same code as NGAP.
describe('generated LPP codec (UNALIGNED PER)', () => {
  const bytes = encodeComplete(REQUEST_CAPABILITIES, UNALIGNED, encodeLPPMessage);

  it('round-trips a Request Capabilities with an extension addition group', () => {
    const decoded = decodeComplete(bytes, UNALIGNED, decodeLPPMessage);
    assert.ok(decoded.ok, decoded.ok ? '' : decoded.error);
    assert.deepEqual(json(viewLPPMessage(decoded.value, {})), json(viewLPPMessage(REQUEST_CAPABILITIES, {})));
    assert.equal(toHex(encodeComplete(decoded.value, UNALIGNED, encodeLPPMessage)), toHex(bytes));
  });

  it('tshark reads it as Request Capabilities, clean', async () => {
    const [verdict] = await tsharkTree('lpp', [bytes]);
    assert.equal(verdict!.info, 'Request Capabilities');
    assert.equal(verdict!.malformed, false);
    assert.equal(verdict!.expert, '');
    const tree = JSON.stringify(verdict!.layer);
    for (const field of [
      'lpp_message_segmentation_req_r14',
      'locationVelocityTypesReq',
      'ecid_RequestCapabilities_element',
    ])
      assert.match(tree, new RegExp(`"lpp.${field}"`));
  });
});
