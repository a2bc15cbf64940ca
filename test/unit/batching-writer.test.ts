import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createBatchingWriter, type BatchingWriterOptions } from '../../src/records/batching-writer.ts';
import { ManualTime } from '../helpers/manual-time.ts';

/** A full garbage collection, without starting the test process with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

interface Rows {
  a: string;
  b: string;
}

describe('batching writer', () => {
  let batches: { kind: keyof Rows; rows: string[] }[][];
  let failures: number;

  beforeEach(() => {
    batches = [];
    failures = 0;
  });

  /** A writer whose store notes what each transaction received, failing the first `failures` ones. */
  function writer(options: Partial<BatchingWriterOptions>) {
    return createBatchingWriter<Rows>({
      logger: pino({ level: 'silent' }),
      options,
      store: async (batch) => {
        await Promise.resolve();
        if (failures > 0) {
          failures -= 1;
          throw new Error('disk I/O error');
        }
        batches.push([...batch].map(([kind, rows]) => ({ kind, rows: [...rows] })));
      },
    });
  }

  it('writes a full batch at once, in order, grouped by kind inside one transaction', async () => {
    const w = writer({ capacity: 100, batchSize: 4, maxDelayMs: 60_000 });
    assert.equal(w.offer('a', ['a1', 'a2']), true);
    assert.equal(w.offer('b', ['b1']), true);
    assert.equal(w.offer('a', ['a3']), true);
    await w.flush();
    assert.deepEqual(batches, [
      [
        { kind: 'a', rows: ['a1', 'a2', 'a3'] },
        { kind: 'b', rows: ['b1'] },
      ],
    ]);
  });

  it('writes a lone record after the delay, without waiting for a full batch', async () => {
    const w = writer({ capacity: 100, batchSize: 100, maxDelayMs: 1 });
    w.offer('a', ['a1']);
    assert.equal(w.depth, 1);
    while (w.depth > 0) await new Promise((resolve) => setTimeout(resolve, 2));
    await w.flush();
    assert.deepEqual(batches, [[{ kind: 'a', rows: ['a1'] }]]);
  });

  it('groups the records that arrive while a batch is written into the next transaction, busyDelayMs later', async () => {
    const written: string[][] = [];
    let release: () => void = () => {};
    const w = createBatchingWriter<Rows>({
      logger: pino({ level: 'silent' }),
      options: { capacity: 100, batchSize: 100, maxDelayMs: 1, busyDelayMs: 60_000 },
      store: async (batch) => {
        if (written.length === 0) await new Promise<void>((resolve) => (release = resolve));
        written.push([...batch.values()].flat());
      },
    });
    w.offer('a', ['a1']);
    while (written.length === 0 && w.depth > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    // The first batch is being written: these two wait beside it.
    w.offer('a', ['a2']);
    w.offer('b', ['b1']);
    release();
    while (written.length === 0) await new Promise((resolve) => setImmediate(resolve));
    for (let turn = 0; turn < 10; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(written, [['a1']], 'the records that came meanwhile were not written at once');
    w.offer('a', ['a3']);
    await w.flush();
    assert.deepEqual(written, [['a1'], ['a2', 'a3', 'b1']]);
  });

  it('writes the records that arrived while a batch was written after busyDelayMs, without a flush', async () => {
    const written: string[][] = [];
    let release: () => void = () => {};
    const w = createBatchingWriter<Rows>({
      logger: pino({ level: 'silent' }),
      options: { capacity: 100, batchSize: 100, maxDelayMs: 1, busyDelayMs: 1 },
      store: async (batch) => {
        if (written.length === 0) await new Promise<void>((resolve) => (release = resolve));
        written.push([...batch.values()].flat());
      },
    });
    w.offer('a', ['a1']);
    while (w.depth > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    w.offer('a', ['a2']);
    release();
    while (written.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    assert.deepEqual(written, [['a1'], ['a2']]);
  });

  it('splits a large offer across transactions of at most batchSize records', async () => {
    const w = writer({ capacity: 100, batchSize: 3, maxDelayMs: 60_000 });
    w.offer('a', ['1', '2', '3', '4', '5', '6', '7']);
    await w.flush();
    assert.deepEqual(
      batches.map((batch) => batch.flatMap((part) => part.rows)),
      [['1', '2', '3'], ['4', '5', '6'], ['7']],
    );
  });

  it('refuses records when the queue is full, queueing none of them, and takes them once there is room', async () => {
    const w = writer({ capacity: 4, batchSize: 2, maxDelayMs: 60_000 });
    // Two full batches are taken at once: one being written, the next handed over beside it.
    assert.equal(w.offer('a', ['1', '2']), true);
    assert.equal(w.offer('a', ['3', '4']), true);
    assert.equal(w.depth, 0);
    assert.equal(w.offer('a', ['5']), true);
    assert.equal(w.offer('a', ['6', '7', '8']), true);
    assert.equal(w.depth, 4);
    assert.deepEqual([...w.depthByKind()], [['a', 4]]);
    assert.equal(w.offer('a', ['9']), false);
    assert.equal(w.offer('b', ['x', 'y']), false);
    assert.equal(w.depth, 4);
    await w.whenWritable(2);
    assert.equal(w.offer('b', ['x', 'y']), true);
    await w.flush();
    assert.deepEqual(
      batches.flat().flatMap((part) => part.rows),
      ['1', '2', '3', '4', '5', '6', '7', '8', 'x', 'y'],
    );
    assert.ok(batches.every((batch) => batch.flatMap((part) => part.rows).length <= 2));
  });

  it('rejects an offer larger than the whole queue', () => {
    const w = writer({ capacity: 4, batchSize: 2, maxDelayMs: 1 });
    assert.throws(() => w.offer('a', ['1', '2', '3', '4', '5']), RangeError);
    assert.throws(() => w.whenWritable(5), RangeError);
  });

  it('writes every accepted record on close, then refuses new ones', async () => {
    const w = writer({ capacity: 1000, batchSize: 500, maxDelayMs: 60_000 });
    for (let i = 0; i < 10; i += 1) w.offer('a', [`r${i}`]);
    await w.close();
    assert.equal(w.depth, 0);
    assert.equal(batches.flat().flatMap((part) => part.rows).length, 10);
    assert.throws(() => w.offer('a', ['late']), /records pipeline is closed/);
  });

  it('keeps no reference to records once they are written', async () => {
    const stored: object[] = [];
    const w = createBatchingWriter<{ a: object }>({
      logger: pino({ level: 'silent' }),
      options: { capacity: 100, batchSize: 10, maxDelayMs: 60_000 },
      store: async (batch) => {
        await Promise.resolve();
        stored.push(...(batch.get('a') ?? []));
      },
    });
    const offered = Array.from({ length: 3 }, (_, offer) => {
      const rows = Array.from({ length: 10 }, (_, n) => ({ n: offer * 10 + n }));
      assert.equal(w.offer('a', rows), true);
      return new WeakRef(rows);
    });
    await w.flush();
    assert.equal(stored.length, 30);
    collectGarbage();
    assert.deepEqual(
      offered.map((rows) => rows.deref()),
      [undefined, undefined, undefined],
      'the offered arrays were collected',
    );
  });

  it('retries a failed transaction and keeps the records', async () => {
    const w = writer({ capacity: 10, batchSize: 10, maxDelayMs: 60_000 });
    failures = 2;
    w.offer('a', ['1', '2']);
    await w.flush();
    assert.deepEqual(
      batches.flat().flatMap((part) => part.rows),
      ['1', '2'],
    );
  });

  it('keeps trying a batch through a minute of failures (a database failover), counting each retry', async () => {
    const time = new ManualTime();
    let retries = 0;
    const lost: [keyof Rows, number][] = [];
    let down = true;
    const w = createBatchingWriter<Rows>({
      logger: pino({ level: 'silent' }),
      options: { capacity: 10, batchSize: 10, maxDelayMs: 1 },
      clock: time,
      timers: time,
      onRetry: () => void (retries += 1),
      onLost: (kind, records) => void lost.push([kind, records]),
      store: async (batch) => {
        await Promise.resolve();
        if (down) throw new Error('connection refused');
        batches.push([...batch].map(([kind, rows]) => ({ kind, rows: [...rows] })));
      },
    });
    w.offer('a', ['1', '2']);
    w.offer('b', ['3']);
    const flushed = w.flush();
    const turns = () => new Promise<void>((resolve) => setImmediate(resolve));
    await turns();
    // 50 s down: the old bound (five attempts, 1.5 s of pauses) gave these records up long before.
    await time.advance(50_000, turns);
    assert.equal(batches.length, 0);
    assert.ok(retries >= 10, `${retries} retries`);
    down = false;
    await time.advance(5_000, turns);
    await flushed;
    assert.deepEqual(
      batches.flat().flatMap((part) => part.rows),
      ['1', '2', '3'],
    );
    assert.deepEqual(lost, []);
  });

  it('gives a batch up after a minute of failures, counting its records by kind, and goes on', async () => {
    const time = new ManualTime();
    const lost: [keyof Rows, number][] = [];
    let down = true;
    const w = createBatchingWriter<Rows>({
      logger: pino({ level: 'silent' }),
      options: { capacity: 10, batchSize: 10, maxDelayMs: 1 },
      clock: time,
      timers: time,
      onLost: (kind, records) => void lost.push([kind, records]),
      store: async (batch) => {
        await Promise.resolve();
        if (down) throw new Error('could not extend file: No space left on device');
        batches.push([...batch].map(([kind, rows]) => ({ kind, rows: [...rows] })));
      },
    });
    w.offer('a', ['1', '2']);
    w.offer('b', ['3']);
    const flushed = w.flush();
    const turns = () => new Promise<void>((resolve) => setImmediate(resolve));
    await time.advance(70_000, turns);
    await flushed;
    assert.deepEqual(lost, [
      ['a', 2],
      ['b', 1],
    ]);
    down = false;
    w.offer('a', ['4']);
    await w.flush();
    assert.deepEqual(
      batches.flat().flatMap((part) => part.rows),
      ['4'],
    );
  });

  it('tells onWritten the kinds of each batch once it is stored', async () => {
    const written: (keyof Rows)[][] = [];
    let stored = 0;
    const w = createBatchingWriter<Rows>({
      logger: pino({ level: 'silent' }),
      options: { batchSize: 2, capacity: 10, maxDelayMs: 1, busyDelayMs: 1 },
      store: async () => {
        await Promise.resolve();
        assert.equal(written.length, stored, 'told only after the store resolved');
        stored += 1;
      },
      onWritten: (kinds) => written.push([...kinds]),
    });
    w.offer('a', ['1']);
    w.offer('b', ['2']);
    await w.flush();
    w.offer('b', ['3']);
    await w.flush();
    assert.deepEqual(written, [['a', 'b'], ['b']]);
  });
});
