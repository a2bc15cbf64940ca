/**
 * Requests asked for in one turn of the event loop, answered together: `answer` gets them in the order
 * asked for and gives one result each (an Error given is that request's own rejection). When it throws,
 * every request of its batch rejects with that error. On PostgreSQL one statement for the batch costs one
 * round trip where one each cost as many: registrations ask for their subscription data and SQNs by the
 * hundred a second, many in one turn.
 */
export function createTurnBatch<Request, Result>(
  answer: (batch: readonly Request[]) => Promise<readonly (Result | Error)[]>,
): (request: Request) => Promise<Result> {
  let waiting: { request: Request; resolve: (result: Result) => void; reject: (error: Error) => void }[] = [];

  async function flush(): Promise<void> {
    const batch = waiting;
    waiting = [];
    try {
      const results = await answer(batch.map(({ request }) => request));
      batch.forEach(({ resolve, reject }, index) => {
        const result = results[index] as Result | Error;
        if (result instanceof Error) reject(result);
        else resolve(result);
      });
    } catch (error) {
      for (const { reject } of batch) reject(error as Error);
    }
  }

  return (request) =>
    new Promise((resolve, reject) => {
      // flush() settles every request itself and never rejects.
      if (waiting.push({ request, resolve, reject }) === 1) setImmediate(() => void flush());
    });
}
