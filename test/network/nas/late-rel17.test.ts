// The Release 17 messages Debian's tshark (Wireshark 4.0) does not know: 5G ProSe relay security
// (TS 24.501 8.2.34-8.2.38), service-level authentication (8.3.17-8.3.18) and the remote UE report
// (8.3.19-8.3.20). Checked by round trip and against the source tables: Wireshark's packet-nas_5gs.c
// (nas_5gs_mm_relay_key_request ... nas_5gs_sm_remote_ue_resp, references TS 24.501 19.6.2) and
// free5gc/nas message/*.go (generated from the spec's tables), which agree on every IEI, presence,
// format and length used here. The byte strings below are written from those tables by hand, so they
// do not depend on the encoder they check.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodedView,
  decodeNasMessage,
  encodeNasMessage,
  messageTitle,
  messageTypes,
  type NasErrorKind,
  type NasMessage,
} from '../../../src/network/nas/index.ts';
import { INSTANCES, LATE_REL17_INSTANCES } from './instances.ts';

const hex = (value: string): Uint8Array => new Uint8Array(Buffer.from(value.replace(/ /g, ''), 'hex'));
const eap = '02 09 00 05 01'; // EAP-Response, identifier 9, length 5, type Identity
const eapSuccess = '03 07 00 04';
const nonce = '00112233445566778899aabbccddeeff';

/** Hand-written messages and what they decode to (header, then the IEs in table order). */
const VECTORS: { bytes: string; message: NasMessage }[] = [
  {
    // 8.2.34: PRTI (V, 1); relay key request parameters (LV-E, 22-65537): length 0x0014 = 20.
    bytes: `7e 00 69 07 0014 000001 ${nonce} 01`,
    message: {
      messageType: 'relayKeyRequest',
      prti: 7,
      relayKeyRequestParameters: hex(`000001 ${nonce} 01`),
    },
  },
  {
    // 8.2.35: PRTI; relay key response parameters (LV-E, 51-65537): 0x0031 = 49; EAP message (78, TLV-E).
    bytes: `7e 00 6a 07 0031 ${'5a'.repeat(32)} ${nonce} 01 78 0004 ${eapSuccess}`,
    message: {
      messageType: 'relayKeyAccept',
      prti: 7,
      relayKeyResponseParameters: hex(`${'5a'.repeat(32)} ${nonce} 01`),
      eapMessage: hex(eapSuccess),
    },
  },
  {
    // 8.2.36: PRTI; EAP message (78, O, TLV-E 7-1503).
    bytes: '7e 00 6b 07 78 0004 04 07 00 04',
    message: { messageType: 'relayKeyReject', prti: 7, eapMessage: hex('04 07 00 04') },
  },
  { bytes: '7e 00 6b 08', message: { messageType: 'relayKeyReject', prti: 8 } },
  {
    // 8.2.37: PRTI; EAP message (M, LV-E 6-1502).
    bytes: `7e 00 6c 09 0005 01 09 00 05 01`,
    message: { messageType: 'relayAuthenticationRequest', prti: 9, eapMessage: hex('01 09 00 05 01') },
  },
  {
    // 8.2.38: PRTI; EAP message (M, LV-E 6-1502).
    bytes: `7e 00 6d 09 0005 ${eap}`,
    message: { messageType: 'relayAuthenticationResponse', prti: 9, eapMessage: hex(eap) },
  },
  {
    // 8.3.17: PDU session ID 6, PTI 2; service-level-AA container (M, LV-E 5-n).
    bytes: '2e 06 02 d8 0005 01 03 616263',
    message: {
      messageType: 'serviceLevelAuthenticationCommand',
      pduSessionId: 6,
      pti: 2,
      serviceLevelAaContainer: hex('01 03 616263'),
    },
  },
  {
    // 8.3.18: service-level-AA container (M, LV-E 5-n).
    bytes: '2e 06 02 d9 0003 0c 01 01',
    message: {
      messageType: 'serviceLevelAuthenticationComplete',
      pduSessionId: 6,
      pti: 2,
      serviceLevelAaContainer: hex('0c 01 01'),
    },
  },
  {
    // 8.3.19: remote UE context connected (76) and disconnected (70), TLV-E 16-65538 each.
    bytes: `2e 06 02 da 76 000d ${'11'.repeat(13)} 70 000e ${'22'.repeat(14)}`,
    message: {
      messageType: 'remoteUeReport',
      pduSessionId: 6,
      pti: 2,
      remoteUeContextConnected: hex('11'.repeat(13)),
      remoteUeContextDisconnected: hex('22'.repeat(14)),
    },
  },
  {
    bytes: `2e 06 02 da 70 000d ${'22'.repeat(13)}`,
    message: {
      messageType: 'remoteUeReport',
      pduSessionId: 6,
      pti: 2,
      remoteUeContextDisconnected: hex('22'.repeat(13)),
    },
  },
  {
    // 8.3.20: no IE after the header.
    bytes: '2e 06 02 db',
    message: { messageType: 'remoteUeReportResponse', pduSessionId: 6, pti: 2 },
  },
];

function decodes(bytes: Uint8Array): NasMessage {
  const result = decodeNasMessage(bytes);
  assert.ok(result.ok, Buffer.from(bytes).toString('hex'));
  assert.deepEqual(result.errors, []);
  return result.message;
}

function rejects(bytes: string, kind: NasErrorKind, ie: string): void {
  const result = decodeNasMessage(hex(bytes));
  assert.ok(!result.ok, bytes);
  assert.equal(result.error.kind, kind, bytes);
  assert.equal(result.error.ie, ie, bytes);
  assert.equal(result.error.cause, 96, bytes);
}

describe('Release 17 messages Wireshark 4.0 lacks', () => {
  it('encode -> decode gives back each instance', () => {
    for (const message of Object.values(LATE_REL17_INSTANCES)) {
      assert.deepEqual(decodes(encodeNasMessage(message)), message, message.messageType);
    }
  });

  it('decode the tables’ byte layouts, and encode them back to the same bytes', () => {
    for (const { bytes, message } of VECTORS) {
      const input = hex(bytes);
      assert.deepEqual(decodes(input), message, bytes);
      assert.equal(
        Buffer.from(encodeNasMessage(message)).toString('hex'),
        Buffer.from(input).toString('hex'),
      );
    }
    // Every one of the nine message types has at least one vector.
    assert.deepEqual(
      [...new Set(VECTORS.map((v) => v.message.messageType))].sort(),
      Object.keys(LATE_REL17_INSTANCES).sort(),
    );
  });

  it('hold mandatory IEs to the tables’ lengths (7.5: #96)', () => {
    // Relay key request parameters: at least 20 octets of value; 19 is too few.
    rejects(`7e 00 69 07 0013 000001 ${nonce}`, 'invalid-mandatory-ie', 'relayKeyRequestParameters');
    rejects('7e 00 69 07', 'missing-mandatory-ie', 'relayKeyRequestParameters');
    rejects('7e 00 69', 'missing-mandatory-ie', 'prti');
    // Relay key response parameters: at least 49 octets of value.
    rejects(`7e 00 6a 07 0030 ${'5a'.repeat(48)}`, 'invalid-mandatory-ie', 'relayKeyResponseParameters');
    // The EAP message of the relay authentication messages is mandatory, 4 octets at least.
    rejects('7e 00 6c 09', 'missing-mandatory-ie', 'eapMessage');
    rejects('7e 00 6d 09 0003 02 09 00', 'invalid-mandatory-ie', 'eapMessage');
    // The service-level-AA container: at least 3 octets of value.
    rejects('2e 06 02 d8 0002 01 00', 'invalid-mandatory-ie', 'serviceLevelAaContainer');
  });

  it('handle a remote UE context list shorter than the table allows as absent (7.7.1)', () => {
    const result = decodeNasMessage(hex(`2e 06 02 da 76 000c ${'11'.repeat(12)} 70 000d ${'22'.repeat(13)}`));
    assert.ok(result.ok);
    assert.deepEqual(
      result.errors.map((e) => [e.kind, e.ie]),
      [['invalid-optional-ie', 'remoteUeContextConnected']],
    );
    assert.equal('remoteUeContextConnected' in result.message, false);
    assert.ok('remoteUeContextDisconnected' in result.message);
  });

  it('are named for the API', () => {
    assert.equal(messageTitle('relayKeyRequest'), 'Relay Key Request');
    assert.equal(messageTitle('relayAuthenticationResponse'), 'Relay Authentication Response');
    assert.equal(messageTitle('serviceLevelAuthenticationCommand'), 'Service-Level Authentication Command');
    assert.equal(messageTitle('remoteUeReportResponse'), 'Remote UE Report Response');
    assert.deepEqual(decodedView(LATE_REL17_INSTANCES.relayKeyReject), {
      relay_key_reject: { prti: 2, eap_message: '04020004' },
    });
    assert.deepEqual(
      Object.keys(decodedView(LATE_REL17_INSTANCES.remoteUeReport).remote_ue_report as object),
      ['pdu_session_id', 'pti', 'remote_ue_context_connected', 'remote_ue_context_disconnected'],
    );
  });
});

// TS 24.501 Release 17, Tables 9.7.1 (5GMM) and 9.7.2 (5GSM): every message type value, as
// Wireshark's nas_5gs_mm_message_type_vals / nas_5gs_sm_message_type_vals and free5gc's MsgType list
// give them.
const REL17_5GMM = [
  0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x54, 0x55, 0x56,
  0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c,
  0x6d,
];
const REL17_5GSM = [
  0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xd1, 0xd2, 0xd3, 0xd4, 0xd6, 0xd8, 0xd9,
  0xda, 0xdb,
];

describe('NAS message types against TS 24.501 Release 17 (9.7)', () => {
  it('the codec knows every message type of Tables 9.7.1 and 9.7.2, and no other', () => {
    const mm: number[] = [];
    const sm: number[] = [];
    for (const messageType of messageTypes()) {
      const encoded = encodeNasMessage(INSTANCES[messageType]);
      if (encoded[0] === 0x7e) mm.push(encoded[2] ?? -1);
      else sm.push(encoded[3] ?? -1);
    }
    assert.deepEqual(
      mm.sort((a, b) => a - b),
      REL17_5GMM,
    );
    assert.deepEqual(
      sm.sort((a, b) => a - b),
      REL17_5GSM,
    );
    assert.equal(messageTypes().length, 57);
  });
});
