import type { Criticality } from '../ngap/generated/types.ts';
import type { DiagnosedIe } from './criticality-diagnostics.ts';

/** A mandatory IE of a message, with the criticality NGAP-PDU-Contents gives it. */
export interface MandatoryIe {
  id: number;
  criticality: Criticality;
}

/**
 * The mandatory IEs with criticality reject that a message lacks (TS 38.413 10.3.5): the receiver
 * rejects the procedure and reports them as `missing` in Criticality Diagnostics. A missing IE with
 * criticality ignore is ignored, the procedure goes on without it.
 */
export function missingRejectIes(
  ies: readonly { id: number }[],
  mandatory: readonly MandatoryIe[],
): DiagnosedIe[] {
  return mandatory
    .filter((ie) => ie.criticality === 'reject' && !ies.some((present) => present.id === ie.id))
    .map((ie) => ({ id: ie.id, criticality: ie.criticality, typeOfError: 'missing' }));
}
