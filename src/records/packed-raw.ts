/**
 * Moves the raw bytes of a batch's rows into one buffer of their total size, each row's `raw` then a
 * view of its part. `postMessage` clones a view's whole ArrayBuffer: the raw bytes of outbound PDUs are
 * views into Node's 8 KiB Buffer-pool slabs and those of NAS messages views into their NGAP PDU, so a
 * batch of 700 radio events carried some 36 slabs (295 KB) for 63 KB of messages to the writer thread.
 * Packed, it carries one buffer, and the slabs are free as soon as the batch is taken.
 * The rows are the pipeline's own (built in record-inputs.ts), so they are changed in place; packing a
 * packed batch again (a retried batch) copies it once more, to the same result.
 */
export function packRawBytes(batch: ReadonlyMap<unknown, readonly object[]>): void {
  let total = 0;
  for (const rows of batch.values()) {
    for (const row of rows) {
      const raw = (row as { raw?: unknown }).raw;
      if (raw instanceof Uint8Array) total += raw.byteLength;
    }
  }
  if (total === 0) return;
  // Not `allocUnsafe`: below 4 KiB it hands out a part of a pool slab, which the clone would copy whole.
  const packed = Buffer.allocUnsafeSlow(total);
  let offset = 0;
  for (const rows of batch.values()) {
    for (const row of rows) {
      const holder = row as { raw?: unknown };
      const raw = holder.raw;
      if (!(raw instanceof Uint8Array)) continue;
      packed.set(raw, offset);
      holder.raw = packed.subarray(offset, offset + raw.byteLength);
      offset += raw.byteLength;
    }
  }
}
