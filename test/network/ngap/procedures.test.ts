import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toHex } from '../../../src/network/asn1/hex.ts';
import {
  InitiatingMessage_MESSAGES,
  SuccessfulOutcome_MESSAGES,
  UnsuccessfulOutcome_MESSAGES,
} from '../../../src/network/ngap/generated/codec.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../../../src/network/ngap/ngap-codec.ts';
import { tshark } from '../../helpers/tshark.ts';

/** A message body with an empty IE container: extension bit, padding, a count of 0 in two octets. */
const EMPTY_CONTAINER = Uint8Array.of(0x00, 0x00, 0x00);

const OUTCOMES = [
  ['initiatingMessage', InitiatingMessage_MESSAGES],
  ['successfulOutcome', SuccessfulOutcome_MESSAGES],
  ['unsuccessfulOutcome', UnsuccessfulOutcome_MESSAGES],
] as const;

// Every message of NGAP-ELEMENTARY-PROCEDURES (TS 38.413 9.4.3), not only those the AMF uses: the
// codec dispatches each procedure code to its message type, and tshark agrees on the name.
describe('every NGAP message type', () => {
  const cases = OUTCOMES.flatMap(([choice, messages]) =>
    [...messages].map(([procedureCode, message]) => {
      // Built with the body as raw octets; decoding then types it by the procedure code.
      const raw = {
        choice,
        value: { procedureCode, name: null, criticality: 'ignore', value: EMPTY_CONTAINER },
      };
      return { message, bytes: encodeNgapPdu(raw as NGAPPDU) };
    }),
  ).filter(({ message }) => message !== 'PrivateMessage'); // its container needs at least one private IE

  // NGAP-PDU-Descriptions.asn defines 76 procedures: 29 with a successful outcome, 15 with an
  // unsuccessful one; 120 messages, PrivateMessage left out here.
  it('covers the whole set (76 procedures, 119 messages without PrivateMessage)', () => {
    assert.deepEqual(
      OUTCOMES.map(([, messages]) => messages.size),
      [76, 29, 15],
    );
    assert.equal(cases.length, 119);
  });

  it('decodes each as its message type, typed, and re-encodes it byte for byte', () => {
    for (const { message, bytes } of cases) {
      const decoded = decodeNgapPdu(bytes);
      assert.ok(decoded.ok, message);
      assert.notEqual(decoded.value.choice, null);
      assert.ok(decoded.value.choice !== null && decoded.value.value.name !== null, message);
      assert.equal(ngapMessageType(decoded.value), message);
      assert.equal(toHex(encodeNgapPdu(decoded.value)), toHex(bytes), message);
    }
  });

  it('tshark names each the same', async () => {
    const verdicts = await tshark(
      'ngap',
      cases.map(({ bytes }) => bytes),
    );
    cases.forEach(({ message }, index) => {
      assert.equal(verdicts[index]!.info, message);
      assert.equal(verdicts[index]!.malformed, false, message);
    });
  });
});
