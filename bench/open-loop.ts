// Open-loop load for benches: each item's task starts at its arrival time, whether or not earlier tasks have
// finished (a closed loop, ue-fleet's withConcurrency, starts one only when one ends, so its rate follows the
// system's speed). At a fixed rate the work per second is the same however fast or slow the system runs,
// which lets two configurations be compared at the same load.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleepMs } from 'node:timers/promises';

/** Evenly spaced arrivals, or a Poisson process's (independent arrivals, exponential gaps). */
export type Arrivals = 'poisson' | 'even';

export const isArrivals = (value: string): value is Arrivals => value === 'poisson' || value === 'even';

/** The gap in ms before the next arrival at `rate` a second. */
export function arrivalGap(rate: number, arrivals: Arrivals, random: () => number = Math.random): number {
  const mean = 1000 / rate;
  // The exponential distribution by inverse transform (u in [0, 1): 1 / (1 - u) is finite, its log >= +0).
  return arrivals === 'even' ? mean : Math.log(1 / (1 - random())) * mean;
}

export interface OpenLoopOptions {
  /** Arrivals a second. */
  rate: number;
  arrivals: Arrivals;
  random?: () => number;
  /** The clock in ms and a wait on it (the tests' fake ones); default performance.now and a timer. */
  now?: () => number;
  sleep?: (ms: number) => Promise<unknown>;
}

export interface OpenLoopResult<R> {
  /** In the order of the items. */
  results: R[];
  /** How late the starts were behind their arrival times, in ms (the driver's own delays). */
  lateMs: { median: number; max: number };
  /** The most tasks in flight at once. */
  maxInFlight: number;
}

/** Starts `task` for each of `items` at its arrival time; resolves when every task has. */
export async function openLoop<T, R>(
  items: readonly T[],
  options: OpenLoopOptions,
  task: (item: T, index: number) => Promise<R>,
): Promise<OpenLoopResult<R>> {
  if (!(options.rate > 0)) throw new RangeError(`rate ${options.rate}: more than 0 a second`);
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? sleepMs;
  const results = new Array<R>(items.length);
  const running: Promise<void>[] = [];
  const late: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  // A task's failure is kept, not rethrown from its own promise: nothing awaits that one until every
  // task has started, and a rejection nobody handles yet ends the process.
  let failure: { error: unknown } | undefined;
  // Arrival times are absolute: a start delayed by the timer or the scheduler does not delay the next
  // ones, which start at once until the schedule is caught up.
  let due = now();
  for (let index = 0; index < items.length; index++) {
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    if (failure !== undefined) break;
    late.push(Math.max(0, now() - due));
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    running.push(
      task(items[index]!, index).then(
        (result) => {
          results[index] = result;
          inFlight -= 1;
        },
        (error: unknown) => {
          inFlight -= 1;
          failure ??= { error };
        },
      ),
    );
    due += arrivalGap(options.rate, options.arrivals, options.random);
  }
  await Promise.all(running);
  if (failure !== undefined) throw failure.error;
  late.sort((a, b) => a - b);
  return {
    results,
    lateMs: { median: late[Math.floor(late.length / 2)] ?? 0, max: late.at(-1) ?? 0 },
    maxInFlight,
  };
}
