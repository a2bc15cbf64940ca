import { BlockList, isIPv4 } from 'node:net';
import { canonicalIp } from '../../../validation/ip-address.ts';
import { isCidrNetwork, isIpAddress } from '../../../validation/ip-network.ts';

/** Entries of one N2 allowlist at most (the config's and the API's each). */
export const MAX_N2_ALLOWED_PEERS = 256;

/** One entry's canonical text (`10.1.0.0/16`, `2001:db8::/32`, `192.0.2.7`), or undefined when it is neither. */
function canonicalEntry(entry: string): string | undefined {
  if (isIpAddress(entry)) return canonicalIp(entry);
  if (!isCidrNetwork(entry)) return undefined;
  const slash = entry.lastIndexOf('/');
  return `${canonicalIp(entry.slice(0, slash)) ?? ''}${entry.slice(slash)}`;
}

/**
 * Why `entries` is not a valid N2 allowlist (IP addresses or CIDR networks without host bits, IPv4 or
 * IPv6, at most 256, none twice in any spelling), or undefined when it is one.
 */
export function allowlistError(entries: readonly string[]): string | undefined {
  if (entries.length > MAX_N2_ALLOWED_PEERS) return `at most ${MAX_N2_ALLOWED_PEERS} entries`;
  const seen = new Set<string>();
  for (const entry of entries) {
    const canonical = canonicalEntry(entry);
    const shown = JSON.stringify(entry.slice(0, 64));
    if (canonical === undefined)
      return `${shown} is neither an IP address nor a network in CIDR notation without host bits (10.1.0.0/16, 2001:db8::/32)`;
    if (seen.has(canonical)) return `${shown} is listed twice`;
    seen.add(canonical);
  }
  return undefined;
}

/** An address as the allowlist compares it: no IPv6 zone, an IPv4-mapped IPv6 address as IPv4. */
function comparable(address: string): string {
  const bare = address.split('%')[0] ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  return mapped?.[1] ?? bare;
}

export interface PeerAllowlist {
  /** No entries: every peer is admitted. */
  readonly empty: boolean;
  /** Whether every address an association's peer gave is in the list (always, when it is empty). */
  admits(addresses: readonly string[]): boolean;
}

/** The matcher of a valid list (`allowlistError` says undefined); throws on an invalid one. */
export function peerAllowlist(entries: readonly string[]): PeerAllowlist {
  const error = allowlistError(entries);
  if (error !== undefined) throw new RangeError(`invalid N2 allowlist: ${error}`);
  const list = new BlockList();
  for (const entry of entries) {
    const slash = entry.lastIndexOf('/');
    const address = slash < 0 ? entry : entry.slice(0, slash);
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (slash < 0) list.addAddress(address, type);
    else list.addSubnet(address, Number(entry.slice(slash + 1)), type);
  }
  const admitsOne = (address: string): boolean => {
    const ip = comparable(address);
    const canonical = canonicalIp(ip);
    return canonical !== undefined && list.check(canonical, isIPv4(canonical) ? 'ipv4' : 'ipv6');
  };
  return {
    empty: entries.length === 0,
    admits: (addresses) => entries.length === 0 || (addresses.length > 0 && addresses.every(admitsOne)),
  };
}
