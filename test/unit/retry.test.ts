import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRetry, RetryAbandoned, type RetryHooks } from '../../src/retry.ts';
import { ManualTime, oneTurn } from '../helpers/manual-time.ts';

/** Hooks that write down what they are told, in order. */
function recording() {
  const told: string[] = [];
  const hooks: RetryHooks = {
    retrying: (error, attempt) => void told.push(`retrying ${attempt}: ${(error as Error).message}`),
    gaveUp: (error, attempts) => void told.push(`gave up after ${attempts}: ${(error as Error).message}`),
    landed: () => void told.push('landed'),
  };
  return { told, hooks };
}

/** An operation that fails `failures` times and then resolves with 'done'. */
function flaky(failures: number) {
  const attempt = () => {
    attempt.attempts += 1;
    return attempt.attempts <= failures
      ? Promise.reject(new Error(`failure ${attempt.attempts}`))
      : Promise.resolve('done');
  };
  attempt.attempts = 0;
  return attempt;
}

describe('retry', () => {
  it('tries every failure again by default, after pauses from the policy, and tells each step', async () => {
    const time = new ManualTime();
    const retry = createRetry({ clock: time, timers: time, policy: { firstPauseMs: 10, maxPauseMs: 25 } });
    const { told, hooks } = recording();
    const attempt = flaky(3);
    const result = retry.run(attempt, hooks);
    // Pauses of 10, 20, then 25 ms (the cap, not 40).
    await time.advance(29, oneTurn);
    assert.equal(attempt.attempts, 2);
    await time.advance(1, oneTurn);
    assert.equal(attempt.attempts, 3);
    await time.advance(24, oneTurn);
    assert.equal(attempt.attempts, 3);
    await time.advance(1, oneTurn);
    assert.equal(await result, 'done');
    assert.deepEqual(told, [
      'retrying 1: failure 1',
      'retrying 2: failure 2',
      'retrying 3: failure 3',
      'landed',
    ]);
  });

  it('gives up with the last error at the first failure that is not transient, or once the bound passed', async () => {
    const time = new ManualTime();
    const retry = createRetry({ clock: time, timers: time, policy: { retryForMs: 1_000 } });
    const refused = recording();
    await assert.rejects(
      retry.run(flaky(5), {
        ...refused.hooks,
        transient: (error) => (error as Error).message !== 'failure 1',
      }),
      /failure 1/,
    );
    assert.deepEqual(refused.told, ['gave up after 1: failure 1']);

    const bounded = recording();
    const settled = retry
      .run(flaky(Number.POSITIVE_INFINITY), bounded.hooks)
      .catch((error: unknown) => error);
    await time.advance(10_000, oneTurn);
    // Attempts at 0, 100, 300, 700 and 1,500 ms: the last one is past the bound.
    assert.match(String(await settled), /failure 5/);
    assert.equal(bounded.told.at(-1), 'gave up after 5: failure 5');
    assert.equal(bounded.told.filter((line) => line.startsWith('retrying')).length, 4);
    assert.equal(time.pending, 0);
  });

  it('rejects with its abandonment error when abandoned or stopped, telling no hook', async () => {
    const time = new ManualTime();
    class Replaced extends RetryAbandoned {}
    const retry = createRetry({ clock: time, timers: time, abandonment: () => new Replaced() });
    const { told, hooks } = recording();
    let abandon = false;
    const abandoned = assert.rejects(
      retry.run(flaky(Number.POSITIVE_INFINITY), hooks, () => abandon),
      Replaced,
    );
    await oneTurn();
    abandon = true;
    await time.advance(100, oneTurn);
    await abandoned;

    const waiting = assert.rejects(retry.run(flaky(Number.POSITIVE_INFINITY), hooks), Replaced);
    await oneTurn();
    retry.stop();
    await waiting;
    assert.equal(time.pending, 0, 'its pause cancelled');
    assert.deepEqual(told, ['retrying 1: failure 1', 'retrying 1: failure 1']);
    const plain = createRetry({ clock: time, timers: time });
    plain.stop();
    await assert.rejects(
      plain.run(flaky(0), hooks),
      (error) => error instanceof RetryAbandoned && !(error instanceof Replaced),
      'nothing runs once stopped; RetryAbandoned unless told otherwise',
    );
  });
});
