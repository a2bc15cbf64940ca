import { createTurnQueue } from '../turn-queue.ts';

/**
 * Requests asked for in one turn of the event loop, answered together (on the storage's turn queue,
 * src/storage/turn-queue.ts): `answer` gets them in the order asked for and gives one result each (an
 * Error given is that request's own rejection). When it throws, every request of its batch rejects with
 * that error. On PostgreSQL one statement for the batch costs one round trip where one each cost as
 * many: registrations ask for their subscription data and SQNs by the hundred a second, many in one turn.
 */
export function createTurnBatch<Request, Result>(
  answer: (batch: readonly Request[]) => Promise<readonly (Result | Error)[]>,
): (request: Request) => Promise<Result> {
  return createTurnQueue<Request, Result>(async (batch) => {
    const results = await answer(batch);
    return batch.map((_, index) => {
      const result = results[index] as Result | Error;
      return result instanceof Error ? { error: result } : { value: result };
    });
  });
}
