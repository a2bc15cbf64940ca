/** Tells the queue that a request was not done now and is to be handled again, ahead of newer ones. */
export const AGAIN = Symbol('again');

/** What became of one request of a group: its result, its own error, or `AGAIN`. */
export type TurnOutcome<Result> = { value: Result } | { error: unknown } | typeof AGAIN;

/** Handles a group (the requests of a turn, in the order asked for): an outcome for each, in that order. */
type GroupHandler<Request, Result> = (group: readonly Request[]) => Promise<readonly TurnOutcome<Result>[]>;

interface Waiting<Request, Result> {
  request: Request;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * The one per-turn batching mechanism of the storage: the requests asked for in one turn of the event
 * loop (and, while `groupsAtOnce` groups are handled, until one is done) form a group, handed to `handle`
 * on the next turn (setImmediate); each request settles with its own outcome. When `handle` rejects,
 * every request of its group rejects with that error. Requests handed back `AGAIN` form the next group,
 * ahead of those asked for meanwhile, `againAfterMs` later. With one group at a time groups are handled
 * in the order asked for; with more, a later group may end before an earlier one.
 * Used by the turn transaction (src/storage/turn-transaction.ts: the writes of a turn in one transaction)
 * and the turn batch (src/storage/network-ports/turn-batch.ts: the reads of a turn in one statement).
 */
export function createTurnQueue<Request, Result>(
  handle: GroupHandler<Request, Result>,
  options: { groupsAtOnce?: number; againAfterMs?: number } = {},
): (request: Request) => Promise<Result> {
  const { groupsAtOnce = Number.POSITIVE_INFINITY, againAfterMs = 1 } = options;
  let waiting: Waiting<Request, Result>[] = [];
  let scheduled = false;
  /** Groups being handled: at `groupsAtOnce` the next waits for one of them. */
  let handling = 0;

  function schedule(delayMs: number): void {
    if (scheduled || handling >= groupsAtOnce) return;
    scheduled = true;
    // flush() settles every request itself and never rejects.
    if (delayMs === 0) setImmediate(() => void flush());
    else setTimeout(() => void flush(), delayMs);
  }

  async function flush(): Promise<void> {
    scheduled = false;
    handling += 1;
    const group = waiting;
    waiting = [];
    let outcomes: readonly TurnOutcome<Result>[];
    try {
      outcomes = await handle(group.map(({ request }) => request));
    } catch (error) {
      handling -= 1;
      for (const { reject } of group) reject(error);
      if (waiting.length > 0) schedule(0);
      return;
    }
    handling -= 1;
    const again: Waiting<Request, Result>[] = [];
    group.forEach((entry, index) => {
      const outcome = outcomes[index]!;
      if (outcome === AGAIN) again.push(entry);
      else if ('error' in outcome) entry.reject(outcome.error);
      else entry.resolve(outcome.value);
    });
    if (again.length > 0) {
      waiting = again.concat(waiting);
      return schedule(againAfterMs);
    }
    if (waiting.length > 0) schedule(0);
  }

  return (request) =>
    new Promise<Result>((resolve, reject) => {
      waiting.push({ request, resolve, reject });
      schedule(0);
    });
}
