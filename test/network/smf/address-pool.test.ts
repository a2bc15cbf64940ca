import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAddressPools } from '../../../src/network/working-state/address-pools.ts';

/**
 * IPv6 pools (network.md 6: a profile's `ue-ipv6-pool`, /64 or shorter, each session its own /64; TS
 * 23.501 5.8.2.2.2: a /64 prefix per PDU session): never one /64 twice, freed with the session, and
 * the same rules across overlapping pools and other spellings of one pool.
 */

/** A fixed-seed PRNG (mulberry32), so every run takes the same steps. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The /64 index of a prefix in 2001:db8:0:N::, the only form the pools below hand out. */
const indexOf = (prefix: string): number => {
  const match = /^2001:db8:0:([0-9a-f]+)::$|^2001:db8::$/.exec(prefix);
  assert.ok(match, prefix);
  return match[1] === undefined ? 0 : parseInt(match[1], 16);
};

describe('address pools: IPv6 /64s from ue-ipv6-pool', () => {
  it('a /64 pool holds one session; a released /64 is handed out again', () => {
    const pools = createAddressPools();
    assert.deepEqual(pools.allocate('ipv6', '2001:db8:45:7::/64'), { ok: true, address: '2001:db8:45:7::' });
    assert.deepEqual(pools.allocate('ipv6', '2001:db8:45:7::/64'), { ok: false, error: 'exhausted' });
    assert.equal(pools.inUse('2001:db8:45:7::'), true);
    assert.equal(pools.release('2001:db8:45:7::'), true);
    assert.equal(pools.inUse('2001:db8:45:7::'), false);
    assert.deepEqual(pools.allocate('ipv6', '2001:db8:45:7::/64'), { ok: true, address: '2001:db8:45:7::' });
  });

  it('the lowest free /64 first, also after a release in the middle', () => {
    const pools = createAddressPools();
    const take = () => pools.allocate('ipv6', '2001:db8:45::/48');
    assert.deepEqual(
      [take(), take(), take()].map((got) => got.ok && got.address),
      ['2001:db8:45::', '2001:db8:45:1::', '2001:db8:45:2::'],
    );
    pools.release('2001:db8:45:1::');
    assert.deepEqual(take(), { ok: true, address: '2001:db8:45:1::' });
    assert.deepEqual(take(), { ok: true, address: '2001:db8:45:3::' });
  });

  it('overlapping pools (a /56 inside a /48) and other spellings of one pool never share a /64', () => {
    const pools = createAddressPools();
    assert.deepEqual(pools.allocate('ipv6', '2001:db8:45::/48'), { ok: true, address: '2001:db8:45::' });
    assert.deepEqual(pools.allocate('ipv6', '2001:db8:45::/56'), { ok: true, address: '2001:db8:45:1::' });
    // Upper case and uncompressed: the same network, so the next free /64 of it.
    assert.deepEqual(pools.allocate('ipv6', '2001:DB8:45:0:0:0:0:0/48'), {
      ok: true,
      address: '2001:db8:45:2::',
    });
    pools.release('2001:db8:45::');
    assert.deepEqual(pools.allocate('ipv6', '2001:db8:45::/56'), { ok: true, address: '2001:db8:45::' });
  });

  it('IPv4 and IPv6 allocations are counted apart', () => {
    const pools = createAddressPools();
    assert.equal(pools.allocate('ipv4', '10.45.0.0/16').ok, true);
    assert.equal(pools.allocate('ipv6', '2001:db8:45::/48').ok, true);
    assert.equal(pools.size, 2);
    assert.deepEqual(pools.allocate('ipv6', '10.45.0.0/16'), { ok: false, error: 'invalid' });
    assert.deepEqual(pools.allocate('ipv4', '2001:db8:45::/48'), { ok: false, error: 'invalid' });
  });

  it('random establishments and releases over two overlapping pools: never a /64 twice, always the lowest free', () => {
    const random = prng(0x5e55_1064);
    const pools = createAddressPools();
    // 2001:db8::/60 holds /64s 0..15; 2001:db8:0:8::/61 holds 8..15.
    const cidrs = [
      { cidr: '2001:db8::/60', first: 0, last: 15 },
      { cidr: '2001:db8:0:8::/61', first: 8, last: 15 },
    ];
    const held = new Set<number>();
    for (let step = 0; step < 5_000; step++) {
      if (held.size > 0 && random() < 0.45) {
        const all = [...held];
        const index = all[Math.floor(random() * all.length)] as number;
        const text = index === 0 ? '2001:db8::' : `2001:db8:0:${index.toString(16)}::`;
        assert.equal(pools.release(text), true);
        held.delete(index);
        continue;
      }
      const pool = cidrs[random() < 0.5 ? 0 : 1] as (typeof cidrs)[number];
      let lowest: number | undefined;
      for (let i = pool.first; i <= pool.last && lowest === undefined; i++) if (!held.has(i)) lowest = i;
      const got = pools.allocate('ipv6', pool.cidr);
      if (lowest === undefined) {
        assert.deepEqual(got, { ok: false, error: 'exhausted' }, `step ${step}`);
        continue;
      }
      assert.ok(got.ok, `step ${step}`);
      assert.equal(indexOf(got.address), lowest, `step ${step}`);
      held.add(lowest);
      assert.equal(pools.size, held.size);
    }
  });
});
