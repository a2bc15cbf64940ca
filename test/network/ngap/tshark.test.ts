import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toHex } from '../../../src/network/asn1/hex.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../../../src/network/ngap/ngap-codec.ts';
import { tsharkTree } from '../../helpers/tshark.ts';
import { SAMPLES } from './samples.ts';

describe('NGAP PDUs built from scratch, checked by tshark (an independent decoder)', () => {
  const encoded = SAMPLES.map((sample) => encodeNgapPdu(sample.pdu));

  it('every sample decodes back to itself and re-encodes identically', () => {
    for (const [index, sample] of SAMPLES.entries()) {
      const decoded = decodeNgapPdu(encoded[index]!);
      assert.ok(decoded.ok, sample.info);
      assert.equal(ngapMessageType(decoded.value), sample.message);
      assert.equal(toHex(encodeNgapPdu(decoded.value)), toHex(encoded[index]!), sample.info);
    }
  });

  it('tshark reads each as the intended message, not malformed, with no expert error', async () => {
    const verdicts = await tsharkTree('ngap', encoded);
    for (const [index, sample] of SAMPLES.entries()) {
      const verdict = verdicts[index]!;
      const label = `${sample.info}: ${toHex(encoded[index]!)}`;
      assert.equal(verdict.info, sample.info, label);
      const tree = JSON.stringify(verdict.layer);
      assert.match(tree, new RegExp(`"ngap.${sample.message}_element"`), label);
      if (sample.nested !== undefined) assert.match(tree, new RegExp(`"${sample.nested}_element"`), label);
      assert.equal(verdict.malformed, false, label);
      assert.equal(verdict.expert, '', label);
    }
  });

  it('tshark reads the PDU session resource transfers inside the setup request', async () => {
    const setup = SAMPLES.find((sample) => sample.info.startsWith('PDUSessionResourceSetupRequest'));
    assert.ok(setup);
    const [verdict] = await tsharkTree('ngap', [encodeNgapPdu(setup.pdu)]);
    const tree = JSON.stringify(verdict!.layer);
    assert.match(tree, /"ngap.fiveQI":"9"/);
    assert.match(tree, /"ngap.TransportLayerAddressIPv4":"127.0.0.1"/);
    assert.match(tree, /"ngap.pDUSessionAggregateMaximumBitRateDL":"100000000000"/);
  });
});
