import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTeidAllocator } from '../../../src/network/working-state/teid-allocator.ts';

describe('TEID allocator', () => {
  it('hands out distinct non-zero TEIDs up to its limit and takes them back', () => {
    const allocator = createTeidAllocator({ limit: 1000 });
    const teids = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const teid = allocator.allocate();
      assert.ok(teid !== undefined && teid >= 1 && teid <= 0xffffffff);
      teids.add(teid);
    }
    assert.equal(teids.size, 1000);
    assert.equal(allocator.allocate(), undefined);
    const first = [...teids][0]!;
    assert.equal(allocator.release(first), true);
    assert.equal(allocator.release(first), false);
    assert.notEqual(allocator.allocate(), undefined);
  });

  it('finds a free TEID even when the random source keeps hitting used ones', () => {
    // A source stuck on one value: the search walks upwards from it (and wraps past 2^32 - 1 to 1).
    const allocator = createTeidAllocator({ random: () => 0xffffffff });
    assert.deepEqual([allocator.allocate(), allocator.allocate(), allocator.allocate()], [0xffffffff, 1, 2]);
  });
});
