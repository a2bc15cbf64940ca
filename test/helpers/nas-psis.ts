import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';

/**
 * The PSIs whose bit is set in a PSI-bitmap IE (PDU session status, Uplink data status, PDU session
 * reactivation result) of tshark's NAS-5GS dissection; `field`: the bit fields' stem, e.g.
 * `pdu_ses_sts_psi_`.
 */
export function psisOf(layer: Record<string, unknown>, ie: string, field: string): number[] {
  const message = layer['Plain NAS 5GS Message'] as Record<string, Record<string, string>> | undefined;
  const element = message?.[ie];
  if (element === undefined) return [];
  return Object.entries(element)
    .map(([name, value]) => [new RegExp(`${field}(\\d+)_b`).exec(name)?.[1], value] as const)
    .filter(([psi, value]) => psi !== undefined && value === '1')
    .map(([psi]) => Number(psi))
    .sort((a, b) => a - b);
}

/**
 * The plain NAS messages of `type` the UE sent or received, in order: whole, as the UE meant them (an
 * initial NAS message's ciphered NAS message container's message, TS 24.501 4.4.6, rather than the
 * cleartext message that carried it).
 */
export const nasOf = (ue: SimulatedUe, type: string): Uint8Array[] =>
  ue.log
    .filter((exchange) => exchange.messageType === type)
    .map((exchange) => exchange.contained ?? exchange.plain);
