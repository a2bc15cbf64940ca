// readNgapHeader reads the NGAP-PDU CHOICE, procedure code and criticality from the octets themselves
// (ngap-header.ts); it must read exactly what the generated PER decoders read, and refuse what they refuse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PerReader } from '../../../src/network/asn1/per-reader.ts';
import { decodeCriticality, decodeProcedureCode } from '../../../src/network/ngap/generated/codec.ts';
import { decodeNgapPdu, encodeNgapPdu } from '../../../src/network/ngap/ngap-codec.ts';
import { readNgapHeader, type NgapHeader } from '../../../src/network/ngap/ngap-header.ts';
import { SAMPLES } from './samples.ts';
import { ngapVectors } from './vectors.ts';

const KINDS = ['initiating-message', 'successful-outcome', 'unsuccessful-outcome'] as const;

/** The header as the generated decoders read it, through a PerReader (TS 38.413 9.4.2). */
function byTheDecoders(bytes: Uint8Array): NgapHeader | undefined {
  try {
    const r = new PerReader(bytes, true);
    if (r.bit()) return undefined;
    const triggeringMessage = KINDS[r.bitsInt(0, 2, 2)]!;
    const procedureCode = decodeProcedureCode(r);
    const criticality = decodeCriticality(r);
    if ((criticality as string | undefined) === undefined) return undefined;
    return { procedureCode, triggeringMessage, criticality };
  } catch {
    return undefined;
  }
}

describe('readNgapHeader', () => {
  it('reads every sample and vector as its decoded PDU names it', () => {
    const pdus = [
      ...SAMPLES.map((s) => encodeNgapPdu(s.pdu)),
      ...ngapVectors().map((v) => Buffer.from(v.hex, 'hex')),
    ];
    let compared = 0;
    for (const bytes of pdus) {
      const decoded = decodeNgapPdu(bytes);
      // A vector that does not decode (one of free5gc's is malformed on purpose) has no PDU to compare.
      if (!decoded.ok || decoded.value.choice === null) continue;
      const { choice, value } = decoded.value;
      assert.deepEqual(readNgapHeader(bytes), {
        procedureCode: value.procedureCode,
        triggeringMessage:
          KINDS[['initiatingMessage', 'successfulOutcome', 'unsuccessfulOutcome'].indexOf(choice)],
        criticality: value.criticality,
      });
      compared++;
    }
    assert.ok(compared > 20, `${compared} PDUs compared`);
  });

  it('reads and refuses the first three octets as the generated decoders do, whatever they hold', () => {
    for (let first = 0; first < 256; first++)
      for (const code of [0, 1, 15, 46, 255])
        for (let third = 0; third < 256; third += 0x15) {
          const bytes = Uint8Array.of(first, code, third);
          assert.deepEqual(readNgapHeader(bytes), byTheDecoders(bytes), Buffer.from(bytes).toString('hex'));
        }
    for (const short of [[], [0x00], [0x00, 0x0f]]) {
      assert.equal(readNgapHeader(Uint8Array.from(short)), undefined);
      assert.equal(byTheDecoders(Uint8Array.from(short)), undefined);
    }
  });
});
