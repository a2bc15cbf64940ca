import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TunnelEndpointIds } from '../../../src/network/ports/tunnel-endpoints.ts';

/** The `TunnelEndpointIds` contract, run against every implementation; `limit` TEIDs at most. */
export function tunnelEndpointIdsContract(
  name: string,
  create: (limit: number) => Promise<TunnelEndpointIds>,
): void {
  describe(`TunnelEndpointIds contract: ${name}`, () => {
    it('never 0 and never one held twice, up to the limit; a released one may come again', async () => {
      const teids = await create(500);
      const held = new Set<number>();
      for (let i = 0; i < 500; i++) {
        const teid = await teids.allocate();
        assert.ok(teid !== undefined && teid > 0 && teid <= 0xffff_ffff, `${teid}`);
        assert.ok(!held.has(teid), `${teid} held twice`);
        held.add(teid);
      }
      assert.equal(await teids.allocate(), undefined, 'beyond the limit');
      assert.equal(teids.held, 500);
      const [first] = held;
      assert.equal(await teids.release(first!), true);
      assert.equal(await teids.release(first!), false, 'a second release');
      assert.notEqual(await teids.allocate(), undefined);
      assert.equal(teids.held, 500);
    });
  });
}
