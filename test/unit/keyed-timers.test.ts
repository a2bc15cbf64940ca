import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createKeyedTimers } from '../../src/jobs/keyed-timers.ts';
import { manualClock } from '../helpers/test-app.ts';

describe('keyed timers', () => {
  it('fires a timer once, when it is due, and forgets it', () => {
    const clock = manualClock(0);
    const timers = createKeyedTimers(clock);
    const fired: string[] = [];
    timers.schedule('a', 1000, () => fired.push('a'));
    clock.advance(999);
    assert.deepEqual(fired, []);
    clock.advance(1);
    assert.deepEqual(fired, ['a']);
    assert.equal(timers.size, 0);
    clock.advance(5000);
    assert.deepEqual(fired, ['a']);
  });

  it('keeps one timer per key: scheduling again replaces the pending one', () => {
    const clock = manualClock(0);
    const timers = createKeyedTimers(clock);
    const fired: number[] = [];
    timers.schedule('a', 1000, () => fired.push(1));
    timers.schedule('a', 2000, () => fired.push(2));
    assert.equal(timers.size, 1);
    assert.equal(clock.pendingTimers(), 1);
    clock.advance(2000);
    assert.deepEqual(fired, [2]);
  });

  it('cancels one key or all of them, leaving no timer behind', () => {
    const clock = manualClock(0);
    const timers = createKeyedTimers(clock);
    const fired: string[] = [];
    for (const key of ['a', 'b', 'c']) timers.schedule(key, 100, () => fired.push(key));
    timers.cancel('b');
    timers.cancel('unknown');
    assert.deepEqual([timers.has('a'), timers.has('b'), timers.size], [true, false, 2]);
    timers.cancelAll();
    assert.deepEqual([timers.size, clock.pendingTimers()], [0, 0]);
    clock.advance(1000);
    assert.deepEqual(fired, []);
  });

  it('lets a firing callback schedule its own key again', () => {
    const clock = manualClock(0);
    const timers = createKeyedTimers(clock);
    let runs = 0;
    const tick = (): void => {
      runs += 1;
      if (runs < 3) timers.schedule('a', 100, tick);
    };
    timers.schedule('a', 100, tick);
    clock.advance(1000);
    assert.deepEqual([runs, timers.size], [3, 0]);
  });
});
