import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromHex, toHex } from '../../../src/network/asn1/hex.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../../../src/network/ngap/ngap-codec.ts';
import { FREE5GC_NG_SETUP_UNKNOWN_IE, ngapVectors } from './vectors.ts';

/** The message name tshark shows first in its Info column (`InitialUEMessage, Registration request`). */
function messageOf(info: string): string {
  return info.split(/[,[]/)[0]!.trim();
}

describe('NGAP codec against the vectors of independent implementations', () => {
  const vectors = ngapVectors();

  it('holds both files (63 free5gc PDUs, 23 from the open5gs capture)', () => {
    assert.equal(vectors.length, 86);
  });

  for (const vector of vectors) {
    if (vector.hex.startsWith('0015005858')) continue;
    it(`decodes and re-encodes byte for byte: ${vector.label} (${vector.info})`, () => {
      const decoded = decodeNgapPdu(fromHex(vector.hex));
      assert.ok(decoded.ok, decoded.ok ? '' : decoded.error);
      assert.equal(ngapMessageType(decoded.value), messageOf(vector.info));
      assert.equal(toHex(encodeNgapPdu(decoded.value)), vector.hex);
    });
  }

  it('keeps an IE outside the object set (free5gc id 153) as raw octets and re-encodes it', () => {
    const decoded = decodeNgapPdu(fromHex(FREE5GC_NG_SETUP_UNKNOWN_IE));
    assert.ok(decoded.ok);
    const pdu = decoded.value;
    assert.ok(pdu.choice === 'initiatingMessage' && pdu.value.name === 'NGSetup');
    const ies = pdu.value.value.protocolIEs;
    assert.deepEqual(
      ies.map((ie) => [ie.id, ie.name]),
      [
        [27, 'GlobalRANNodeID'],
        [82, 'RANNodeName'],
        [153, null],
        [102, 'SupportedTAList'],
        [21, 'DefaultPagingDRX'],
      ],
    );
    const unknown = ies[2]!;
    assert.ok(unknown.name === null);
    assert.equal(toHex(unknown.value), '0700676e622e73706972656e742e636f6d');
    assert.equal(toHex(encodeNgapPdu(pdu)), FREE5GC_NG_SETUP_UNKNOWN_IE);
  });

  it('reads the corrupted free5gc vector as tshark does: an NGSetupRequest with no IEs', () => {
    const corrupted = vectors.find((v) => v.hex.startsWith('0015005858'));
    assert.ok(corrupted);
    assert.equal(messageOf(corrupted.info), 'NGSetupRequest');
    const decoded = decodeNgapPdu(fromHex(corrupted.hex));
    assert.ok(
      decoded.ok && decoded.value.choice === 'initiatingMessage' && decoded.value.value.name === 'NGSetup',
    );
    assert.deepEqual(decoded.value.value.value.protocolIEs, []);
  });
});
