import type { Logger } from 'pino';
import type { Timers } from '../../../clock.ts';

/**
 * Whether this AMF is overloaded, for the radios (TS 38.413 8.7.7 Overload Start, 8.7.8 Overload Stop;
 * TS 23.501 5.19.5.2): the AMF sheds load when it holds its limit of UE contexts and refuses a
 * Registration Request with #22 (registration.ts, `congestionReject`). The first such refusal makes it
 * overloaded; it stays so until the contexts held fall to the low-water mark, looked at every
 * `checkMs` on the injected timers. The gap between the limit and the mark is the hysteresis: one
 * context freed and taken again does not flap the radios between Start and Stop.
 */

/** Overload Stop once the contexts held are at or below this share of the limit. */
const OVERLOAD_LOW_WATER = 0.9;

/** How often an overloaded AMF looks whether it is below the low-water mark again. */
export const OVERLOAD_CHECK_MS = 1_000;

export interface OverloadWatch {
  /** A Registration Request was refused for want of a UE context (#22). */
  shed(): void;
  overloaded: () => boolean;
  /** `listener(true)` when the AMF becomes overloaded, `listener(false)` when it no longer is. */
  subscribe: (listener: (overloaded: boolean) => void) => () => void;
  /** Stops the check (the process stops). */
  stop(): void;
}

export function createOverloadWatch(deps: {
  /** The UE context limit (`maxUeContexts`). */
  limit: number;
  /** UE contexts held now. */
  held: () => number;
  timers: Timers;
  logger: Logger;
  checkMs?: number;
}): OverloadWatch {
  const lowWater = Math.floor(deps.limit * OVERLOAD_LOW_WATER);
  const checkMs = deps.checkMs ?? OVERLOAD_CHECK_MS;
  const listeners = new Set<(overloaded: boolean) => void>();
  let cancelCheck: (() => void) | undefined;

  const tell = (overloaded: boolean): void => {
    for (const listener of [...listeners]) listener(overloaded);
  };

  function check(): void {
    cancelCheck = undefined;
    const held = deps.held();
    if (held > lowWater) {
      cancelCheck = deps.timers.after(checkMs, check);
      return;
    }
    deps.logger.info(
      { held, lowWater },
      'AMF: UE contexts at the low-water mark again; the radios are told the overload is over',
    );
    tell(false);
  }

  return {
    shed(): void {
      if (cancelCheck !== undefined) return;
      deps.logger.warn(
        { limit: deps.limit, lowWater },
        'AMF: overloaded (UE context limit); the radios are told to reduce signalling (Overload Start)',
      );
      cancelCheck = deps.timers.after(checkMs, check);
      tell(true);
    },
    overloaded: () => cancelCheck !== undefined,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop(): void {
      cancelCheck?.();
      cancelCheck = undefined;
    },
  };
}
