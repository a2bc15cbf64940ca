import { isIPv4, isIPv6 } from 'node:net';
import type { PoolFamily } from '../ports/address-leases.ts';
import { ipv6Text } from '../common/ipv6-text.ts';

/**
 * UE addresses from the profiles' pools (network.md 6), in this process's memory: IPv4 from
 * `ue-ip-pool`, the lowest free address, never the network or broadcast address; IPv6 from
 * `ue-ipv6-pool`, one /64 per session (TS 23.501 5.8.2.2.2), the lowest free one. An address is in use
 * from `allocate` to `release`, whatever pool it came from, so two profiles with overlapping pools never
 * share one. `createMemoryAddressLeases` serves the `AddressLeases` port from it.
 */

/** A pool a CIDR names, as `parsePool` reads it; the memory pools and the database store both walk it. */
export interface Pool {
  family: PoolFamily;
  base: bigint;
  /** First and last usable index (address offset for IPv4, /64 index for IPv6). */
  first: bigint;
  last: bigint;
  /** Every index below it is in use. */
  lowestFree: bigint;
}

function ipv4Bits(address: string): bigint {
  return address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Bits(address: string): bigint {
  const [head = '', tail] = address.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? 0 : 8 - headParts.length - tailParts.length;
  return [...headParts, ...Array<string>(fill).fill('0'), ...tailParts].reduce(
    (acc, part) => (acc << 16n) | BigInt(parseInt(part, 16)),
    0n,
  );
}

function ipv4Text(bits: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => Number((bits >> shift) & 0xffn)).join('.');
}

function ipv6FromBits(bits: bigint): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = Number((bits >> BigInt(8 * (15 - i))) & 0xffn);
  return ipv6Text(bytes);
}

/** The pool a CIDR names; undefined when it is not one (or an IPv6 prefix longer than /64). */
export function parsePool(cidr: string, family: PoolFamily): Pool | undefined {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(cidr.trim());
  if (match === null) return undefined;
  const address = match[1] ?? '';
  const length = BigInt(match[2] ?? '');
  if (family === 'ipv4') {
    if (!isIPv4(address) || length > 32n) return undefined;
    const size = 1n << (32n - length);
    const base = ipv4Bits(address) & ~(size - 1n) & 0xffff_ffffn;
    // Network (offset 0) and broadcast (size - 1) are never handed out.
    return { family, base, first: 1n, last: size - 2n, lowestFree: 1n };
  }
  if (!isIPv6(address) || address.includes('.') || length > 64n) return undefined;
  const count = 1n << (64n - length);
  const base = (ipv6Bits(address) >> 64n) & ~(count - 1n);
  return { family, base, first: 0n, last: count - 1n, lowestFree: 0n };
}

/** The address of `pool` at `index` (IPv6: the /64's first address). */
export function textOf(pool: Pool, index: bigint): string {
  return pool.family === 'ipv4' ? ipv4Text(pool.base + index) : ipv6FromBits((pool.base + index) << 64n);
}

/** The index of `address` in `pool` when it is one the pool hands out, written as `textOf` writes it. */
export function indexOf(pool: Pool, address: string): bigint | undefined {
  if (pool.family === 'ipv4' ? !isIPv4(address) : !isIPv6(address)) return undefined;
  const bits = pool.family === 'ipv4' ? ipv4Bits(address) : ipv6Bits(address) >> 64n;
  const index = bits - pool.base;
  if (index < pool.first || index > pool.last || textOf(pool, index) !== address) return undefined;
  return index;
}

interface AddressPools {
  /**
   * The lowest free address of `cidr` (IPv4) or its lowest free /64 (IPv6, as its first address, e.g.
   * `2001:db8:0:1::`); `invalid` when the CIDR is not a usable pool, `exhausted` when all are in use.
   */
  allocate(
    family: PoolFamily,
    cidr: string,
  ): { ok: true; address: string } | { ok: false; error: 'invalid' | 'exhausted' };
  /**
   * Marks `address` of `cidr` in use, as `allocate` would have given it (a session another SMF set up,
   * docs/amf-set.md); false when it is in use, not in the pool, or the pool's network or broadcast address.
   */
  hold(family: PoolFamily, cidr: string, address: string): boolean;
  /** Frees what `allocate` or `hold` gave; false when it was not in use. */
  release(address: string): boolean;
  inUse(address: string): boolean;
  readonly size: number;
}

export function createAddressPools(): AddressPools {
  const pools = new Map<string, Pool>();
  /** Address text -> the pool that handed it out. */
  const used = new Map<string, Pool>();

  const poolOf = (family: PoolFamily, cidr: string): Pool | undefined => {
    const key = `${family} ${cidr}`;
    let pool = pools.get(key);
    if (pool === undefined) {
      pool = parsePool(cidr, family);
      if (pool !== undefined) pools.set(key, pool);
    }
    return pool;
  };

  return {
    allocate(family, cidr) {
      const pool = poolOf(family, cidr);
      if (pool === undefined || pool.first > pool.last) return { ok: false, error: 'invalid' };
      // Bounded: every index passed over is in use, and at most `used.size` are.
      for (let index = pool.lowestFree; index <= pool.last; index++) {
        const address = textOf(pool, index);
        if (used.has(address)) continue;
        used.set(address, pool);
        pool.lowestFree = index + 1n;
        return { ok: true, address };
      }
      pool.lowestFree = pool.last + 1n;
      return { ok: false, error: 'exhausted' };
    },
    hold(family, cidr, address) {
      const pool = poolOf(family, cidr);
      // The address as `allocate` writes it (IPv6: the /64's first address), or it is not one of the pool's.
      if (pool === undefined || indexOf(pool, address) === undefined || used.has(address)) return false;
      used.set(address, pool);
      return true;
    },
    release(address) {
      const pool = used.get(address);
      if (pool === undefined) return false;
      used.delete(address);
      const bits = pool.family === 'ipv4' ? ipv4Bits(address) : ipv6Bits(address) >> 64n;
      // Every pool with this address inside may hand it out again: their cursors move back.
      for (const other of pools.values()) {
        if (other.family !== pool.family) continue;
        const at = bits - other.base;
        if (at >= other.first && at <= other.last && at < other.lowestFree) other.lowestFree = at;
      }
      return true;
    },
    inUse: (address) => used.has(address),
    get size() {
      return used.size;
    },
  };
}
