import { isIP } from 'node:net';
import { canonicalIp } from './ip-address.ts';

/** An IPv4 or IPv6 address in its usual text form (no zone, no prefix). */
export function isIpAddress(value: string): boolean {
  return canonicalIp(value) !== undefined;
}

/**
 * An IP network in CIDR notation, `10.45.0.0/16` or `2001:db8::/48`: a valid address, a prefix within the
 * family's width, and no host bits set (so the text names exactly one network).
 */
export function isCidrNetwork(value: string): boolean {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(value);
  if (!match) return false;
  const [, address = '', prefixText = ''] = match;
  if (!isIpAddress(address)) return false;
  const family = isIP(address);
  const width = family === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > width || (prefixText.length > 1 && prefixText.startsWith('0'))) return false;
  const bits = family === 4 ? ipv4Bits(address) : ipv6Bits(address);
  const hostMask = (1n << BigInt(width - prefix)) - 1n;
  return (bits & hostMask) === 0n;
}

function ipv4Bits(address: string): bigint {
  return address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Bits(address: string): bigint {
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hextets first.
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const n = ipv4Bits(v4[1]);
    text = `${text.slice(0, -v4[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headParts.length - tailParts.length;
  const parts = [...headParts, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailParts];
  return parts.reduce((acc, part) => (acc << 16n) | BigInt(parseInt(part, 16)), 0n);
}
