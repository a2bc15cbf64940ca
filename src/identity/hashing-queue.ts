import { availableParallelism } from 'node:os';
import { OverloadedError, RateLimitedError } from '../errors.ts';

/** How much memory-hard hashing runs at once and how much may wait for it. */
interface HashingQueueLimits {
  /** Hashes running at once. */
  concurrency: number;
  /** Hashes of one key (a client address, a token id) running at once. */
  concurrencyPerKey: number;
  /** Hashes waiting for a free worker, all keys together; one more is refused with OverloadedError (503). */
  maxWaiting: number;
  /** Hashes of one key waiting; one more is refused with RateLimitedError (429). */
  maxWaitingPerKey: number;
}

/**
 * scrypt runs on libuv's thread pool (UV_THREADPOOL_SIZE, 4 unless set), which file reads and DNS share:
 * more hashes at once than cores or pool threads only make each one slower. One key may use every worker
 * but one, so another client's attempt never waits for a busy one's to finish. The waiting list holds a
 * few rounds of work (at about 0.2 s a hash, 16 rounds are some 3 s), and one key a quarter of it.
 */
export function defaultHashingLimits(): HashingQueueLimits {
  const poolThreads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  const concurrency = Math.max(1, Math.min(availableParallelism(), poolThreads));
  const maxWaiting = 16 * concurrency;
  return {
    concurrency,
    concurrencyPerKey: Math.max(1, concurrency - 1),
    maxWaiting,
    maxWaitingPerKey: maxWaiting / 4,
  };
}

/** When a waiting list is full, the caller is asked to come back after this many seconds. */
const RETRY_AFTER_SECONDS = 1;

interface Key {
  running: number;
  line: (() => void)[];
}

/** Waiting work of one priority: its keys in the order their lines are served next, and how much waits. */
interface Lane {
  keys: Map<string, Key>;
  waiting: number;
}

/**
 * The one gate in front of every password and token-secret hash. At most `concurrency` hashes run, at most
 * `concurrencyPerKey` of one key; the others wait, served round-robin across keys (first come, first
 * served within a key), so that a client with many attempts waiting delays another client's one attempt
 * by about one hash, not by all of its own. Work marked `trusted` (a login from an address that logged in
 * before) waits in a lane of its own, served first and bounded apart: a flood from addresses that never
 * logged in cannot fill it. Beyond the bounds work is refused at once, before any hashing: a flood of
 * attempts costs a map lookup each instead of 32 MiB and a core for a fifth of a second.
 */
export function createHashingQueue(limits: HashingQueueLimits) {
  // A key goes to the back of its lane after each turn and leaves it when nothing of it runs or waits.
  const trusted: Lane = { keys: new Map(), waiting: 0 };
  const others: Lane = { keys: new Map(), waiting: 0 };
  let running = 0;

  function keyOf(lane: Lane, name: string): Key {
    let key = lane.keys.get(name);
    if (!key) {
      key = { running: 0, line: [] };
      lane.keys.set(name, key);
    }
    return key;
  }

  /** Starts the next turn of `lane` whose key may run one more; false when there is none. */
  function serve(lane: Lane): boolean {
    for (const [name, key] of lane.keys) {
      const turn = key.running < limits.concurrencyPerKey ? key.line.shift() : undefined;
      if (!turn) continue;
      lane.keys.delete(name);
      lane.keys.set(name, key);
      lane.waiting -= 1;
      running += 1;
      key.running += 1;
      turn();
      return true;
    }
    return false;
  }

  /** Starts waiting work while workers are free, trusted work first. */
  function dispatch(): void {
    while (running < limits.concurrency) if (!serve(trusted) && !serve(others)) return;
  }

  function release(lane: Lane, name: string, key: Key): void {
    running -= 1;
    key.running -= 1;
    if (key.running === 0 && key.line.length === 0) lane.keys.delete(name);
    dispatch();
  }

  async function turnFor(lane: Lane, name: string): Promise<Key> {
    const key = keyOf(lane, name);
    if (running < limits.concurrency && key.running < limits.concurrencyPerKey && key.line.length === 0) {
      running += 1;
      key.running += 1;
      return key;
    }
    const refusal =
      lane.waiting >= limits.maxWaiting
        ? new OverloadedError(
            'the service is busy checking credentials; try again later',
            RETRY_AFTER_SECONDS,
          )
        : key.line.length >= limits.maxWaitingPerKey
          ? new RateLimitedError(
              'too many attempts at once from this client; try again later',
              RETRY_AFTER_SECONDS,
            )
          : undefined;
    if (refusal) {
      if (key.running === 0 && key.line.length === 0) lane.keys.delete(name);
      throw refusal;
    }
    lane.waiting += 1;
    await new Promise<void>((resolve) => key.line.push(resolve));
    return key;
  }

  return {
    /** Runs `work` when a worker is free; refuses it (without running it) when a bound is reached. */
    async run<T>(name: string, work: () => Promise<T>, options: { trusted?: boolean } = {}): Promise<T> {
      const lane = options.trusted ? trusted : others;
      const key = await turnFor(lane, name);
      try {
        return await work();
      } finally {
        release(lane, name, key);
      }
    },

    /** What is running and waiting now. */
    load: (): { running: number; waiting: number } => ({
      running,
      waiting: trusted.waiting + others.waiting,
    }),
  };
}

export type HashingQueue = ReturnType<typeof createHashingQueue>;
