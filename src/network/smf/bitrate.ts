import type { BitRate } from '../nas/index.ts';

// TS 24.501 9.11.4.14: unit 1 is 1 kbps, each step x4; 6 = 1 Mbps, 11 = 1 Gbps, 16 = 1 Tbps, 21 = 1 Pbps.
const UNITS = [1, 6, 11, 16, 21] as const;
const unitBps = (unit: number): number => 1000 ** (Math.floor((unit - 1) / 5) + 1) * 4 ** ((unit - 1) % 5);

/**
 * A Session-AMBR rate (9.11.4.14) for `bps`: the smallest of the decimal units (kbps, Mbps, Gbps, ...)
 * that holds the value exactly in 16 bits, else the smallest that holds it rounded up (a rate is never
 * signalled below what the policy grants).
 */
export function nasBitRate(bps: number): BitRate {
  for (const unit of UNITS) {
    const value = bps / unitBps(unit);
    if (Number.isInteger(value) && value <= 0xffff) return { unit, value };
  }
  for (const unit of UNITS) {
    const value = Math.ceil(bps / unitBps(unit));
    if (value <= 0xffff) return { unit, value };
  }
  return { unit: 25, value: 0xffff };
}
