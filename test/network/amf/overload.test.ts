import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createOverloadWatch, OVERLOAD_CHECK_MS } from '../../../src/network/amf/gmm/overload.ts';
import { ManualTime } from '../../helpers/manual-time.ts';

/**
 * The AMF's overload state for the radios (gmm/overload.ts; TS 38.413 8.7.7, 8.7.8): on at the first
 * refusal at the UE context limit, off once the contexts held are at the low-water mark (90 % of the
 * limit), looked at on the injected timers; between the two it does not flap.
 */

const nothing = (): Promise<void> => Promise.resolve();

function watch(limit: number) {
  const time = new ManualTime();
  const state = { held: limit };
  const told: boolean[] = [];
  const overload = createOverloadWatch({
    limit,
    held: () => state.held,
    timers: time,
    logger: pino({ level: 'silent' }),
  });
  overload.subscribe((on) => told.push(on));
  return { time, state, told, overload };
}

describe('AMF overload watch', () => {
  it('starts at the first refusal, once however many follow', () => {
    const { told, overload } = watch(100);
    assert.equal(overload.overloaded(), false);
    overload.shed();
    overload.shed();
    overload.shed();
    assert.deepEqual(told, [true]);
    assert.equal(overload.overloaded(), true);
    overload.stop();
  });

  it('stops only at the low-water mark: a context freed and taken again changes nothing', async () => {
    const { time, state, told, overload } = watch(100);
    overload.shed();
    // One below the limit, then back at it: still overloaded, nothing more said.
    state.held = 99;
    await time.advance(OVERLOAD_CHECK_MS, nothing);
    state.held = 100;
    overload.shed();
    state.held = 91;
    await time.advance(10 * OVERLOAD_CHECK_MS, nothing);
    assert.deepEqual(told, [true]);
    assert.equal(overload.overloaded(), true);
    // At 90 % of the limit: Overload Stop at the next look, and no more timer.
    state.held = 90;
    await time.advance(OVERLOAD_CHECK_MS, nothing);
    assert.deepEqual(told, [true, false]);
    assert.equal(overload.overloaded(), false);
    assert.equal(time.pending, 0);
    // A new refusal starts it again.
    overload.shed();
    assert.deepEqual(told, [true, false, true]);
    overload.stop();
    assert.equal(time.pending, 0);
  });

  it('a limit of 1 stops once no context is held', async () => {
    const { time, state, told, overload } = watch(1);
    overload.shed();
    await time.advance(OVERLOAD_CHECK_MS, nothing);
    assert.deepEqual(told, [true]);
    state.held = 0;
    await time.advance(OVERLOAD_CHECK_MS, nothing);
    assert.deepEqual(told, [true, false]);
  });
});
