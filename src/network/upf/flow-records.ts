/**
 * The forwarder's drained counters (native/upf/flows.c, forwarder.c), decoded. Records are
 * little-endian; a buffer whose length is not a whole number of records is cut at the last whole one
 * (the addon never makes one, but nothing here trusts that).
 */

export type FlowDirection = 'uplink' | 'downlink';
export type FlowAction = 'allow' | 'drop';

/** Packets and bytes of one flow since the previous drain. */
export interface FlowCount {
  sessionId: number;
  sourceIp: string;
  destinationIp: string;
  sourcePort: number;
  destinationPort: number;
  protocol: number;
  direction: FlowDirection;
  action: FlowAction;
  packets: number;
  bytes: number;
}

export interface UsageCount {
  sessionId: number;
  uplinkBytes: number;
  downlinkBytes: number;
}

const FLOW_RECORD = 64;
const USAGE_RECORD = 24;

function ipv4(bytes: Buffer, at: number): string {
  return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
}

/** RFC 5952 text: lower case, the longest run of zero groups (two or more) as `::`. */
export function ipv6Text(bytes: Uint8Array, at = 0): string {
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push(((bytes[at + 2 * i] ?? 0) << 8) | (bytes[at + 2 * i + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

const u64 = (bytes: Buffer, at: number): number => Number(bytes.readBigUInt64LE(at));

export function decodeFlowCounts(bytes: Buffer): FlowCount[] {
  const flows: FlowCount[] = [];
  for (let at = 0; at + FLOW_RECORD <= bytes.length; at += FLOW_RECORD) {
    const family = bytes[at + 4];
    const address = (offset: number): string =>
      family === 4 ? ipv4(bytes, at + offset) : ipv6Text(bytes, at + offset);
    flows.push({
      sessionId: bytes.readUInt32LE(at),
      protocol: bytes[at + 5] ?? 0,
      direction: bytes[at + 6] === 0 ? 'uplink' : 'downlink',
      action: bytes[at + 7] === 0 ? 'allow' : 'drop',
      sourcePort: bytes.readUInt16LE(at + 8),
      destinationPort: bytes.readUInt16LE(at + 10),
      sourceIp: address(12),
      destinationIp: address(28),
      packets: u64(bytes, at + 48),
      bytes: u64(bytes, at + 56),
    });
  }
  return flows;
}

export function decodeUsageCounts(bytes: Buffer): UsageCount[] {
  const usage: UsageCount[] = [];
  for (let at = 0; at + USAGE_RECORD <= bytes.length; at += USAGE_RECORD) {
    usage.push({
      sessionId: bytes.readUInt32LE(at),
      uplinkBytes: u64(bytes, at + 8),
      downlinkBytes: u64(bytes, at + 16),
    });
  }
  return usage;
}
