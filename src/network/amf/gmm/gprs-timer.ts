import type { GprsTimer } from '../../nas/index.ts';

// TS 24.008 10.5.7.4a (GPRS timer 3) units in seconds, by unit value; 7 deactivates the timer.
const TIMER3_UNITS: readonly [unit: number, seconds: number][] = [
  [6, 1_152_000],
  [2, 36_000],
  [1, 3_600],
  [0, 600],
  [5, 60],
  [4, 30],
  [3, 2],
];

// TS 24.008 10.5.7.3 (GPRS timer, GPRS timer 2) units.
const TIMER_UNITS: readonly [unit: number, seconds: number][] = [
  [2, 360],
  [1, 60],
  [0, 2],
];

const MAX_VALUE = 31;

/**
 * The GPRS timer value closest to `ms` without exceeding it (at least one unit of the finest step), so
 * that the UE never waits longer than the AMF's own timers assume: 54 min in GPRS timer 3 is 50 min
 * (5 x 10 min) since 54 is no whole number of 30 s or 1 min steps under 32.
 */
export function gprsTimerOf(ms: number, kind: 'timer' | 'timer3'): GprsTimer {
  const seconds = Math.floor(ms / 1000);
  let best: GprsTimer | undefined;
  let bestSeconds = -1;
  for (const [unit, step] of kind === 'timer3' ? TIMER3_UNITS : TIMER_UNITS) {
    const value = Math.min(MAX_VALUE, Math.floor(seconds / step));
    if (value * step > bestSeconds) {
      best = { unit, value };
      bestSeconds = value * step;
    }
  }
  return bestSeconds > 0 && best !== undefined ? best : { unit: kind === 'timer3' ? 3 : 0, value: 1 };
}
