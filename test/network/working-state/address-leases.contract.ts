import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AddressLeases } from '../../../src/network/ports/address-leases.ts';

/** The `AddressLeases` contract (network.md 6), run against every implementation. */
export function addressLeasesContract(name: string, create: () => Promise<AddressLeases>): void {
  describe(`AddressLeases contract: ${name}`, () => {
    it('IPv4: the lowest free address, never network or broadcast; a released one comes back first', async () => {
      const leases = await create();
      const lease = () => leases.lease('ipv4', '192.168.7.0/29');
      for (const address of ['192.168.7.1', '192.168.7.2', '192.168.7.3'])
        assert.deepEqual(await lease(), { ok: true, address });
      assert.equal(await leases.release('192.168.7.2'), true);
      assert.equal(await leases.release('192.168.7.2'), false, 'a second release');
      assert.deepEqual(await lease(), { ok: true, address: '192.168.7.2' });
      for (const address of ['192.168.7.4', '192.168.7.5', '192.168.7.6'])
        assert.deepEqual(await lease(), { ok: true, address });
      assert.deepEqual(await lease(), { ok: false, error: 'exhausted' }, '.0 and .7 are never leased');
      assert.equal(leases.held, 6);
    });

    it('holds a given address of a pool once; lease then passes over it; never network or broadcast', async () => {
      const leases = await create();
      assert.equal(await leases.hold('ipv4', '10.9.0.0/29', '10.9.0.2'), true);
      assert.equal(await leases.hold('ipv4', '10.9.0.0/29', '10.9.0.2'), false, 'held already');
      assert.deepEqual(await leases.lease('ipv4', '10.9.0.0/29'), { ok: true, address: '10.9.0.1' });
      assert.deepEqual(await leases.lease('ipv4', '10.9.0.0/29'), { ok: true, address: '10.9.0.3' });
      for (const address of ['10.9.0.0', '10.9.0.7', '10.9.1.2', 'not an address', '2001:db8::'])
        assert.equal(await leases.hold('ipv4', '10.9.0.0/29', address), false, address);
      assert.equal(await leases.hold('ipv6', '2001:db8:0:4::/62', '2001:db8:0:6::'), true);
      assert.equal(
        await leases.hold('ipv6', '2001:db8:0:4::/62', '2001:db8:0:5::1'),
        false,
        'not a /64 start',
      );
      assert.deepEqual(await leases.lease('ipv6', '2001:db8:0:4::/62'), {
        ok: true,
        address: '2001:db8:0:4::',
      });
      assert.equal(await leases.release('10.9.0.2'), true);
      assert.equal(leases.held, 4);
    });

    it('overlapping pools never lease one address twice', async () => {
      const leases = await create();
      assert.deepEqual(await leases.lease('ipv4', '10.0.0.0/24'), { ok: true, address: '10.0.0.1' });
      assert.deepEqual(await leases.lease('ipv4', '10.0.0.0/16'), { ok: true, address: '10.0.0.2' });
      await leases.release('10.0.0.1');
      assert.deepEqual(await leases.lease('ipv4', '10.0.0.0/16'), { ok: true, address: '10.0.0.1' });
      assert.deepEqual(await leases.lease('ipv4', '10.0.0.0/24'), { ok: true, address: '10.0.0.3' });
    });

    it('IPv6: the lowest free /64, as its first address; a prefix longer than /64 is no pool', async () => {
      const leases = await create();
      const got = [];
      for (let i = 0; i < 4; i++) got.push(await leases.lease('ipv6', '2001:db8:0:4::/62'));
      assert.deepEqual(
        got.map((g) => (g.ok ? g.address : g.error)),
        ['2001:db8:0:4::', '2001:db8:0:5::', '2001:db8:0:6::', '2001:db8:0:7::'],
      );
      assert.deepEqual(await leases.lease('ipv6', '2001:db8:0:4::/62'), { ok: false, error: 'exhausted' });
      assert.equal(await leases.release('2001:db8:0:5::'), true);
      assert.deepEqual(await leases.lease('ipv6', '2001:db8:0:4::/62'), {
        ok: true,
        address: '2001:db8:0:5::',
      });
      assert.deepEqual(await leases.lease('ipv6', '2001:db8::/96'), { ok: false, error: 'invalid' });
    });

    it('a CIDR that is no pool is invalid, and leases nothing', async () => {
      const leases = await create();
      for (const [family, cidr] of [
        ['ipv4', 'nonsense'],
        ['ipv4', '10.0.0.0/33'],
        ['ipv4', '10.0.0.1/32'],
        ['ipv6', '10.0.0.0/24'],
        ['ipv4', '2001:db8::/64'],
      ] as const)
        assert.deepEqual(await leases.lease(family, cidr), { ok: false, error: 'invalid' }, cidr);
      assert.equal(leases.held, 0);
    });
  });
}
