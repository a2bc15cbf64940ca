import { availableParallelism } from 'node:os';
import { OverloadedError, RateLimitedError } from '../errors.ts';

/** How much memory-hard hashing runs at once and how much may wait for it. */
export interface HashingQueueLimits {
  /** Hashes running at once. */
  concurrency: number;
  /** Hashes waiting for a free worker, all keys together; one more is refused with OverloadedError (503). */
  maxWaiting: number;
  /** Hashes of one key (a client address, a token id) waiting; one more is refused with RateLimitedError (429). */
  maxWaitingPerKey: number;
}

/**
 * scrypt runs on libuv's thread pool (UV_THREADPOOL_SIZE, 4 unless set), which file reads and DNS share:
 * more hashes at once than cores or pool threads only make each one slower. The waiting list holds a few
 * rounds of work (at about 0.2 s a hash, 16 rounds are some 3 s), and one key a quarter of it.
 */
export function defaultHashingLimits(): HashingQueueLimits {
  const poolThreads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  const concurrency = Math.max(1, Math.min(availableParallelism(), poolThreads));
  const maxWaiting = 16 * concurrency;
  return { concurrency, maxWaiting, maxWaitingPerKey: maxWaiting / 4 };
}

/** When a waiting list is full, the caller is asked to come back after this many seconds. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The one gate in front of every password and token-secret hash. At most `concurrency` hashes run; the
 * others wait, served round-robin across keys (first come, first served within a key), so that a client
 * with many attempts waiting delays another client's one attempt by about one hash, not by all of its
 * own. Beyond the bounds work is refused at once, before any hashing: a flood of attempts costs a map
 * lookup each instead of 32 MiB and a core for a fifth of a second.
 */
export function createHashingQueue(limits: HashingQueueLimits) {
  // Keys in the order they are served next; each with its own line. A key leaves the map when its line is
  // empty, and goes to the back after each turn.
  const lines = new Map<string, (() => void)[]>();
  let waiting = 0;
  let running = 0;

  function nextTurn(): (() => void) | undefined {
    const first = lines.entries().next();
    if (first.done) return undefined;
    const [key, line] = first.value;
    const turn = line.shift();
    lines.delete(key);
    if (line.length > 0) lines.set(key, line);
    waiting -= 1;
    return turn;
  }

  function release(): void {
    const turn = nextTurn();
    // A released worker passes straight to the next in line, so `running` counts workers, not turns.
    if (turn) turn();
    else running -= 1;
  }

  async function turnFor(key: string): Promise<void> {
    if (running < limits.concurrency) {
      running += 1;
      return;
    }
    if (waiting >= limits.maxWaiting) {
      throw new OverloadedError(
        'the service is busy checking credentials; try again later',
        RETRY_AFTER_SECONDS,
      );
    }
    const line = lines.get(key) ?? [];
    if (line.length >= limits.maxWaitingPerKey) {
      throw new RateLimitedError(
        'too many attempts at once from this client; try again later',
        RETRY_AFTER_SECONDS,
      );
    }
    if (line.length === 0) lines.set(key, line);
    waiting += 1;
    await new Promise<void>((resolve) => line.push(resolve));
  }

  return {
    /** Runs `work` when a worker is free; refuses it (without running it) when a bound is reached. */
    async run<T>(key: string, work: () => Promise<T>): Promise<T> {
      await turnFor(key);
      try {
        return await work();
      } finally {
        release();
      }
    },

    /** What is running and waiting now. */
    load: (): { running: number; waiting: number } => ({ running, waiting }),
  };
}

export type HashingQueue = ReturnType<typeof createHashingQueue>;
