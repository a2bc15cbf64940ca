import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { describe, it, mock } from 'node:test';
import { Generator } from '../../../src/network/asn1/generator.ts';
import { keyMaterialIes, keyMaterialMessages } from '../../../src/network/asn1/ie-tables.ts';
import { parseModules } from '../../../src/network/asn1/parser.ts';
import { PerReader } from '../../../src/network/asn1/per-reader.ts';
import { KEY_MATERIAL_IES } from '../../../src/network/ngap/generated/ies.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import {
  decodeNgapPdu,
  encodeNgapPdu,
  redactNgapPdu,
  viewNgapPdu,
} from '../../../src/network/ngap/ngap-codec.ts';
import { createKeyMaterialRedactions } from '../../../src/records/key-material.ts';
import { tshark } from '../../helpers/tshark.ts';

/**
 * Key material in recorded NGAP PDUs (network.md section 4): every value of the ASN.1 type SecurityKey
 * (KgNB in Initial Context Setup Request and UE Context Modification Request, NH in the SecurityContext of
 * Path Switch Request Acknowledge and Handover Request) is zeroed in place, every other bit kept, so
 * that the PDU still decodes, for tshark too; the JSON view never shows one.
 */

interface Vector {
  tshark_info: string;
  ngap_hex: string;
}
const VECTORS = (
  JSON.parse(readFileSync('/work/shared/vectors/open5gs-5g-roaming-hr.ngap.json', 'utf8')) as {
    messages: Vector[];
  }
).messages;
const vector = (info: string): Uint8Array => {
  const found = VECTORS.find((v) => v.tshark_info.startsWith(info));
  assert.ok(found !== undefined, info);
  return Buffer.from(found.ngap_hex, 'hex');
};

const KEY = Buffer.from('9681ca9f1b63472d1f4b0fa3c56458ce6c4fa9e83110b670b90d5ac28197121d', 'hex');
const NH = Buffer.from('0badcafe'.repeat(8), 'hex');

/** Path Switch Request Acknowledge (TS 38.413 9.2.3.9) carrying {NCC, NH}. */
function pathSwitchAcknowledge(nh: Uint8Array): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 25,
      name: 'PathSwitchRequest',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: 7 },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: 3 },
          {
            id: 93,
            name: 'SecurityContext',
            criticality: 'reject',
            value: { nextHopChainingCount: 2, nextHopNH: { bytes: nh, length: 256 } },
          },
          {
            id: 77,
            name: 'PDUSessionResourceSwitchedList',
            criticality: 'ignore',
            value: [{ pDUSessionID: 1, pathSwitchRequestAcknowledgeTransfer: Uint8Array.of(0) }],
          },
        ],
      },
    },
  };
}

/** The bit positions where two equally long byte strings differ. */
function differingBits(a: Uint8Array, b: Uint8Array): number[] {
  assert.equal(a.length, b.length);
  const bits: number[] = [];
  for (let i = 0; i < a.length; i++)
    for (let bit = 0; bit < 8; bit++) if (((a[i]! ^ b[i]!) >> (7 - bit)) & 1) bits.push(8 * i + bit);
  return bits;
}

describe('redactNgapPdu', () => {
  it('zeroes the KgNB of an Initial Context Setup Request and nothing else', () => {
    const original = vector('InitialContextSetupRequest');
    assert.ok(Buffer.from(original).includes(KEY));
    const { bytes, redacted } = redactNgapPdu(original);
    assert.deepEqual(redacted, ['SecurityKey']);
    assert.equal(bytes.length, original.length);
    assert.ok(!Buffer.from(bytes).includes(KEY));
    const start = Buffer.from(original).indexOf(KEY);
    assert.deepEqual(Buffer.from(bytes).subarray(start, start + 32), Buffer.alloc(32));
    assert.deepEqual(Buffer.from(bytes.subarray(0, start)), Buffer.from(original.subarray(0, start)));
    assert.deepEqual(Buffer.from(bytes.subarray(start + 32)), Buffer.from(original.subarray(start + 32)));
    assert.equal(Buffer.from(original).indexOf(KEY), start, 'the input is not changed');
  });

  it('zeroes the NH of a Path Switch Request Acknowledge; the PDU still decodes to the same IEs', () => {
    const original = encodeNgapPdu(pathSwitchAcknowledge(NH));
    const { bytes, redacted } = redactNgapPdu(original);
    assert.deepEqual(redacted, ['SecurityKey']);
    assert.equal(differingBits(original, bytes).length, differingBits(NH, Buffer.alloc(32)).length);
    const decoded = decodeNgapPdu(bytes);
    assert.ok(decoded.ok);
    assert.deepEqual(decoded, decodeNgapPdu(encodeNgapPdu(pathSwitchAcknowledge(Buffer.alloc(32)))));
  });

  it('shows a SecurityKey as redacted in the JSON view, whatever its bits', () => {
    for (const bytes of [vector('InitialContextSetupRequest'), encodeNgapPdu(pathSwitchAcknowledge(NH))]) {
      const view = JSON.stringify(viewNgapPdu(bytes));
      assert.ok(!view.includes(KEY.toString('hex')) && !view.includes(NH.toString('hex')));
      assert.match(view, /\{"redacted":true\}/);
    }
  });

  it('gives a PDU without key material back as it is', () => {
    const original = vector('DownlinkNASTransport, Authentication request');
    const result = redactNgapPdu(original);
    assert.equal(result.bytes, original);
    assert.deepEqual(result.redacted, []);
  });

  it('does not decode a PDU whose message cannot carry a SecurityKey, even with a corrupted body', () => {
    const original = vector('DownlinkNASTransport, Authentication request');
    // After the CHOICE, procedure code and criticality (octets 0-2), the open type of the message.
    const corrupted = Uint8Array.from(original).fill(0xff, 3);
    const openType = mock.method(PerReader.prototype, 'openType');
    try {
      for (const bytes of [original, corrupted]) {
        const result = redactNgapPdu(bytes);
        assert.equal(result.bytes, bytes);
        assert.deepEqual(result.redacted, []);
      }
      assert.equal(openType.mock.callCount(), 0, 'the message body was not read');
    } finally {
      openType.mock.restore();
    }
  });

  it('never throws on a truncated or corrupted PDU, and keeps its length', () => {
    // Such a PDU came from a radio: the AMF records only PDUs it encoded itself or decoded.
    const original = vector('InitialContextSetupRequest');
    for (let length = 0; length < original.length; length++)
      assert.equal(redactNgapPdu(original.subarray(0, length)).bytes.length, length);
    for (let i = 0; i < original.length; i++) {
      const corrupted = Uint8Array.from(original);
      corrupted[i] = corrupted[i]! ^ 0xff;
      assert.equal(redactNgapPdu(corrupted).bytes.length, original.length);
    }
  });

  it('tshark decodes redacted PDUs', async () => {
    const verdicts = await tshark('ngap', [
      redactNgapPdu(vector('InitialContextSetupRequest')).bytes,
      redactNgapPdu(encodeNgapPdu(pathSwitchAcknowledge(NH))).bytes,
    ]);
    assert.deepEqual(
      verdicts.map(({ info, malformed }) => ({ info: info.split(',')[0], malformed })),
      [
        { info: 'InitialContextSetupRequest', malformed: false },
        { info: 'PathSwitchRequestAcknowledge', malformed: false },
      ],
    );
  });
});

describe('KEY_MATERIAL_IES', () => {
  it('lists the messages with a SecurityKey in their IEs, not the NAS transports', () => {
    for (const message of [
      'InitialContextSetupRequest',
      'UEContextModificationRequest',
      'HandoverRequest',
      'PathSwitchRequestAcknowledge',
    ])
      assert.ok(KEY_MATERIAL_IES.has(message), message);
    for (const message of ['DownlinkNASTransport', 'InitialUEMessage', 'UplinkNASTransport'])
      assert.ok(!KEY_MATERIAL_IES.has(message), message);
  });

  it('counts a message whose IE type is not defined in the modules as key-bearing (fail closed)', () => {
    const dir = 'third-party/asn1/ngap';
    const modules = readdirSync(dir)
      .filter((file) => file.endsWith('.asn'))
      .sort()
      .flatMap((file) => parseModules(readFileSync(`${dir}/${file}`, 'utf8')));
    assert.ok(!keyMaterialMessages(modules, ['SecurityKey']).includes('DownlinkNASTransport'));
    for (const module of modules) module.types.delete('NAS-PDU');
    const found = keyMaterialMessages(modules, ['SecurityKey']);
    assert.ok(found.includes('DownlinkNASTransport') && found.includes('InitialUEMessage'));
    assert.ok(!found.includes('NGSetupRequest'));
    // The IE whose type is unknown is the one named: a type the walk cannot place, so the full decode.
    assert.deepEqual(
      keyMaterialIes(modules, ['SecurityKey'], 'DownlinkNASTransport').map((ie) => [ie.id, ie.type]),
      [[38, 'NAS-PDU']],
    );
  });
});

describe('createKeyMaterialRedactions', () => {
  it('redacts the protocols registered and names what was zeroed in details', () => {
    const redactions = createKeyMaterialRedactions();
    const raw = vector('InitialContextSetupRequest');
    const event = { protocol: 'NGAP', raw, details: { radio: 'gnb-1' } };
    assert.equal(redactions.apply('NGAP', event), event, 'nothing registered yet');
    redactions.register('NGAP', redactNgapPdu);
    const applied = redactions.apply('NGAP', event);
    assert.ok(!Buffer.from(applied.raw).includes(KEY));
    assert.deepEqual(applied.details, { radio: 'gnb-1', redacted: ['SecurityKey'] });
    assert.equal(redactions.apply('NAS', event), event);
  });
});

describe('generator: key material', () => {
  const generate = (asn1: string) =>
    new Generator(parseModules(asn1), {
      aligned: true,
      runtime: '../../asn1',
      source: 'test',
      keyMaterial: ['Key'],
    }).generate();
  const module = (type: string) => `M DEFINITIONS AUTOMATIC TAGS ::= BEGIN\nKey ::= ${type}\nEND\n`;

  it('has a fixed-size key read through keyMaterial and viewed as redacted', () => {
    const files = generate(module('BIT STRING (SIZE(256))'));
    assert.match(files['codec.ts'], /r\.keyMaterial\('Key', \(\) => r\.alignedBitString\(256\)\)/);
    assert.match(files['view.ts'], /return redactedView\(\);/);
  });

  it('refuses key material that a length determinant precedes (zeroing would break the PDU)', () => {
    assert.throws(() => generate(module('BIT STRING (SIZE(1..256))')), /not a fixed-size/);
    assert.throws(() => generate(module('OCTET STRING')), /not a fixed-size/);
    assert.throws(() => generate(module('INTEGER (0..7)')), /not a fixed-size/);
  });
});
