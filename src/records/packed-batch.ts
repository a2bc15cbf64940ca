import type { Batch } from './batching-writer.ts';

/**
 * A batch of the records writer in columns, for the trip to the records writer thread. Cloning a batch
 * of row objects for `postMessage` writes every row's keys again, and the raw bytes of a row are
 * usually a view of an 8 KiB pool slab (Buffer.allocUnsafe), which the clone copies whole. In columns,
 * the keys go once per kind, numbers and bytes travel in buffers that are transferred rather than
 * copied, and only the bytes of each value are taken. `unpackBatch` gives back rows equal to the ones
 * packed: the same keys in the same order, numbers, strings and bytes (as Buffers) unchanged.
 */
export type PackedBatch = PackedRows[];

export interface PackedRows {
  kind: string;
  count: number;
  columns: PackedColumn[];
}

export type PackedColumn =
  /** Every value a number (a float64 holds any JavaScript number exactly). */
  | { name: string; type: 'numbers'; values: Float64Array }
  /** Every value bytes: value i is `bytes[ends[i - 1] ?? 0 .. ends[i]]`. */
  | { name: string; type: 'bytes'; bytes: Uint8Array; ends: Uint32Array }
  /** Anything else (strings), as it is. */
  | { name: string; type: 'values'; values: unknown[] };

function packColumn(rows: readonly Record<string, unknown>[], name: string): PackedColumn {
  let numbers = true;
  let bytes = true;
  let length = 0;
  for (const row of rows) {
    const value = row[name];
    if (typeof value !== 'number') numbers = false;
    if (value instanceof Uint8Array) length += value.byteLength;
    else bytes = false;
  }
  if (numbers) {
    const values = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) values[i] = rows[i]![name] as number;
    return { name, type: 'numbers', values };
  }
  if (bytes) {
    const packed = new Uint8Array(length);
    const ends = new Uint32Array(rows.length);
    let end = 0;
    for (let i = 0; i < rows.length; i++) {
      const value = rows[i]![name] as Uint8Array;
      packed.set(value, end);
      end += value.byteLength;
      ends[i] = end;
    }
    return { name, type: 'bytes', bytes: packed, ends };
  }
  return { name, type: 'values', values: rows.map((row) => row[name]) };
}

/** The batch in columns, and the buffers to transfer with it (they are the batch's own). */
export function packBatch<Rows extends object>(
  batch: Batch<Rows>,
): { packed: PackedBatch; transfer: ArrayBuffer[] } {
  const packed: PackedBatch = [];
  const transfer: ArrayBuffer[] = [];
  for (const [kind, list] of batch) {
    const rows = list as unknown as Record<string, unknown>[];
    const first = rows[0];
    if (first === undefined) continue;
    // Rows of one kind are built by one function (record-inputs.ts), so they share their keys.
    const columns = Object.keys(first).map((name) => packColumn(rows, name));
    for (const column of columns) {
      if (column.type === 'numbers') transfer.push(column.values.buffer as ArrayBuffer);
      else if (column.type === 'bytes')
        transfer.push(column.bytes.buffer as ArrayBuffer, column.ends.buffer as ArrayBuffer);
    }
    packed.push({ kind: String(kind), count: rows.length, columns });
  }
  return { packed, transfer };
}

/** The rows of a packed batch, by kind, in their order. */
export function unpackBatch<Rows extends object>(packed: PackedBatch): Batch<Rows> {
  const batch: Batch<Rows> = new Map();
  for (const { kind, count, columns } of packed) {
    const rows: Record<string, unknown>[] = Array.from({ length: count }, () => ({}));
    for (const column of columns) {
      const { name } = column;
      if (column.type === 'bytes') {
        const { bytes, ends } = column;
        let start = 0;
        for (let i = 0; i < count; i++) {
          const end = ends[i]!;
          rows[i]![name] = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
          start = end;
        }
      } else {
        const { values } = column;
        for (let i = 0; i < count; i++) rows[i]![name] = values[i];
      }
    }
    batch.set(kind as keyof Rows, rows as unknown as Rows[keyof Rows][]);
  }
  return batch;
}
