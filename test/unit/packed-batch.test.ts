import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { Batch } from '../../src/records/batching-writer.ts';
import type { RecordRows } from '../../src/records/ingestion.ts';
import { flowReportRow, radioEventRow, subscriberLogRow } from '../../src/records/record-inputs.ts';
import { packBatch, unpackBatch, type PackedBatch } from '../../src/records/packed-batch.ts';
import { flowReport, radioEvent, subscriberLog } from '../helpers/records.ts';

/** Bytes in a view of a larger pooled buffer, as encoders hand them out. */
function pooled(hex: string): Buffer {
  const slab = Buffer.alloc(8192, 0xee);
  const bytes = Buffer.from(hex, 'hex');
  bytes.copy(slab, 100);
  return slab.subarray(100, 100 + bytes.length);
}

/** What the writer thread receives: the packed batch through a real port, its buffers transferred. */
function throughPort(batch: Batch<RecordRows>): { received: PackedBatch; transferred: ArrayBuffer[] } {
  const { packed, transfer } = packBatch(batch);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(packed, transfer);
  const message = receiveMessageOnPort(port2);
  port1.close();
  assert.ok(message !== undefined);
  return { received: message.message as PackedBatch, transferred: transfer };
}

const now = 1_764_000_000_000;

describe('packed batches for the records writer thread', () => {
  it('gives back every row of every kind, in order, with the same keys and values', () => {
    const batch: Batch<RecordRows> = new Map();
    batch.set('radio_events', [
      radioEventRow(radioEvent({ raw: pooled('00150035'), details: { radio: 'gnb-1', nas: 'é ✓' } }), now),
      radioEventRow(radioEvent({ raw: new Uint8Array(0), direction: 'outbound', timestamp: 7 }), now),
      radioEventRow(radioEvent({ raw: pooled('0004400300') }), now + 1),
    ]);
    batch.set('subscriber_logs', [subscriberLogRow(subscriberLog({ raw: pooled('7e005c') }), now)]);
    batch.set('flow_reports', [flowReportRow(flowReport({ packets: 2 ** 53 - 1, sourceIp: '::1' }))]);
    const { received } = throughPort(batch);
    const rows = unpackBatch<RecordRows>(received);
    assert.deepEqual([...rows.keys()], ['radio_events', 'subscriber_logs', 'flow_reports']);
    for (const [kind, expected] of batch) {
      const got = rows.get(kind) as unknown as Record<string, unknown>[];
      assert.equal(got.length, expected.length);
      expected.forEach((row, i) => {
        assert.deepEqual(Object.keys(got[i]!), Object.keys(row));
        for (const [key, value] of Object.entries(row)) {
          if (value instanceof Uint8Array) {
            assert.ok(Buffer.isBuffer(got[i]![key]), `${kind}.${key} is a Buffer`);
            assert.equal(got[i]![key].toString('hex'), Buffer.from(value).toString('hex'));
          } else assert.equal(got[i]![key], value, `${kind}[${i}].${key}`);
        }
      });
    }
  });

  it('carries only the bytes of each value, not the pooled buffer around it, and transfers them', () => {
    const row = radioEventRow(radioEvent({ raw: pooled('00150035') }), now);
    const batch: Batch<RecordRows> = new Map([['radio_events', [row]]]);
    const { received, transferred } = throughPort(batch);
    const raw = received[0]!.columns.find((column) => column.name === 'raw');
    assert.ok(raw?.type === 'bytes');
    assert.equal(raw.bytes.buffer.byteLength, 4);
    // Transferred buffers are detached on the sending side.
    assert.ok(transferred.length > 0);
    for (const buffer of transferred) assert.equal(buffer.byteLength, 0);
    // The batch itself is left as it was (the writer retries a failed batch).
    assert.equal(row.raw.toString('hex'), '00150035');
  });

  it('keeps a column of mixed values as values', () => {
    const rows = [
      { a: 1, b: 'x' },
      { a: 'two', b: 'y' },
    ] as unknown as RecordRows['radio_events'][];
    const batch: Batch<RecordRows> = new Map([['radio_events', rows]]);
    const { received } = throughPort(batch);
    assert.deepEqual(
      received[0]!.columns.map((column) => column.type),
      ['values', 'values'],
    );
    assert.deepEqual(unpackBatch<RecordRows>(received).get('radio_events'), rows);
  });
});
