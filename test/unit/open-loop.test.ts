import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { arrivalGap, openLoop } from '../../bench/open-loop.ts';

/** A clock that moves only when waited on, `overshoot(i)` ms past the i-th wait's end (a late timer). */
function fakeClock(overshoot: (nth: number) => number = () => 0) {
  let t = 0;
  let waits = 0;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms + overshoot(waits++);
    },
  };
}

describe('open-loop arrivals', () => {
  it('starts every task at its arrival time, none waiting for an earlier one to finish', async () => {
    const clock = fakeClock();
    const starts: number[] = [];
    // Every task waits until all have started: a closed loop (start one when one ends) never finishes.
    let release: () => void = () => undefined;
    const allStarted = new Promise<void>((resolve) => (release = resolve));
    const run = await openLoop(
      ['a', 'b', 'c', 'd'],
      { rate: 100, arrivals: 'even', ...clock },
      async (item) => {
        starts.push(clock.now());
        if (starts.length === 4) release();
        await allStarted;
        return item.toUpperCase();
      },
    );
    assert.deepEqual(starts, [0, 10, 20, 30]);
    assert.deepEqual(run.results, ['A', 'B', 'C', 'D']);
    assert.equal(run.maxInFlight, 4);
    assert.deepEqual(run.lateMs, { median: 0, max: 0 });
  });

  it('keeps the schedule after a late start: the arrivals due meanwhile start at once', async () => {
    // The first wait ends 25 ms late: arrivals at 10, 20 and 30 are then due together at 35.
    const clock = fakeClock((nth) => (nth === 0 ? 25 : 0));
    const starts: number[] = [];
    const run = await openLoop([1, 2, 3, 4, 5], { rate: 100, arrivals: 'even', ...clock }, async () => {
      starts.push(clock.now());
    });
    assert.deepEqual(starts, [0, 35, 35, 35, 40]);
    assert.deepEqual(run.lateMs, { median: 5, max: 25 });
  });

  it('draws Poisson gaps from the exponential distribution of mean 1/rate', () => {
    assert.equal(arrivalGap(200, 'even'), 5);
    assert.equal(
      arrivalGap(200, 'poisson', () => 0),
      0,
    );
    // The draw whose exponential value is the mean: P(gap <= mean) = 1 - 1/e.
    assert.ok(Math.abs(arrivalGap(200, 'poisson', () => 1 - Math.exp(-1)) - 5) < 1e-9);
    assert.ok(Math.abs(arrivalGap(200, 'poisson', () => 1 - Math.exp(-3)) - 15) < 1e-9);
  });

  it("rejects with a task's error once the started tasks end, and starts no more", async () => {
    const clock = fakeClock();
    const started: number[] = [];
    await assert.rejects(
      openLoop([0, 1, 2, 3], { rate: 10, arrivals: 'even', ...clock }, async (i) => {
        started.push(i);
        if (i === 1) throw new Error('refused');
      }),
      /refused/,
    );
    assert.deepEqual(started, [0, 1]);
  });

  it('refuses a rate that is not above 0', async () => {
    await assert.rejects(
      openLoop([1], { rate: 0, arrivals: 'even' }, async () => undefined),
      RangeError,
    );
  });
});
