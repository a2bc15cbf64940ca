import { isIPv4, isIPv6 } from 'node:net';
import type { TransportLayerAddress } from './generated/types.ts';

/** An IPv4 or IPv6 address as Transport Layer Address (TS 38.413 9.3.2.4, TS 38.414 5.1). */
export function transportLayerAddress(address: string): TransportLayerAddress {
  if (isIPv4(address)) return { bytes: Uint8Array.from(address.split('.').map(Number)), length: 32 };
  if (isIPv6(address)) {
    const [head = '', tail] = address.split('::');
    const h = head === '' ? [] : head.split(':');
    const t = tail === undefined || tail === '' ? [] : tail.split(':');
    const groups = [...h, ...Array<string>(tail === undefined ? 0 : 8 - h.length - t.length).fill('0'), ...t];
    return {
      bytes: Uint8Array.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff])),
      length: 128,
    };
  }
  throw new RangeError(`not an IP address: ${address}`);
}

/**
 * The IP address a Transport Layer Address carries: TS 38.414 5.1, an IPv4 (32 bits), IPv6 (128) or
 * both (160) address, the IPv4 one used then; undefined for any other length.
 */
export function addressOfTransportLayerAddress(tla: {
  bytes: Uint8Array;
  length: number;
}): string | undefined {
  if (tla.length === 32 || tla.length === 160) return Array.from(tla.bytes.subarray(0, 4)).join('.');
  if (tla.length === 128) {
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2)
      groups.push((((tla.bytes[i] ?? 0) << 8) | (tla.bytes[i + 1] ?? 0)).toString(16));
    return groups.join(':');
  }
  return undefined;
}
