import type { Timers } from '../../clock.ts';

/** A NAS retransmission timer (T3550, T3560, T3570, T3522, T3513) that can be stopped. */
export interface RetransmissionTimer {
  stop(): void;
}

/**
 * Starts a NAS timer that, on each expiry, retransmits (`retransmit`) and starts again, and on expiry
 * number `retransmissions + 1` calls `expired` instead: TS 24.501 5.4.1.3.7 b), 5.4.2.7 b), 5.4.3.7 b),
 * 5.5.1.2.8 b), 5.5.2.3.5 b) ("on the fifth expiry of timer T35xx, the network shall abort the
 * procedure").
 */
export function startRetransmissionTimer(
  timers: Timers,
  options: { ms: number; retransmissions: number },
  retransmit: () => void,
  expired: () => void,
): RetransmissionTimer {
  let expiries = 0;
  let cancel: (() => void) | undefined;
  const arm = (): void => {
    cancel = timers.after(options.ms, () => {
      expiries += 1;
      if (expiries > options.retransmissions) {
        cancel = undefined;
        expired();
        return;
      }
      arm();
      retransmit();
    });
  };
  arm();
  return {
    stop() {
      cancel?.();
      cancel = undefined;
    },
  };
}
