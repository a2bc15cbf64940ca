import assert from 'node:assert/strict';
import type { Cause, CriticalityDiagnostics, NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { tshark } from '../../helpers/tshark.ts';

/** The Cause and Criticality Diagnostics IEs of a received PDU (undefined when absent). */
export function causeAndDiagnostics(pdu: NGAPPDU | undefined): {
  cause: Cause | undefined;
  diagnostics: CriticalityDiagnostics | undefined;
} {
  assert.ok(pdu !== undefined && pdu.choice !== null, 'a decoded PDU');
  const body: unknown = pdu.value.value;
  const ies = (body as { protocolIEs?: { name: string | null; value: unknown }[] }).protocolIEs ?? [];
  // Absent optional fields decode as undefined; a JSON round trip drops them for deepEqual.
  const plain = (value: unknown): unknown =>
    value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  return {
    cause: plain(ies.find((ie) => ie.name === 'Cause')?.value) as Cause | undefined,
    diagnostics: plain(ies.find((ie) => ie.name === 'CriticalityDiagnostics')?.value) as
      CriticalityDiagnostics | undefined,
  };
}

/**
 * Collects every PDU the AMF sent in a test file, to be checked by tshark (an independent decoder) at
 * the end: each must dissect as the message the AMF meant, not malformed, with no expert error.
 */
export function emittedPdus() {
  const pdus: { messageType: string; bytes: Uint8Array }[] = [];
  return {
    add(received: readonly { messageType: string; bytes: Uint8Array }[]): void {
      for (const { messageType, bytes } of received) pdus.push({ messageType, bytes });
    },
    async check(): Promise<void> {
      if (pdus.length === 0) return;
      const verdicts = await tshark(
        'ngap',
        pdus.map((p) => p.bytes),
      );
      verdicts.forEach((verdict, i) => {
        const { messageType } = pdus[i]!;
        // The Info column names the NGAP message, then the NAS message inside when tshark reads one.
        assert.equal(verdict.info.split(', ')[0], messageType, `tshark names PDU ${i} ${verdict.info}`);
        assert.equal(verdict.malformed, false, `${messageType} is not malformed`);
        assert.equal(verdict.expert, '', `${messageType} has no expert message`);
      });
    },
  };
}
