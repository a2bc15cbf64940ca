import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { OverloadedError } from '../../src/errors.ts';
import { createWriteRetry, WriteAbandoned, type RetriedStore } from '../../src/network/write-retry.ts';
import { ManualTime, oneTurn } from '../helpers/manual-time.ts';

const unavailable = () => new OverloadedError('the database is unavailable (57P01); try again', 1);

/** A retry on manual time, with its counts and log lines kept. */
function setUp(policy?: { retryForMs?: number }) {
  const time = new ManualTime();
  const counts: string[] = [];
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
  );
  const retry = createWriteRetry({
    store: 'ue_contexts',
    counters: {
      retried: (store: RetriedStore) => void counts.push(`retried ${store}`),
      failed: (store: RetriedStore) => void counts.push(`failed ${store}`),
    },
    clock: time,
    timers: time,
    logger,
    ...(policy === undefined ? {} : { policy }),
  });
  return { time, counts, lines, retry };
}

/** A write that fails `failures` times with `error` and then resolves with 'landed'. */
function flaky(failures: number, error: () => Error = unavailable) {
  const write = () => {
    write.attempts += 1;
    return write.attempts <= failures ? Promise.reject(error()) : Promise.resolve('landed');
  };
  write.attempts = 0;
  return write;
}

describe('write retry', () => {
  it('tries a write again after pauses that double while the database is unavailable, counting each', async () => {
    const { time, counts, lines, retry } = setUp();
    const write = flaky(3);
    const result = retry.run(write);
    // 100, 200, 400 ms: nothing before each pause ends.
    await time.advance(99, oneTurn);
    assert.equal(write.attempts, 1);
    await time.advance(1, oneTurn);
    assert.equal(write.attempts, 2);
    await time.advance(199, oneTurn);
    assert.equal(write.attempts, 2);
    await time.advance(1 + 400, oneTurn);
    assert.equal(await result, 'landed');
    assert.equal(write.attempts, 4);
    assert.deepEqual(counts, ['retried ue_contexts', 'retried ue_contexts', 'retried ue_contexts']);
    // One line as the writes began to fail, one as they landed again: not one per attempt.
    assert.deepEqual(
      lines.map((line) => line.msg),
      [
        'database writes fail; each is tried again until it lands or its bound passes',
        'database writes land again',
      ],
    );
  });

  it('gives a write up once its bound has passed, with its last error, counted once', async () => {
    const { time, counts, retry } = setUp({ retryForMs: 10_000 });
    const write = flaky(Number.POSITIVE_INFINITY);
    const result = retry.run(write);
    const settled = result.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await time.advance(60_000, oneTurn);
    const error = await settled;
    assert.ok(error instanceof OverloadedError, String(error));
    // 0, 100, 300, 700, 1,500, 3,100, 6,300 and 11,300 ms (pauses capped at 5 s): the last one past 10 s.
    assert.equal(write.attempts, 8);
    assert.equal(counts.filter((count) => count === 'retried ue_contexts').length, 7);
    assert.deepEqual(
      counts.filter((count) => count.startsWith('failed')),
      ['failed ue_contexts'],
    );
    assert.equal(time.pending, 0);
  });

  it('does not try again a write refused for another reason than the database being unavailable', async () => {
    const { counts, retry } = setUp();
    const write = flaky(1, () => new Error('a constraint the write broke'));
    await assert.rejects(retry.run(write), /a constraint the write broke/);
    assert.equal(write.attempts, 1);
    assert.deepEqual(counts, ['failed ue_contexts']);
  });

  it('abandons a write before a further attempt when asked, and all waiting writes when stopped', async () => {
    const { time, counts, retry } = setUp();
    let abandon = false;
    const first = flaky(Number.POSITIVE_INFINITY);
    const abandoned = assert.rejects(
      retry.run(first, () => abandon),
      WriteAbandoned,
    );
    await time.advance(100, oneTurn);
    assert.equal(first.attempts, 2);
    abandon = true;
    await time.advance(200, oneTurn);
    await abandoned;
    assert.equal(first.attempts, 2);

    const second = flaky(Number.POSITIVE_INFINITY);
    const waiting = assert.rejects(retry.run(second), WriteAbandoned);
    await oneTurn();
    retry.stop();
    await waiting;
    assert.equal(second.attempts, 1);
    assert.equal(time.pending, 0, 'its pause cancelled');
    await assert.rejects(retry.run(flaky(0)), WriteAbandoned, 'nothing runs once stopped');
    assert.equal(
      counts.filter((count) => count.startsWith('failed')).length,
      0,
      'an abandoned write is not a failure',
    );
  });
});
