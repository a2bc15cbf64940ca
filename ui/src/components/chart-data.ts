/** Usage totals of one group (a day or a subscriber), as the usage API answers them. */
export interface UsageTotals {
  uplink_bytes: number;
  downlink_bytes: number;
  total_bytes: number;
}

/** One bar of a chart: the group's key and its figures. */
export interface UsagePoint {
  key: string;
  uplink: number;
  downlink: number;
  total: number;
}

/**
 * The chart rows of `GET /subscriber-usage`: the service answers an array of single-key objects
 * (`[{"2026-11-22": {uplink_bytes, ...}}]`), ordered by key; one row each, in that order.
 */
export function usagePoints(groups: readonly Record<string, UsageTotals>[]): UsagePoint[] {
  return groups.flatMap((group) =>
    Object.entries(group).map(([key, totals]) => ({
      key,
      uplink: totals.uplink_bytes,
      downlink: totals.downlink_bytes,
      total: totals.total_bytes,
    })),
  );
}

export interface FlowGroupPoint {
  key: string;
  flows: number;
  packets: number;
  bytes: number;
}

/** The chart rows of grouped flow reports (`group_by=day|subscriber`): per group, flows, packets, bytes. */
export function flowGroupPoints(
  groups: readonly Record<string, readonly { packets: number; bytes: number }[]>[],
): FlowGroupPoint[] {
  return groups.flatMap((group) =>
    Object.entries(group).map(([key, reports]) => ({
      key,
      flows: reports.length,
      packets: reports.reduce((sum, report) => sum + report.packets, 0),
      bytes: reports.reduce((sum, report) => sum + report.bytes, 0),
    })),
  );
}

/** IANA protocol numbers seen on a mobile network, by name; others by number. */
const PROTOCOLS: Record<number, string> = {
  1: 'ICMP',
  6: 'TCP',
  17: 'UDP',
  47: 'GRE',
  50: 'ESP',
  58: 'ICMPv6',
  132: 'SCTP',
};
export function protocolName(protocol: number): string {
  return PROTOCOLS[protocol] ?? String(protocol);
}

/** Bytes in the largest unit that keeps the number at least 1 (1,000-based, as network rates are). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0)} ${units[unit] ?? 'B'}`;
}
