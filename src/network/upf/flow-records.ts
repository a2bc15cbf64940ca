/**
 * The forwarder's ended flows and drained usage (native/upf/flows.c, forwarder.c), decoded. Records are
 * little-endian; a buffer whose length is not a whole number of records is cut at the last whole one
 * (the addon never makes one, but nothing here trusts that).
 */

import type { FlowReportInput } from '../../records/record-inputs.ts';
import { ipv6Text } from '../common/ipv6-text.ts';

interface UsageCount {
  sessionId: number;
  uplinkBytes: number;
  downlinkBytes: number;
}

/** One ended flow (native/upf/flows.h, UPF_FLOW_RECORD). */
export const FLOW_RECORD = 80;
const USAGE_RECORD = 24;

function ipv4(bytes: Buffer, at: number): string {
  return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
}

/** Exact below 2^53, which counters of packets and bytes do not reach; no BigInt per value. */
const u64 = (bytes: Buffer, at: number): number =>
  bytes.readUInt32LE(at) + bytes.readUInt32LE(at + 4) * 0x1_0000_0000;

/**
 * Ended flows as flow reports (network.md 7), one object each: the subscriber is the session's
 * (`imsiOf`); a flow of a session it does not know, or of protocol 0 (an IPv6 hop-by-hop header
 * first, which a report cannot carry), is left out.
 */
export function decodeFlowReports(
  bytes: Buffer,
  imsiOf: (sessionId: number) => string | undefined,
): FlowReportInput[] {
  const reports: FlowReportInput[] = [];
  for (let at = 0; at + FLOW_RECORD <= bytes.length; at += FLOW_RECORD) {
    const subscriberId = imsiOf(bytes.readUInt32LE(at));
    const protocol = bytes[at + 5] ?? 0;
    if (subscriberId === undefined || protocol === 0) continue;
    const v4 = bytes[at + 4] === 4;
    reports.push({
      subscriberId,
      sourceIp: v4 ? ipv4(bytes, at + 12) : ipv6Text(bytes, at + 12),
      destinationIp: v4 ? ipv4(bytes, at + 28) : ipv6Text(bytes, at + 28),
      sourcePort: bytes.readUInt16LE(at + 8),
      destinationPort: bytes.readUInt16LE(at + 10),
      protocol,
      packets: u64(bytes, at + 48),
      bytes: u64(bytes, at + 56),
      startTime: bytes.readDoubleLE(at + 64),
      endTime: bytes.readDoubleLE(at + 72),
      direction: bytes[at + 6] === 0 ? 'uplink' : 'downlink',
      action: bytes[at + 7] === 0 ? 'allow' : 'drop',
    });
  }
  return reports;
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
