// Untrusted bytes never make the codec throw, hang or grow without bound: 120,000 inputs from a
// fixed-seed PRNG, random and mutated from the vectors and the instances of every message type (the
// Release 17 ones tshark 4.0 lacks included). Whatever decodes also re-encodes, and the re-encoding
// decodes to the same bytes again.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  decodeNasMessage,
  decodeNasPdu,
  encodeNasMessage,
  encodeSecurityProtected,
  type NasDecodeResult,
} from '../../../src/network/nas/index.ts';
import { INSTANCES } from './instances.ts';

const INPUTS = 120_000;

/** mulberry32: a small deterministic PRNG, so a failing input can be reproduced from its index. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seeds(): Uint8Array[] {
  const vectors = new URL('../../../third-party/vectors/', import.meta.url);
  const pycrate = JSON.parse(readFileSync(new URL('pycrate-nas5gs-messages.json', vectors), 'utf8')) as {
    vectors: { hex: string }[];
  };
  const open5gs = JSON.parse(readFileSync(new URL('open5gs-5g-roaming-hr.ngap.json', vectors), 'utf8')) as {
    messages: { nas_pdus: string[] }[];
  };
  const hexes = [...pycrate.vectors.map((v) => v.hex), ...open5gs.messages.flatMap((m) => m.nas_pdus)];
  const instances = Object.values(INSTANCES).map(encodeNasMessage);
  const wrapped = instances.slice(0, 8).map((payload, i) =>
    encodeSecurityProtected({
      securityHeaderType: ((i % 4) + 1) as 1,
      mac: new Uint8Array(4),
      sequenceNumber: i,
      payload,
    }),
  );
  return [...hexes.map((h) => Buffer.from(h, 'hex')), ...instances, ...wrapped];
}

function mutate(seed: Uint8Array, random: () => number): Uint8Array {
  const int = (n: number): number => Math.floor(random() * n);
  let bytes = Array.from(seed);
  const edits = 1 + int(4);
  for (let e = 0; e < edits; e++) {
    const at = int(bytes.length + 1);
    switch (int(6)) {
      case 0: // flip a byte
        if (bytes.length > 0) bytes[at % bytes.length] = int(256);
        break;
      case 1: // truncate
        bytes = bytes.slice(0, at);
        break;
      case 2: // insert random bytes
        bytes.splice(at, 0, ...Array.from({ length: 1 + int(6) }, () => int(256)));
        break;
      case 3: // duplicate a run (repeated IEs)
        bytes.splice(at, 0, ...bytes.slice(int(bytes.length), int(bytes.length) + 12));
        break;
      case 4: // a large length field
        bytes.splice(at, 0, 0xff, 0xff);
        break;
      default: // delete a run
        bytes.splice(at, 1 + int(4));
    }
  }
  return Uint8Array.from(bytes);
}

function randomInput(random: () => number): Uint8Array {
  const length = Math.floor(random() * 48);
  const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
  // Mostly a valid discriminator and message type, to get past the header into the IEs.
  if (length > 0 && random() < 0.8) bytes[0] = random() < 0.7 ? 0x7e : 0x2e;
  if (length > 1 && bytes[0] === 0x7e && random() < 0.7) bytes[1] = 0;
  return bytes;
}

/** A decoded message re-encodes; decoding that re-encoding gives back the same bytes. */
function checkStable(result: NasDecodeResult, index: number): void {
  if (!result.ok) {
    assert.equal(result.error.fatal, true, `input ${index}`);
    return;
  }
  assert.ok(
    result.errors.every((e) => !e.fatal),
    `input ${index}`,
  );
  const encoded = encodeNasMessage(result.message);
  const again = decodeNasMessage(encoded);
  assert.ok(again.ok, `input ${index}: re-encoding does not decode`);
  assert.deepEqual(again.errors, [], `input ${index}`);
  assert.equal(Buffer.compare(encodeNasMessage(again.message), encoded), 0, `input ${index}`);
}

describe('NAS codec fuzzing', () => {
  it(`survives ${INPUTS} random and mutated inputs`, () => {
    const random = prng(0x5eed);
    const corpus = seeds();
    let decoded = 0;
    for (let index = 0; index < INPUTS; index++) {
      const input =
        random() < 0.25
          ? randomInput(random)
          : mutate(corpus[Math.floor(random() * corpus.length)] ?? new Uint8Array(), random);
      const result = decodeNasPdu(input);
      if (!result.ok) continue;
      decoded++;
      if (result.pdu.kind === 'plain')
        checkStable({ ok: true, message: result.pdu.message, errors: result.errors }, index);
      else {
        // Spare bits of the header octet are not kept; everything else is.
        const encoded = encodeSecurityProtected(result.pdu);
        assert.equal(Buffer.compare(encoded.subarray(2), input.subarray(2)), 0, `input ${index}`);
        assert.equal(encoded[1], (input[1] ?? 0) & 0xf, `input ${index}`);
        checkStable(decodeNasMessage(result.pdu.payload), index);
      }
    }
    // The mutations must reach the IE decoders, not only the header checks.
    assert.ok(decoded > INPUTS / 10, `only ${decoded} inputs decoded`);
  });
});
