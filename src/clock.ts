/** Time source, injected so tests can move time instead of waiting. Milliseconds since the Unix epoch. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * One-shot timers, injected beside the clock so that tests fire them by moving a manual clock instead of
 * waiting. `after` returns a function that cancels the timer (harmless once it has fired).
 */
export interface Timers {
  after(ms: number, callback: () => void): () => void;
}

export const systemTimers: Timers = {
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    // The server keeps the process alive; a pending timer alone must not.
    timer.unref();
    return () => clearTimeout(timer);
  },
};
