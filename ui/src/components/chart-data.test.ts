import { describe, expect, it } from 'vitest';
import { flowGroupPoints, formatBytes, protocolName, usagePoints, type UsageTotals } from './chart-data.ts';

describe('chart data', () => {
  it('turns the usage answer (single-key objects) into one row per group, in order', () => {
    const answer: Record<string, UsageTotals>[] = [
      { '2026-11-21': { uplink_bytes: 10, downlink_bytes: 30, total_bytes: 40 } },
      { '2026-11-22': { uplink_bytes: 5, downlink_bytes: 0, total_bytes: 5 } },
    ];
    expect(usagePoints(answer)).toEqual([
      { key: '2026-11-21', uplink: 10, downlink: 30, total: 40 },
      { key: '2026-11-22', uplink: 5, downlink: 0, total: 5 },
    ]);
    expect(usagePoints([])).toEqual([]);
  });

  it('sums grouped flow reports per group', () => {
    const answer: Record<string, { packets: number; bytes: number }[]>[] = [
      {
        '001010000000001': [
          { packets: 10, bytes: 1500 },
          { packets: 2, bytes: 120 },
        ],
      },
      { '001010000000002': [] },
    ];
    expect(flowGroupPoints(answer)).toEqual([
      { key: '001010000000001', flows: 2, packets: 12, bytes: 1620 },
      { key: '001010000000002', flows: 0, packets: 0, bytes: 0 },
    ]);
  });

  it('names common protocols and keeps others as numbers', () => {
    expect(protocolName(6)).toBe('TCP');
    expect(protocolName(17)).toBe('UDP');
    expect(protocolName(253)).toBe('253');
  });

  it('writes bytes in 1,000-based units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1500)).toBe('1.50 kB');
    expect(formatBytes(25_300_000)).toBe('25.3 MB');
    expect(formatBytes(512_000_000_000)).toBe('512 GB');
  });
});
