import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeErrorIndication,
  decodeGtpu,
  encodeEchoRequest,
  encodeGtpu,
  encodeUplinkGPdu,
  GtpuMessageType,
  readPduSessionContainer,
} from '../../helpers/gtpu-codec.ts';

describe('GTP-U codec', () => {
  it('encodes an uplink G-PDU with the UL PDU Session Container as TS 29.281 5.1 and TS 38.415 5.5.2.2 lay out', () => {
    const bytes = encodeUplinkGPdu(0x01020304, Uint8Array.of(0x45, 0, 0, 20), 5);
    // flags V=1 PT=1 E=1; G-PDU; length 4 + 4 + 4; TEID; seq 0, N-PDU 0, next 0x85;
    // container: length 1, PDU type 1 (UL), QFI 5, next 0.
    assert.equal(
      Buffer.from(bytes).toString('hex'),
      '34ff000c01020304' + '00000085' + '01100500' + '45000014',
    );
    const decoded = decodeGtpu(bytes);
    assert.ok(decoded.ok);
    assert.equal(decoded.message.teid, 0x01020304);
    assert.deepEqual(readPduSessionContainer(decoded.message), { pduType: 1, qfi: 5 });
    assert.deepEqual([...decoded.message.payload], [0x45, 0, 0, 20]);
  });

  it('encodes an Echo Request with S = 1 and TEID 0 (TS 29.281 7.2.1)', () => {
    assert.equal(Buffer.from(encodeEchoRequest(7)).toString('hex'), '320100040000000000070000');
  });

  it('decodes the Error Indication information elements (TS 29.281 7.3.1, 8.3, 8.4)', () => {
    const payload = Uint8Array.of(16, 0xde, 0xad, 0xbe, 0xef, 133, 0, 4, 192, 0, 2, 1);
    const message = encodeGtpu({ type: GtpuMessageType.errorIndication, teid: 0, sequence: 0, payload });
    const decoded = decodeGtpu(message);
    assert.ok(decoded.ok);
    const ies = decodeErrorIndication(decoded.message.payload);
    assert.ok(ies.ok);
    assert.equal(ies.teid, 0xdeadbeef);
    assert.deepEqual([...ies.peerAddress], [192, 0, 2, 1]);
    assert.equal(decodeErrorIndication(payload.subarray(0, 7)).ok, false);
  });

  it('rejects what is not GTPv1-U or runs past its length, as error values', () => {
    assert.equal(decodeGtpu(Uint8Array.of(0x30, 255, 0, 0, 0, 0, 0)).ok, false);
    assert.equal(decodeGtpu(Uint8Array.of(0x20, 255, 0, 0, 0, 0, 0, 0)).ok, false); // GTP'
    assert.equal(decodeGtpu(Uint8Array.of(0x30, 255, 0, 9, 0, 0, 0, 0)).ok, false);
    // An extension header of length 0.
    assert.equal(decodeGtpu(Uint8Array.of(0x34, 255, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0x85, 0, 0, 0, 0)).ok, false);
  });

  it('never throws on random input (fixed-seed fuzz), and round-trips what it decodes', () => {
    let seed = 42;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    let decoded = 0;
    for (let i = 0; i < 20_000; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 40) }, () => Math.floor(random() * 256));
      if (i % 2 === 0 && bytes.length >= 8) {
        bytes[0] = 0x30 | (bytes[0]! & 0x07);
        bytes[2] = 0;
        bytes[3] = bytes.length - 8;
      }
      const result = decodeGtpu(bytes);
      if (!result.ok) continue;
      decoded++;
      const again = decodeGtpu(encodeGtpu(result.message));
      assert.ok(again.ok);
      assert.deepEqual(again.message, result.message);
    }
    assert.ok(decoded > 1000);
  });
});
