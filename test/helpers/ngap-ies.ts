import assert from 'node:assert/strict';
import type { Criticality, NGAPPDU } from '../../src/network/ngap/generated/types.ts';

// Tests of TS 38.413 clause 10 build PDUs whose IE lists the generated builders would refuse.

/** A protocol IE of any message, as the codec reads and writes it. */
export type AnyIe = { id: number; name: string | null; criticality: Criticality; value: unknown };

/** `pdu` with its protocol IEs rewritten (unknown, missing, repeated or reordered IEs). */
export function withIes(pdu: NGAPPDU, change: (ies: AnyIe[]) => AnyIe[]): NGAPPDU {
  assert.ok(pdu.choice !== null);
  const body = pdu.value.value as { protocolIEs: AnyIe[] };
  return {
    ...pdu,
    value: { ...pdu.value, value: { ...body, protocolIEs: change([...body.protocolIEs]) } },
  } as NGAPPDU;
}
