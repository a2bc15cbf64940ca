// A radio event's `nas` detail (network.md section 3) names the NAS message from its headers alone
// (nas-summary.ts): the same name a full decode gives for every message that decodes, none for a
// ciphered one or headers that do not read, and the header's name for a message whose IEs do not decode.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nasMessageName } from '../../../src/network/amf/gmm/nas-summary.ts';
import {
  decodeNasPdu,
  encodeNasMessage,
  encodeSecurityProtected,
  messageTitle,
  type NasMessageType,
  type ProtectedSecurityHeaderType,
} from '../../../src/network/nas/index.ts';
import { INSTANCES, LATE_REL17_INSTANCES } from '../nas/instances.ts';

const MESSAGES = [...Object.values(INSTANCES), ...Object.values(LATE_REL17_INSTANCES)];

/** The plain message inside a security-protected PDU of `type` (TS 24.501 9.1.1), MAC and SN made up. */
function wrapped(plain: Uint8Array, type: ProtectedSecurityHeaderType): Uint8Array {
  return encodeSecurityProtected({
    securityHeaderType: type,
    mac: Uint8Array.of(1, 2, 3, 4),
    sequenceNumber: 7,
    payload: plain,
  });
}

/** The name the full decode gives: that of a plain message or of an integrity-protected one's inner. */
function decodedName(bytes: Uint8Array): string | undefined {
  const result = decodeNasPdu(bytes);
  if (!result.ok) return undefined;
  const { pdu } = result;
  let messageType: NasMessageType | undefined;
  if (pdu.kind === 'plain') messageType = pdu.message.messageType;
  else if (pdu.inner?.ok === true) messageType = pdu.inner.message.messageType;
  return messageType === undefined ? undefined : messageTitle(messageType);
}

describe('nasMessageName (a radio event names its NAS message)', () => {
  it('gives the full decode’s name for every message type, plain and integrity protected', () => {
    for (const message of MESSAGES) {
      const plain = encodeNasMessage(message);
      const title = messageTitle(message.messageType);
      for (const bytes of [plain, wrapped(plain, 1), wrapped(plain, 3)]) {
        assert.equal(decodedName(bytes), title, `${message.messageType} decodes`);
        assert.equal(nasMessageName(bytes), title, message.messageType);
      }
    }
  });

  it('names no ciphered message: its inner header is ciphered too', () => {
    for (const message of MESSAGES.slice(0, 5)) {
      const plain = encodeNasMessage(message);
      for (const type of [2, 4] as const) assert.equal(nasMessageName(wrapped(plain, type)), undefined);
    }
  });

  it('names nothing whose headers do not read', () => {
    const registrationRequest = encodeNasMessage(INSTANCES.registrationRequest);
    const refused: [string, Uint8Array][] = [
      ['empty', new Uint8Array(0)],
      ['EPD alone', Uint8Array.of(0x7e)],
      ['unknown EPD', Uint8Array.of(0x7f, 0x00, 0x41)],
      ['5GMM header cut', Uint8Array.of(0x7e, 0x00)],
      ['5GSM header cut', Uint8Array.of(0x2e, 0x05, 0x01)],
      ['unknown 5GMM message type', Uint8Array.of(0x7e, 0x00, 0x40)],
      ['unknown 5GSM message type', Uint8Array.of(0x2e, 0x05, 0x01, 0x00)],
      ['security header type 5', Uint8Array.of(0x7e, 0x05, 1, 2, 3, 4, 7, 0x7e, 0x00, 0x41)],
      ['protected, no room for an inner header', Uint8Array.of(0x7e, 0x01, 1, 2, 3, 4, 7, 0x7e, 0x00)],
      ['protected inside protected', wrapped(wrapped(registrationRequest, 1), 1)],
    ];
    for (const [what, bytes] of refused) {
      assert.equal(decodedName(bytes), undefined, `${what}: the decoder refuses it too`);
      assert.equal(nasMessageName(bytes), undefined, what);
    }
  });

  // The one difference from naming by a full decode: the name is the header's, as the NGAP PDU's
  // `decoded` view still shows the IEs' error (nasView).
  it('names a message by its header when its IEs do not decode', () => {
    const plain = encodeNasMessage(INSTANCES.registrationRequest);
    const cut = plain.subarray(0, 5);
    assert.equal(decodeNasPdu(cut).ok, false, 'a Registration Request cut inside its IEs');
    assert.equal(nasMessageName(cut), 'Registration Request');
    assert.equal(nasMessageName(wrapped(cut, 1)), 'Registration Request');
  });
});
