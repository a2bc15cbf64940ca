import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { packRawBytes } from '../../src/records/packed-raw.ts';

/** A view of `length` bytes of `fill` in the middle of a larger buffer, as a pool slab's part is. */
function viewInSlab(fill: number, length: number): Buffer {
  const slab = Buffer.alloc(8192, 0xee);
  return slab.subarray(100, 100 + length).fill(fill);
}

describe('packRawBytes (the writer thread batch hand-over)', () => {
  it("puts every row's raw bytes in one buffer of their total size, each row keeping its bytes", () => {
    const events = [{ raw: viewInSlab(1, 3), details: '{}' }, { raw: viewInSlab(2, 5) }];
    const logs = [{ raw: Buffer.alloc(0) }, { raw: new Uint8Array([7, 8]) }];
    const usage = [{ imsi: '001010000000001', day: 0 }];
    const batch = new Map<string, object[]>([
      ['radio_events', events],
      ['radio_logs', logs],
      ['subscriber_usage', usage],
    ]);
    packRawBytes(batch);
    const raws = [...events, ...logs].map((row) => row.raw);
    assert.deepEqual(
      raws.map((raw) => [...raw]),
      [[1, 1, 1], [2, 2, 2, 2, 2], [], [7, 8]],
    );
    const buffers = new Set(raws.filter((raw) => raw.byteLength > 0).map((raw) => raw.buffer));
    assert.equal(buffers.size, 1);
    assert.equal([...buffers][0]?.byteLength, 10);
    assert.ok(raws.every((raw) => Buffer.isBuffer(raw)));
    assert.deepEqual(usage, [{ imsi: '001010000000001', day: 0 }]);
    assert.equal(events[0]?.details, '{}');
  });

  it('makes the message to the writer thread carry the bytes once, not the slabs around them', () => {
    const rows = Array.from({ length: 20 }, (_, n) => ({ raw: viewInSlab(n, 60) }));
    const batch = new Map([['radio_events', rows]]);
    packRawBytes(batch);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(batch);
    const received = receiveMessageOnPort(port2)?.message as Map<string, { raw: Uint8Array }[]>;
    port1.close();
    const cloned = received.get('radio_events') ?? [];
    assert.equal(cloned.length, 20);
    assert.deepEqual([...(cloned[19]?.raw ?? [])], Array<number>(60).fill(19));
    const buffers = new Set(cloned.map((row) => row.raw.buffer));
    assert.equal(buffers.size, 1);
    assert.equal([...buffers][0]?.byteLength, 20 * 60);
  });

  it('leaves a batch without raw bytes as it was', () => {
    const rows = [{ imsi: '001010000000001', uplink_bytes: 1 }];
    packRawBytes(new Map([['subscriber_usage', rows]]));
    assert.deepEqual(rows, [{ imsi: '001010000000001', uplink_bytes: 1 }]);
  });
});
