// Untrusted bytes never make an SMS decoder throw: at least 100,000 inputs per decoder from a fixed-seed
// PRNG (random octets, and valid messages of each kind with octets flipped, cut, inserted, duplicated
// and deleted, and length fields made to lie). Whatever decodes re-encodes, and the re-encoding decodes
// to the same value. Work per input is linear in its length, so the run is bounded by the input count.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeCpMessage,
  decodeDcs,
  decodeRpMessage,
  decodeTpAddress,
  decodeTpdu,
  decodeUserData,
  decodeValidityPeriod,
  encodeCpMessage,
  encodeRpMessage,
  encodeTpdu,
  splitText,
  type SmsDecodeResult,
  type TpduCarrier,
  type TpduDirection,
} from '../../../src/network/sms/index.ts';
import { prng, type Prng } from '../../helpers/openapi-fuzz.ts';

const INPUTS = 100_000;
const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));

const TPDUS = [
  '11000B916407281553F80000AA0AE8329BFD4697D9EC37',
  '040BC87238880900F10000993092516195800AE8329BFD4697D9EC37',
  '212A0B916407281553F80008044F60597D',
  '19000B916407281553F800006221600200004801C8',
  '09000B916407281553F800004310030000000001C8',
  '440B916407281553F8000062216002910000090500032A02019069',
  '062A0B916407281553F86221600291000062216002912000000700000 2CF25'.replace(' ', ''),
  '010062216002910000',
  '01C50062216002910000',
  '00D000',
  '4412D0E8329BFD4697D9EC3700086221600291000008050003010201041F',
].map(hex);
const RPDUS = [
  '0005000791640728155 3f803010000'.replace(' ', ''),
  '01060791640728155 3f8000204 00'.replace(/ /g, ''),
  '0207',
  '030841020100',
  '04090116410300d000',
  '050a022a01',
  '060b',
].map(hex);
const RP_WITH_TPDUS = TPDUS.map((tpdu) =>
  encodeRpMessage({
    type: 'rp-data',
    direction: 'network-to-ms',
    messageReference: 1,
    originator: { typeOfNumber: 1, numberingPlan: 1, value: '123456' },
    tpdu,
  }),
);
const CPDUS = [
  ...RPDUS.concat(RP_WITH_TPDUS).map((rpdu) =>
    encodeCpMessage({ type: 'cp-data', transactionId: 2, tiFlag: true, rpdu }),
  ),
  hex('b904'),
  hex('891016'),
];

function mutate(seed: Uint8Array, random: Prng): Uint8Array {
  let bytes = Array.from(seed);
  const edits = 1 + random.int(4);
  for (let e = 0; e < edits; e++) {
    const at = random.int(bytes.length + 1);
    switch (random.int(6)) {
      case 0: // change an octet
        if (bytes.length > 0) bytes[at % bytes.length] = random.int(256);
        break;
      case 1: // cut
        bytes = bytes.slice(0, at);
        break;
      case 2: // insert random octets
        bytes.splice(at, 0, ...Array.from({ length: 1 + random.int(6) }, () => random.int(256)));
        break;
      case 3: // duplicate a run
        bytes.splice(at, 0, ...bytes.slice(random.int(bytes.length), random.int(bytes.length) + 12));
        break;
      case 4: // a length field that lies
        bytes.splice(at, 1, random.pick([0, 1, 0x7f, 0x80, 0xa0, 0xff]));
        break;
      default: // delete a run
        bytes.splice(at, 1 + random.int(4));
    }
  }
  return Uint8Array.from(bytes);
}

function* inputs(seeds: readonly Uint8Array[], seed: number): Generator<Uint8Array> {
  const random = prng(seed);
  for (let i = 0; i < INPUTS; i++) {
    yield random.chance(0.1)
      ? Uint8Array.from({ length: random.int(260) }, () => random.int(256))
      : mutate(random.pick(seeds), random);
  }
}

/** Decodes, and for what decodes: encodes, decodes again and compares. Returns how many decoded. */
function check<T>(
  bytes: Uint8Array,
  decode: (b: Uint8Array) => SmsDecodeResult<T>,
  encode: (v: T) => Uint8Array,
): boolean {
  const result = decode(bytes);
  if (!result.ok) {
    assert.equal(typeof result.error, 'string');
    return false;
  }
  const again = decode(encode(result.value));
  assert.deepEqual(again, result, Buffer.from(bytes).toString('hex'));
  return true;
}

describe('SMS decoders under fuzz', () => {
  it(`CP: ${INPUTS} inputs`, () => {
    let decoded = 0;
    for (const bytes of inputs(CPDUS, 1)) if (check(bytes, decodeCpMessage, encodeCpMessage)) decoded++;
    assert.ok(decoded > INPUTS / 10, `only ${decoded} decoded: the mutations are too blunt`);
  });

  it(`RP: ${INPUTS} inputs`, () => {
    let decoded = 0;
    for (const bytes of inputs([...RPDUS, ...RP_WITH_TPDUS], 2))
      if (check(bytes, decodeRpMessage, encodeRpMessage)) decoded++;
    assert.ok(decoded > INPUTS / 10, `only ${decoded} decoded`);
  });

  it(`TPDU: ${INPUTS} inputs, each read in every direction and carrier`, () => {
    const readings: [TpduDirection, TpduCarrier][] = [
      ['ms-to-sc', 'rp-data'],
      ['sc-to-ms', 'rp-data'],
      ['ms-to-sc', 'rp-ack'],
      ['sc-to-ms', 'rp-ack'],
      ['ms-to-sc', 'rp-error'],
      ['sc-to-ms', 'rp-error'],
    ];
    let decoded = 0;
    for (const bytes of inputs(TPDUS, 3)) {
      for (const [direction, carrier] of readings) {
        const decode = (b: Uint8Array) => decodeTpdu(b, direction, carrier);
        if (check(bytes, decode, encodeTpdu)) {
          decoded++;
          // The user data of what decodes, read as its TP-DCS says.
          const tpdu = decode(bytes);
          if (tpdu.ok && tpdu.value.userData !== undefined) {
            const dcs = 'dataCodingScheme' in tpdu.value ? (tpdu.value.dataCodingScheme ?? 0) : 0;
            decodeUserData(tpdu.value.userData, decodeDcs(dcs));
          }
        }
      }
    }
    // TPDUs are strict (TP-UDL must match the octets), so fewer mutations survive.
    assert.ok(decoded > INPUTS / 50, `only ${decoded} decoded`);
  });

  it(`user data, addresses and validity periods: ${INPUTS} inputs each`, () => {
    const random = prng(4);
    const seeds = TPDUS.map((t) => t.subarray(1));
    let i = 0;
    for (const bytes of inputs(seeds, 5)) {
      const dcs = random.int(256);
      decodeUserData({ headerIndicator: random.chance(0.5), length: random.int(256), bytes }, decodeDcs(dcs));
      decodeTpAddress(bytes, random.int(4));
      decodeValidityPeriod(bytes, random.int(4), random.int(4));
      i++;
    }
    assert.equal(i, INPUTS);
  });

  it('the splitter takes any text: 2,000 random strings of up to 2,000 code units', () => {
    const random = prng(6);
    for (let n = 0; n < 2000; n++) {
      const text = String.fromCharCode(
        ...Array.from({ length: random.int(2000) }, () => random.int(0x10000)),
      );
      const result = splitText(text, { reference: n & 0xff });
      assert.ok(result.ok);
      assert.equal(result.value.parts.map((p) => p.text).join(''), text);
    }
  });
});
