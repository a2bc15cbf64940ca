import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it, mock } from 'node:test';
import { PerReader } from '../../../src/network/asn1/per-reader.ts';
import { redactKeyMaterial } from '../../../src/network/asn1/redact.ts';
import { decodeNGAPPDU } from '../../../src/network/ngap/generated/codec.ts';
import { KEY_MATERIAL_IES, MESSAGE_IES, PROCEDURES } from '../../../src/network/ngap/generated/ies.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { walkable, walkKeyMaterial } from '../../../src/network/ngap/key-material-walk.ts';
import { encodeNgapPdu, redactNgapPdu } from '../../../src/network/ngap/ngap-codec.ts';

/**
 * The redaction of recorded NGAP PDUs finds each key by walking the protocol IE container's framing
 * (key-material-walk.ts) instead of decoding the PDU: what it stores must be what the full decode
 * (redactKeyMaterial over decodeNGAPPDU) stores, for every message that can carry a key, and never a
 * key where the framing does not read.
 */

const KEY = Buffer.from('9681ca9f1b63472d1f4b0fa3c56458ce6c4fa9e83110b670b90d5ac28197121d', 'hex');

/** What the redaction stored before the walk: the full decode's. */
const fullDecode = (bytes: Uint8Array) => redactKeyMaterial(bytes, true, decodeNGAPPDU);

/** An IE value holding KEY, for each IE type the walk places. */
function keyValue(type: string): unknown {
  const key = { bytes: Uint8Array.from(KEY), length: 256 };
  return type === 'SecurityKey' ? key : { nextHopChainingCount: 5, nextHopNH: key };
}

/** A PDU of `message` with its UE's ids, `extra` IEs and, unless `withKey` is false, its key IE. */
function pdu(message: string, options: { withKey?: boolean; extra?: unknown[]; keyTwice?: boolean } = {}) {
  const [code, spec] = [...PROCEDURES].find(
    ([, s]) => s.initiatingMessage === message || s.successfulOutcome === message,
  )!;
  const choice = spec.initiatingMessage === message ? 'initiatingMessage' : 'successfulOutcome';
  const [id, type] = [...KEY_MATERIAL_IES.get(message)!][0]!;
  const keyIe = { id, name: type, criticality: 'reject', value: keyValue(type) };
  // The UE's ids where the message has them (Handover Request has no RAN UE NGAP ID yet).
  const ids = [
    { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: 7 },
    { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: 3 },
  ].filter((ie) => MESSAGE_IES.get(message)!.some((spec) => spec.id === ie.id));
  const protocolIEs = [
    ...ids,
    ...(options.extra ?? []),
    ...(options.withKey === false ? [] : options.keyTwice ? [keyIe, keyIe] : [keyIe]),
  ];
  const value = {
    procedureCode: code,
    name: spec.name,
    criticality: spec.criticality,
    value: { protocolIEs },
  };
  return encodeNgapPdu({ choice, value } as unknown as NGAPPDU);
}

const MESSAGES = [...KEY_MATERIAL_IES.keys()];

/** The bits set in `input` that `reference` cleared and `actual` did not: keys the walk would leave. */
function leftSet(input: Uint8Array, reference: Uint8Array, actual: Uint8Array): number {
  let left = 0;
  for (let i = 0; i < input.length; i++) left += input[i]! & ~reference[i]! & actual[i]!;
  return left;
}

describe('key-material walk', () => {
  it('places the key of every message that can carry one (the generated table)', () => {
    assert.deepEqual(MESSAGES, [
      'HandoverRequest',
      'InitialContextSetupRequest',
      'PathSwitchRequestAcknowledge',
      'UEContextModificationRequest',
      'UEContextResumeResponse',
      'UEContextSuspendResponse',
    ]);
    for (const message of MESSAGES) assert.ok(walkable(KEY_MATERIAL_IES.get(message)!), message);
  });

  it('stores what the full decode stores, for every message kind, without decoding it', () => {
    const big = { id: 38, name: 'NAS-PDU', criticality: 'ignore', value: new Uint8Array(300).fill(0x5a) };
    const cases: [string, Uint8Array][] = [];
    for (const message of MESSAGES) {
      cases.push([message, pdu(message)]);
      cases.push([`${message} without its key`, pdu(message, { withKey: false })]);
      cases.push([`${message} with its key twice`, pdu(message, { keyTwice: true })]);
    }
    // Two-octet lengths (X.691 11.9.3.7) for the message and an IE before the key.
    cases.push(['long InitialContextSetupRequest', pdu('InitialContextSetupRequest', { extra: [big] })]);
    const vectors = JSON.parse(
      readFileSync('/work/shared/vectors/open5gs-5g-roaming-hr.ngap.json', 'utf8'),
    ) as { messages: { tshark_info: string; ngap_hex: string }[] };
    const open5gs = vectors.messages.find((v) => v.tshark_info.startsWith('InitialContextSetupRequest'))!;
    cases.push(['open5gs InitialContextSetupRequest', Buffer.from(open5gs.ngap_hex, 'hex')]);

    const expected = cases.map(([, bytes]) => fullDecode(bytes));
    const openType = mock.method(PerReader.prototype, 'openType');
    try {
      cases.forEach(([name, bytes], i) => {
        const walked = redactNgapPdu(bytes);
        assert.deepEqual(Buffer.from(walked.bytes), Buffer.from(expected[i]!.bytes), name);
        assert.deepEqual(walked.redacted, expected[i]!.redacted, name);
        if (!name.includes('without')) assert.ok(!Buffer.from(walked.bytes).includes(KEY), name);
      });
      assert.equal(openType.mock.callCount(), 0, 'no PDU was decoded');
    } finally {
      openType.mock.restore();
    }
  });

  it('zeroes a PDU whole where a fragmented open type holds the message, as the full decode does', () => {
    const huge = { id: 38, name: 'NAS-PDU', criticality: 'ignore', value: new Uint8Array(20_000).fill(1) };
    const bytes = pdu('InitialContextSetupRequest', { extra: [huge] });
    const walked = redactNgapPdu(bytes);
    assert.deepEqual(Buffer.from(walked.bytes), Buffer.from(fullDecode(bytes).bytes));
    assert.ok(walked.bytes.every((octet) => octet === 0));
    assert.deepEqual(walked.redacted, ['PDU']);
  });

  it('finds the key behind an IE whose value does not decode (the full decode stops before it)', () => {
    const original = pdu('InitialContextSetupRequest');
    // AMF-UE-NGAP-ID's open type (after the header, message length, extension octet, count, id and
    // criticality): one octet of INTEGER (0..2^40-1) whose length field says more octets follow.
    const bytes = Uint8Array.from(original);
    const valueAt = Buffer.from(bytes).indexOf(Buffer.from([0x00, 0x0a, 0x00]), 3) + 3;
    assert.ok(valueAt > 3);
    bytes[valueAt + 1] = 0xff;
    assert.ok(Buffer.from(fullDecode(bytes).bytes).includes(KEY), 'the full decode left the key');
    const walked = redactNgapPdu(bytes);
    assert.ok(!Buffer.from(walked.bytes).includes(KEY));
    assert.deepEqual(walked.redacted, ['SecurityKey']);
  });

  it('never throws on a truncated or corrupted PDU, keeps its length and zeroes at least what the full decode zeroes', () => {
    for (const message of MESSAGES) {
      const original = pdu(message);
      const variants: Uint8Array[] = [];
      for (let length = 0; length < original.length; length++) variants.push(original.subarray(0, length));
      for (let i = 0; i < original.length; i++)
        for (const flip of [0xff, 0x01, 0x80]) {
          const corrupted = Uint8Array.from(original);
          corrupted[i] = corrupted[i]! ^ flip;
          variants.push(corrupted);
        }
      for (const bytes of variants) {
        const walked = redactNgapPdu(bytes);
        assert.equal(walked.bytes.length, bytes.length);
        assert.equal(leftSet(bytes, fullDecode(bytes).bytes, walked.bytes), 0, message);
        const keyIes = KEY_MATERIAL_IES.get(message)!;
        const sameMessage = bytes.length >= 3 && bytes[0] === original[0] && bytes[1] === original[1];
        if (sameMessage && walkKeyMaterial(bytes, keyIes) === undefined)
          assert.ok(
            walked.bytes.every((octet) => octet === 0),
            'a PDU the walk cannot read is zeroed whole',
          );
      }
    }
  });
});
