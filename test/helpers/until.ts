import assert from 'node:assert/strict';

/**
 * How long a test waits for work it does not run itself (another thread, process, socket or the
 * database) before calling it a defect. Counted in wall time, not in polls: a loaded 2-core CI machine
 * can keep that work off the CPU for seconds while the test's own polls keep turning.
 */
export const WAIT_MS = 20_000;

/**
 * Polls `check` until it gives a value other than `undefined` or `false`, and returns that value; ends
 * as soon as it does. Fails after `ms` (`WAIT_MS`) naming `what`, with `detail()` (the state to
 * diagnose). `everyMs` 0 polls every turn of the event loop (for work on real sockets only, without timers).
 */
export async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  detail: () => string = () => '',
  { everyMs = 10, ms = WAIT_MS }: { everyMs?: number; ms?: number } = {},
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      assert.fail(`${what}: not within ${ms / 1000} s${detail() ? `: ${detail()}` : ''}`);
    await new Promise<void>((resolve) =>
      everyMs === 0 ? setImmediate(resolve) : setTimeout(resolve, everyMs),
    );
  }
}
