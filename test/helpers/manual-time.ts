import type { Clock, Timers } from '../../src/clock.ts';

/** A clock and timers that move only when the test says (`advance`). */
export class ManualTime implements Clock, Timers {
  #now = 1_000_000;
  #timers: { at: number; seq: number; callback: () => void; cancelled: boolean }[] = [];
  #seq = 0;

  now(): number {
    return this.#now;
  }

  after(ms: number, callback: () => void): () => void {
    const timer = { at: this.#now + ms, seq: this.#seq++, callback, cancelled: false };
    this.#timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  get pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward, firing due timers in order; `between` runs after each (to let packets flow). */
  async advance(ms: number, between: () => Promise<void>): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      // Let packets and microtasks run first: they may start timers due before `end`.
      await between();
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#timers[0];
      if (next === undefined || next.at > end) break;
      this.#timers.shift();
      this.#now = next.at;
      next.callback();
    }
    this.#now = end;
    await between();
  }
}

/** One turn of the event loop: what arrived over real sockets is handled before the next timer fires. */
export const oneTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The AMF set's timing for a service on manual time: a test that moves the clock by minutes in one call
 * outruns the database's answers (PostgreSQL's take real I/O between timers), which a member reads as
 * the database lost for a whole lease: it would stop serving (docs/amf-set.md, "Losing the database").
 * Heartbeats a day apart keep the membership out of tests that are not about it.
 */
export const MANUAL_TIME_AMF_SET = { heartbeatMs: 86_400_000, leaseMs: 3 * 86_400_000 };
